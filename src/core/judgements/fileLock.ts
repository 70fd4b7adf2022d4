import { randomBytes } from 'node:crypto';
import { closeSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * An exclusive lock between processes (two VS Code windows, the CLI) on one file, held only for the few
 * system calls of one append. It is the file `<path>.lock`, created complete by link(2), which fails when it
 * exists, so exactly one process holds it. Its content is part of the on-disk contract, because a crashed holder leaves it behind:
 *   {"pid": 123, "host": "name", "nonce": "hex", "pending": {"offset": 40, "bytes": "<base64>"}, "abandoned": true}
 * `pending` names the bytes the holder was appending at `offset` and had not yet confirmed: they are the only
 * bytes a later recovery may cut (see AppendLog). `abandoned` marks a lock whose holder is alive but gave up
 * on a failed write it could not roll back. A lock is stale, and is taken over, when its holder's process is
 * gone (same host), when it is abandoned, or when it is older than STALE_MS (a holder on another host).
 */
export interface LockRecord {
  pid: number;
  host: string;
  nonce: string;
  pending?: { offset: number; bytes: string };
  abandoned?: boolean;
}

const STALE_MS = 30_000;
const WAIT_MS = 10_000;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

export class FileLock {
  private constructor(
    private readonly fd: number,
    readonly lockPath: string,
    private readonly record: LockRecord,
    /** The record of a crashed holder this lock took over; its `pending` bytes may need cutting. */
    readonly tookOver: LockRecord | undefined,
  ) {
    this.written = Buffer.byteLength(JSON.stringify(record));
  }

  /** Bytes of the record now in the file. */
  private written: number;
  /** Released or abandoned: later calls do nothing (an error path may reach both). */
  private done = false;

  /** Waits (blocking, up to WAIT_MS) for the lock of `path`. Throws a message naming the lock file when it cannot. */
  static acquire(path: string): FileLock {
    const lockPath = `${path}.lock`;
    const deadline = Date.now() + WAIT_MS;
    let tookOver: LockRecord | undefined;
    for (let delay = 1; ; delay = Math.min(delay * 2, 50)) {
      const record: LockRecord = { pid: process.pid, host: hostname(), nonce: randomBytes(8).toString('hex') };
      const fd = create(lockPath, JSON.stringify(record));
      if (fd !== undefined) return new FileLock(fd, lockPath, record, tookOver);
      const held = readRecord(lockPath);
      if (held && isStale(held.record, held.ageMs)) {
        const taken = takeOver(lockPath, held.record);
        if (taken) tookOver = taken;
        continue;
      }
      if (Date.now() > deadline) {
        const who = held?.record ? ` by process ${held.record.pid} on ${held.record.host}` : '';
        throw new Error(`${path} is locked${who} (${lockPath}). Another IR Workbench window or irw command is writing it; try again. If none is running, delete ${lockPath}.`);
      }
      Atomics.wait(sleeper, 0, 0, delay);
    }
  }

  /** Records the bytes about to be appended at `offset`, so a crash before they are confirmed can be undone. */
  setPending(offset: number, bytes: Buffer): void {
    this.rewrite({ ...this.record, pending: { offset, bytes: bytes.toString('base64') } });
  }

  /** Leaves the lock in place, marked so the next holder cuts the pending bytes this holder could not. */
  abandon(): void {
    if (this.done) return;
    this.done = true;
    try {
      const current = readRecord(this.lockPath)?.record ?? this.record;
      this.rewrite({ ...current, abandoned: true });
    } finally {
      closeSync(this.fd);
    }
  }

  release(): void {
    if (this.done) return;
    this.done = true;
    closeSync(this.fd);
    unlinkSync(this.lockPath);
  }

  /**
   * One write at offset 0, padded with spaces (JSON allows them) to cover the previous record: a process
   * killed here leaves the old record or the new one, never a torn mix.
   */
  private rewrite(record: LockRecord): void {
    const json = JSON.stringify(record);
    const text = Buffer.from(json.padEnd(Math.max(json.length, this.written), ' '));
    writeSync(this.fd, text, 0, text.length, 0);
    this.written = text.length;
  }
}

/**
 * Creates the lock file holding `content` from the first byte (temp file + link, which fails when the lock
 * exists), so nobody ever reads an empty lock. Returns an fd open on it, or undefined when it is held.
 */
function create(lockPath: string, content: string): number | undefined {
  const tmp = `${lockPath}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(tmp, content, { flag: 'wx' });
  try {
    linkSync(tmp, lockPath);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw e;
  } finally {
    unlinkSync(tmp);
  }
  return openSync(lockPath, 'r+');
}

function readRecord(lockPath: string): { record: LockRecord | undefined; ageMs: number } | undefined {
  try {
    const ageMs = Date.now() - statSync(lockPath).mtimeMs;
    let record: LockRecord | undefined;
    try {
      record = JSON.parse(readFileSync(lockPath, 'utf8')) as LockRecord;
    } catch {
      record = undefined; // being written right now, or torn by a crash: only age can tell
    }
    return { record, ageMs };
  } catch {
    return undefined; // released meanwhile
  }
}

function isStale(record: LockRecord | undefined, ageMs: number): boolean {
  if (ageMs > STALE_MS) return true;
  if (!record) return false;
  if (record.abandoned) return true;
  if (record.host !== hostname()) return false;
  if (record.pid === process.pid) return false; // this process holds it in another writer: wait
  try {
    process.kill(record.pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Moves a stale lock aside (rename is atomic, so of two processes taking it over only one gets it) and
 * returns its record. If what was moved is not the lock judged stale (another process took over and locked
 * meanwhile), it is put back.
 */
function takeOver(lockPath: string, stale: LockRecord | undefined): LockRecord | undefined {
  const aside = `${lockPath}.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    renameSync(lockPath, aside);
  } catch {
    return undefined;
  }
  const moved = readRecord(aside)?.record;
  if (stale && moved?.nonce !== stale.nonce) {
    try {
      linkSync(aside, lockPath);
    } catch {
      // a third process locked meanwhile; the one moved aside was live: it keeps working on its open fd
    }
    unlinkSync(aside);
    return undefined;
  }
  unlinkSync(aside);
  return moved ?? { pid: 0, host: '', nonce: '' };
}
