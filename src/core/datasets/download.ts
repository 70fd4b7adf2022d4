import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, renameSync, rmSync, statSync } from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import { DatasetError } from './errors';

export interface DownloadProgress {
  /** Bytes of the file on disk so far, resumed part included. */
  received: number;
  /** Size of the whole file when the server says it; null otherwise. */
  total: number | null;
  /** Bytes already on disk when this transfer started (resumed download). */
  resumedFrom: number;
}

export interface DownloadOptions {
  /** Expected md5 (hex) of the whole file; a mismatch deletes the partial file and rejects. */
  md5?: string | null;
  signal?: AbortSignal;
  onProgress?: (p: DownloadProgress) => void;
  /** A server that sends nothing for this long (no answer, or a body that stops) fails the download (default 60 s). */
  stallMs?: number;
}

export const DEFAULT_STALL_MS = 60_000;

/** The connection went quiet for longer than the stall timeout. */
class Stalled extends Error {}

export interface DownloadResult {
  bytes: number;
  /** Bytes taken over from an earlier, interrupted download (0 when it started afresh). */
  resumedFrom: number;
  md5: string;
}

const MAX_REDIRECTS = 5;

/**
 * Downloads `url` to `dest`. Bytes go to `dest + '.part'` first; an interrupted download (connection lost,
 * cancelled) keeps that file and the next call resumes it with an HTTP Range request. Only a complete file
 * whose md5 matches is renamed to `dest`.
 */
export async function downloadFile(url: string, dest: string, options: DownloadOptions = {}): Promise<DownloadResult> {
  const part = `${dest}.part`;
  const stallMs = options.stallMs ?? DEFAULT_STALL_MS;
  let resumedFrom = existsSync(part) ? statSync(part).size : 0;
  let res = await request(url, resumedFrom, options.signal, stallMs);
  let append = false;
  let total: number | null;
  if (res.statusCode === 416 && resumedFrom > 0) {
    // Range past the end: the part may hold the whole file already, else it is stale.
    const size = totalFromContentRange(res.headers['content-range']);
    res.resume();
    if (size === resumedFrom) return finish(part, dest, resumedFrom, resumedFrom, options.md5);
    rmSync(part, { force: true });
    resumedFrom = 0;
    res = await request(url, 0, options.signal, stallMs);
  }
  if (res.statusCode === 206) {
    const start = startFromContentRange(res.headers['content-range']);
    if (start !== resumedFrom) {
      res.resume();
      throw new DatasetError(`the server answered a resume request with the wrong range (${String(res.headers['content-range'])})`, 'Delete the .part file and run again.', part);
    }
    append = true;
    total = totalFromContentRange(res.headers['content-range']);
  } else if (res.statusCode === 200) {
    // The server ignored the Range header (or there was nothing to resume): start from the beginning.
    resumedFrom = 0;
    const length = Number(res.headers['content-length']);
    total = Number.isFinite(length) && res.headers['content-length'] !== undefined ? length : null;
  } else {
    res.resume();
    throw new DatasetError(`the server answered HTTP ${res.statusCode} for ${url}`, 'Check the dataset name and the base URL (--base-url or IRW_BEIR_BASE_URL).');
  }
  const received = await receive(res, part, append, resumedFrom, total, options, stallMs);
  return finish(part, dest, received, resumedFrom, options.md5);
}

/** Streams the body into the part file; rejects (keeping the part) if the connection ends early or is cancelled. */
function receive(res: http.IncomingMessage, part: string, append: boolean, resumedFrom: number, total: number | null, options: DownloadOptions, stallMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const out = createWriteStream(part, { flags: append ? 'a' : 'w' });
    let received = resumedFrom;
    let failed: Error | null = null;
    let unwritable: Error | null = null;
    const fail = (e: Error) => {
      if (failed) return;
      failed = e;
      res.destroy();
      out.end();
    };
    const onAbort = () => fail(options.signal!.reason instanceof Error ? options.signal!.reason : new DOMException('cancelled', 'AbortError'));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    res.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (!out.write(chunk)) {
        res.pause();
        out.once('drain', () => res.resume());
      }
      options.onProgress?.({ received, total, resumedFrom });
    });
    res.on('error', (e) => fail(e));
    res.on('aborted', () => fail(new Error('aborted')));
    // The socket's idle timeout (set on the request) covers the body too; here it names what was received.
    res.socket?.setTimeout(stallMs, () => fail(new Stalled()));
    res.on('end', () => {
      if (!res.complete || (total !== null && received !== total)) fail(new Error('short'));
      else out.end();
    });
    out.on('error', (e) => {
      unwritable = e;
      failed ??= e;
      res.destroy();
    });
    out.on('close', () => {
      options.signal?.removeEventListener('abort', onAbort);
      if (!failed) return resolve(received);
      if (failed.name === 'AbortError') return reject(failed);
      if (unwritable) return reject(writeFailed(part, unwritable));
      const why = failed instanceof Stalled ? `the server sent nothing for ${Math.round(stallMs / 1000)} s` : 'the connection was closed';
      reject(
        new DatasetError(
          `the download stopped after ${received} of ${total ?? 'an unknown number of'} bytes (${why})`,
          'The partial file is kept: run the same command again to resume where it stopped.',
          part,
        ),
      );
    });
  });
}

/** The partial file could not be written (disk full, permissions): kept as far as it got, for a resume. */
function writeFailed(part: string, e: Error): DatasetError {
  const code = (e as NodeJS.ErrnoException).code;
  const why = code === 'ENOSPC' || code === 'EDQUOT' ? 'the disk is full' : code === 'EIO' ? 'an input/output error' : code === 'EFBIG' ? 'the file is larger than the file system allows' : 'the file cannot be written';
  return new DatasetError(
    `the download could not be written: ${why} (${code})`,
    code === 'ENOSPC' || code === 'EDQUOT'
      ? 'Free some space (or choose another --dir), then run the same command again: the partial file is kept and resumed.'
      : 'Make the folder writable (or choose another --dir), then run the same command again: the partial file is kept and resumed.',
    part,
  );
}

async function finish(part: string, dest: string, bytes: number, resumedFrom: number, expected: string | null | undefined): Promise<DownloadResult> {
  const md5 = await md5File(part);
  if (expected && md5 !== expected.toLowerCase()) {
    // A complete file with the wrong content cannot be resumed into a good one.
    rmSync(part, { force: true });
    throw new DatasetError(
      `checksum mismatch: md5 ${md5}, expected ${expected} (the file was deleted)`,
      'Run again to download it afresh. If it keeps failing, the server holds a different file: for a mirror that repackaged the zip, pass the md5 it publishes with --md5.',
      dest,
    );
  }
  renameSync(part, dest);
  return { bytes, resumedFrom, md5 };
}

export function md5File(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('md5');
    createReadStream(path)
      .on('data', (b) => hash.update(b))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}

function request(url: string, from: number, signal: AbortSignal | undefined, stallMs: number, redirects = 0): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return reject(new DatasetError(`not a URL: ${url}`, 'Give the base URL as http://host/path or https://host/path.'));
    }
    const lib = parsed.protocol === 'https:' ? https : parsed.protocol === 'http:' ? http : null;
    if (!lib) return reject(new DatasetError(`unsupported URL scheme ${parsed.protocol} in ${url}`, 'Use an http or https URL.'));
    const headers: Record<string, string> = { 'user-agent': 'ir-workbench' };
    if (from > 0) headers.range = `bytes=${from}-`;
    const req = lib.get(parsed, { headers, signal }, (res) => {
      const location = res.headers.location;
      if (res.statusCode && res.statusCode >= 300 && res.statusCode < 400 && location) {
        res.resume();
        if (redirects >= MAX_REDIRECTS) return reject(new DatasetError(`too many redirects from ${url}`));
        return resolve(request(new URL(location, parsed).toString(), from, signal, stallMs, redirects + 1));
      }
      resolve(res);
    });
    // No answer at all (or headers that never end) for stallMs: give up on this request.
    req.setTimeout(stallMs, () => req.destroy(new Stalled()));
    req.on('error', (e) => {
      if (e.name === 'AbortError') return reject(e);
      if (e instanceof Stalled) {
        return reject(new DatasetError(`${parsed.host} did not answer for ${Math.round(stallMs / 1000)} s`, 'Check the network (or the base URL), then run again; a partial file is resumed.'));
      }
      reject(new DatasetError(`cannot reach ${parsed.host}: ${(e as NodeJS.ErrnoException).code ?? e.message}`, 'Check the network (or the proxy), then run again; a partial file is resumed.'));
    });
  });
}

function startFromContentRange(h: string | undefined): number | null {
  const m = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(h ?? '');
  return m ? Number(m[1]) : null;
}

function totalFromContentRange(h: string | undefined): number | null {
  const m = /\/(\d+)$/.exec(h ?? '');
  return m ? Number(m[1]) : null;
}
