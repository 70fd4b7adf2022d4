import { closeSync, existsSync, fstatSync, fsyncSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { fsyncDir } from './durableFs';

/**
 * A durable append-only text file: append() returns only once the line is on disk (write + fsync).
 *
 * Why append + fsync rather than write-temp + fsync + rename: a rename rewrites the whole file for every
 * judgement, so its cost grows with the file and a judging session becomes quadratic; an append costs the
 * same for the 10th line and the 10,000th. What append gives up is atomicity of the last line: a crash
 * (power loss; a SIGKILL mid-write) can leave a torn, unterminated tail, or on some file systems a tail of
 * NUL bytes. That tail belongs to a line whose fsync never returned, so it was never confirmed, and the
 * open-time recovery below may drop it. Every confirmed line ends with '\n' and was synced before the next
 * one started, so recovery only ever touches the unterminated tail:
 *   - a tail that is a valid line but lacks its '\n' (e.g. hand-edited) is kept and terminated;
 *   - anything else after the last '\n' is cut off (ftruncate + fsync).
 * A new file is created with its header and the folder is fsynced, so the file's existence is durable too.
 */
export class AppendLog {
  private constructor(
    private readonly fd: number,
    readonly path: string,
    /** Bytes removed or added by recovery when the file was opened (0 when it was clean). */
    readonly recovered: { cutBytes: number; terminated: boolean },
  ) {}

  /**
   * Opens `path` for appending, creating it with `header` (a full line, '\n'-terminated, may be empty) when
   * missing. `isValidLine` tells a complete record from a torn one during recovery.
   */
  static open(path: string, header: string, isValidLine: (line: string) => boolean): AppendLog {
    const created = !existsSync(path);
    const fd = openSync(path, 'a+');
    try {
      if (created || fstatSync(fd).size === 0) {
        if (header) writeAll(fd, Buffer.from(header));
        fsyncSync(fd);
        fsyncDir(dirname(path));
        return new AppendLog(fd, path, { cutBytes: 0, terminated: false });
      }
      return new AppendLog(fd, path, recover(fd, header, isValidLine));
    } catch (e) {
      closeSync(fd);
      throw e;
    }
  }

  /** Appends `line` (without its '\n') and syncs it; when this returns the line survives a crash. */
  append(line: string): void {
    if (line.includes('\n') || line.includes('\r')) throw new Error('a record cannot contain a line break');
    writeAll(this.fd, Buffer.from(`${line}\n`));
    fsyncSync(this.fd);
  }

  close(): void {
    closeSync(this.fd);
  }
}

function writeAll(fd: number, buf: Buffer): void {
  // 'a+' opens with O_APPEND: every write lands at the current end of the file.
  for (let off = 0; off < buf.length; ) off += writeSync(fd, buf, off, buf.length - off);
}

const TAIL_WINDOW = 64 * 1024;

/** Repairs an unterminated tail (see AppendLog). Reads only the file's last bytes. */
function recover(fd: number, header: string, isValidLine: (line: string) => boolean): { cutBytes: number; terminated: boolean } {
  const size = fstatSync(fd).size;
  if (lastByte(fd, size) === 0x0a) return { cutBytes: 0, terminated: false };
  // Find the last '\n', reading backwards in windows.
  let lastNl = -1;
  for (let end = size; end > 0 && lastNl < 0; end -= TAIL_WINDOW) {
    const start = Math.max(0, end - TAIL_WINDOW);
    const buf = Buffer.alloc(end - start);
    readSync(fd, buf, 0, buf.length, start);
    const i = buf.lastIndexOf(0x0a);
    if (i >= 0) lastNl = start + i;
  }
  const tailStart = lastNl + 1;
  const tail = Buffer.alloc(size - tailStart);
  readSync(fd, tail, 0, tail.length, tailStart);
  const text = tail.toString('utf8').replace(/\r$/, '');
  const isHeader = tailStart === 0 && header !== '' && text === header.replace(/\r?\n$/, '');
  if (!tail.includes(0) && (isHeader || isValidLine(text))) {
    writeAll(fd, Buffer.from('\n'));
    fsyncSync(fd);
    return { cutBytes: 0, terminated: true };
  }
  ftruncateSync(fd, tailStart);
  if (tailStart === 0 && header) writeAll(fd, Buffer.from(header)); // the header itself was torn
  fsyncSync(fd);
  return { cutBytes: tail.length, terminated: false };
}

function lastByte(fd: number, size: number): number {
  if (size === 0) return -1;
  const b = Buffer.alloc(1);
  readSync(fd, b, 0, 1, size - 1);
  return b[0];
}
