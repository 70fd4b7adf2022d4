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
}

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
  let resumedFrom = existsSync(part) ? statSync(part).size : 0;
  let res = await request(url, resumedFrom, options.signal);
  let append = false;
  let total: number | null;
  if (res.statusCode === 416 && resumedFrom > 0) {
    // Range past the end: the part may hold the whole file already, else it is stale.
    const size = totalFromContentRange(res.headers['content-range']);
    res.resume();
    if (size === resumedFrom) return finish(part, dest, resumedFrom, resumedFrom, options.md5);
    rmSync(part, { force: true });
    resumedFrom = 0;
    res = await request(url, 0, options.signal);
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
  const received = await receive(res, part, append, resumedFrom, total, options);
  return finish(part, dest, received, resumedFrom, options.md5);
}

/** Streams the body into the part file; rejects (keeping the part) if the connection ends early or is cancelled. */
function receive(res: http.IncomingMessage, part: string, append: boolean, resumedFrom: number, total: number | null, options: DownloadOptions): Promise<number> {
  return new Promise((resolve, reject) => {
    const out = createWriteStream(part, { flags: append ? 'a' : 'w' });
    let received = resumedFrom;
    let failed: Error | null = null;
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
    res.on('end', () => {
      if (!res.complete || (total !== null && received !== total)) fail(new Error('short'));
      else out.end();
    });
    out.on('error', (e) => {
      failed ??= e;
      res.destroy();
    });
    out.on('close', () => {
      options.signal?.removeEventListener('abort', onAbort);
      if (!failed) return resolve(received);
      if (failed.name === 'AbortError') return reject(failed);
      if ((failed as NodeJS.ErrnoException).syscall === 'write' || (failed as NodeJS.ErrnoException).code === 'ENOSPC') return reject(failed);
      reject(
        new DatasetError(
          `the download stopped after ${received} of ${total ?? 'an unknown number of'} bytes (the connection was closed)`,
          'The partial file is kept: run the same command again to resume where it stopped.',
          part,
        ),
      );
    });
  });
}

async function finish(part: string, dest: string, bytes: number, resumedFrom: number, expected: string | null | undefined): Promise<DownloadResult> {
  const md5 = await md5File(part);
  if (expected && md5 !== expected.toLowerCase()) {
    // A complete file with the wrong content cannot be resumed into a good one.
    rmSync(part, { force: true });
    throw new DatasetError(
      `checksum mismatch: md5 ${md5}, expected ${expected} (the file was deleted)`,
      'Run again to download it afresh; if it keeps failing, the server or mirror holds a different file.',
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

function request(url: string, from: number, signal: AbortSignal | undefined, redirects = 0): Promise<http.IncomingMessage> {
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
        return resolve(request(new URL(location, parsed).toString(), from, signal, redirects + 1));
      }
      resolve(res);
    });
    req.on('error', (e) => {
      if (e.name === 'AbortError') return reject(e);
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
