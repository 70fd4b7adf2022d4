// `npm run test:faults`: the fault suite (test/faults/): the classes of faults the product must survive, each tried
// over many cases. A full disk is a real one where the system allows: each case mounts a tiny tmpfs, inside a mount
// namespace of this suite's own (root: `unshare -m`; anyone else: a user namespace, `unshare -Urm`), so nothing
// outside sees it. Where neither is possible those cases say so and are skipped. Ends with `faults: N passed, N failed`.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const files = readdirSync('test/faults')
  .filter((f) => f.endsWith('.test.ts') && (!process.argv[2] || f.includes(process.argv[2])))
  .sort()
  .map((f) => join('test/faults', f));
if (files.length === 0) {
  console.error(`test:faults: no test/faults/*.test.ts file matches "${process.argv[2]}"`);
  process.exit(1);
}
const REPORTERS = ['--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=./test/summary-reporter.mjs', '--test-reporter-destination=stdout'];
const node = [process.execPath, '--import', 'tsx', '--test', '--test-concurrency=1', ...REPORTERS, ...files];

/** The unshare arguments that give this user a private mount namespace where tmpfs can be mounted, or null. */
function namespace() {
  for (const args of process.getuid?.() === 0 ? [['-m'], ['-Urm']] : [['-Urm']]) {
    const probe = spawnSync('unshare', [...args, '--propagation', 'private', 'sh', '-c', 'd=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs "$d" && umount "$d"; r=$?; rmdir "$d"; exit $r'], { stdio: 'ignore' });
    if (probe.status === 0) return [...args, '--propagation', 'private'];
  }
  return null;
}

const ns = namespace();
const env = { ...process.env, IRW_SUITE: 'faults', IRW_TINY_DISKS: ns ? '1' : '' };
if (!ns) console.log('test:faults: no mount namespace can be made here (unshare or user namespaces unavailable): the full-disk cases are skipped');
const r = ns ? spawnSync('unshare', [...ns, ...node], { stdio: 'inherit', env }) : spawnSync(node[0], node.slice(1), { stdio: 'inherit', env });
process.exit(r.status ?? 1);
