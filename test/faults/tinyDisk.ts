/** Real full disks for the fault suite: a tiny tmpfs per case, in the suite's own mount namespace (run-faults.mjs). */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statfsSync, truncateSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Why full-disk cases cannot run here, or undefined when they can. */
export const NO_TINY_DISKS = process.env.IRW_TINY_DISKS ? undefined : 'needs a mount namespace (run through npm run test:faults, where unshare works)';

/** A fresh tmpfs of `kib` KiB mounted on a new folder; umount() removes it. */
export function tinyDisk(kib: number): { dir: string; umount(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'irw-tiny-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${kib}k,mode=0777`, 'tmpfs', dir]);
  return {
    dir,
    umount: () => {
      execFileSync('umount', ['-l', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Fills the disk of `dir` with a file until a write fails (ENOSPC), then gives back `room` bytes (rounded down to
 * whole pages: tmpfs frees pages). Returns a function that frees the whole filler again.
 */
export function fill(dir: string, room = 0): () => void {
  const filler = join(dir, '.filler');
  const fd = openSync(filler, 'w');
  const chunk = Buffer.alloc(1 << 16, 0x78);
  let size = 0;
  try {
    for (;;) size += writeSync(fd, chunk);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
  } finally {
    closeSync(fd);
  }
  const page = statfsSync(dir).bsize;
  if (room > 0) truncateSync(filler, Math.max(0, size - Math.floor(room / page) * page));
  return () => rmSync(filler, { force: true });
}

/** Free bytes on the disk of `dir`. */
export function freeBytes(dir: string): number {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
}
