import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire, wrap } from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { Script } from 'node:vm';

/**
 * Loads a CommonJS bundle with a V8 code cache, so that a cold `irw` skips most of its JavaScript compilation.
 * The cache is made at exit, after the command ran, so it holds the functions the command compiled lazily too;
 * one per command (`key`), as `irw eval` and `irw run` compile different code. Node 22's
 * module.enableCompileCache() does this; Node 20, our floor, lacks it. Measured, best of 15: `irw --version`
 * 64 ms instead of 74, `irw eval` on SciFact 196 instead of 208. Any problem with the cache (no writable home, a cache from another Node or
 * another build) falls back to a plain compile: V8 checks the data against the source and rejects a mismatch.
 */
export function requireWithCodeCache(file: string, key: string, cacheDir = defaultCacheDir()): unknown {
  const source = readFileSync(file, 'utf8').replace(/^#!.*/, '');
  const cacheFile = cacheDir === null ? null : join(cacheDir, `${key.replace(/\W/g, '_')}-${fingerprint(file)}.bin`);
  let cachedData: Buffer | undefined;
  try {
    if (cacheFile) cachedData = readFileSync(cacheFile);
  } catch {
    // No cache yet: this process writes it.
  }
  const script = new Script(wrap(source), { filename: file, cachedData });
  // Only a command that succeeded leaves a cache: a mistyped one (`irw nosuch`) would leave a file per typo.
  if (cacheFile && (!cachedData || script.cachedDataRejected)) process.once('exit', (code) => code === 0 && save(cacheFile, script));
  const loaded = { exports: {} as unknown };
  const fn = script.runInThisContext() as (exports: unknown, require: NodeRequire, module: unknown, filename: string, dirname: string) => void;
  fn.call(loaded.exports, loaded.exports, createRequire(file), loaded, file, dirname(file));
  return loaded.exports;
}

/** `$XDG_CACHE_HOME/irw/v8` or `~/.cache/irw/v8`; null (no cache) when IRW_CODE_CACHE=0. */
function defaultCacheDir(): string | null {
  if (process.env.IRW_CODE_CACHE === '0') return null;
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'irw', 'v8');
}

/**
 * Ties a cache to this bundle (path, size, time) and this Node (V8's data is specific to its version). FNV-1a, not
 * node:crypto: loading crypto took ~7 ms of a cold `irw eval`, and a collision costs only a rejected cache.
 */
export function fingerprint(file: string): string {
  const s = statSync(file);
  const text = `${file}\0${s.size}\0${s.mtimeMs}\0${process.version}\0${process.arch}`;
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    h1 = Math.imul(h1 ^ text.charCodeAt(i), 0x01000193) >>> 0;
    h2 = Math.imul(h2 ^ text.charCodeAt(i), 0x5bd1e995) >>> 0;
  }
  return h1.toString(16).padStart(8, '0') + h2.toString(16).padStart(8, '0');
}

/**
 * Written beside and renamed into place, so a concurrent `irw` reads a whole cache or none; the command's caches
 * for other builds go (each rebuild of the bundle would otherwise leave ~0.5 MB behind).
 */
function save(cacheFile: string, script: Script): void {
  const tmp = `${cacheFile}.${process.pid}.tmp`;
  try {
    const dir = dirname(cacheFile);
    mkdirSync(dir, { recursive: true });
    writeFileSync(tmp, script.createCachedData());
    renameSync(tmp, cacheFile);
    const prefix = basename(cacheFile).replace(/[0-9a-f]+\.bin$/, '');
    for (const f of readdirSync(dir)) if (f.startsWith(prefix) && f.endsWith('.bin') && f !== basename(cacheFile)) rmSync(join(dir, f), { force: true });
  } catch {
    // A read-only or full disk only costs the next start its compile time.
  }
}
