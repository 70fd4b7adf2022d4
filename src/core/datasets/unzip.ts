import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import * as yauzl from 'yauzl';
import { DatasetError } from './errors';

export interface UnzipProgress {
  entries: number;
  totalEntries: number;
}

/**
 * Unpacks every file of `zipPath` under `destDir`. Entries that would land outside it (absolute paths, `..`)
 * are refused, as are symbolic links; macOS resource forks (`__MACOSX/`) are skipped. Returns the files written,
 * relative to destDir.
 */
export async function unzip(zipPath: string, destDir: string, hooks: { signal?: AbortSignal; onProgress?: (p: UnzipProgress) => void } = {}): Promise<string[]> {
  const zip = await open(zipPath);
  const root = resolve(destDir);
  const written: string[] = [];
  try {
    let done = 0;
    for (;;) {
      hooks.signal?.throwIfAborted();
      const entry = await nextEntry(zip, zipPath);
      if (!entry) break;
      done++;
      hooks.onProgress?.({ entries: done, totalEntries: zip.entryCount });
      const name = entry.fileName;
      if (name.startsWith('__MACOSX/') || name.endsWith('/')) continue;
      // eslint-disable-next-line no-control-regex
      if (/[\u0000-\u001f]/.test(name)) {
        throw new DatasetError(`the archive holds an entry whose name has a control character (a NUL byte, a line break): ${JSON.stringify(name)}`, 'The zip is damaged or not a BEIR dataset zip: delete it and download again; nothing was installed.', zipPath);
      }
      const target = resolve(root, name);
      const rel = relative(root, target);
      if (rel === '' || rel.startsWith('..') || rel.startsWith(sep) || /^[a-zA-Z]:/.test(rel)) {
        throw new DatasetError(`the archive holds an entry outside its folder: ${JSON.stringify(name)}`, 'The zip is not a BEIR dataset zip; nothing was written outside the target folder.', zipPath);
      }
      const mode = (entry.externalFileAttributes >>> 16) & 0o170000;
      if (mode === 0o120000) throw new DatasetError(`the archive holds a symbolic link: ${JSON.stringify(name)}`, 'The zip is not a BEIR dataset zip.', zipPath);
      try {
        mkdirSync(dirname(target), { recursive: true });
        await pipeline(await openStream(zip, entry), createWriteStream(target, { flags: 'wx' }), { signal: hooks.signal });
      } catch (e) {
        throw entryFailed(zipPath, name, e);
      }
      written.push(rel.split(sep).join('/'));
    }
  } finally {
    zip.close();
  }
  return written;
}

/** Why an entry could not be written, as a DatasetError saying what to do (an abort or a DatasetError passes as it is). */
function entryFailed(zipPath: string, name: string, e: unknown): unknown {
  const code = (e as NodeJS.ErrnoException).code;
  if (e instanceof DatasetError || (e as Error).name === 'AbortError') return e;
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new DatasetError(`unpacking ${JSON.stringify(name)} failed: the disk is full (${code})`, 'Free some space (or choose another --dir), then run the same command again: the downloaded zip is kept, nothing was installed.', zipPath);
  }
  if (code === 'ENOTDIR' || code === 'EEXIST' || code === 'EISDIR') {
    return new DatasetError(`the archive holds a file and a folder at the same path (${JSON.stringify(name)}), or the same file twice`, 'The zip is damaged or not a BEIR dataset zip: delete it and download again; nothing was installed.', zipPath);
  }
  if (code) return new DatasetError(`unpacking ${JSON.stringify(name)} failed: ${(e as Error).message}`, 'Check the disk and the folder, then run the same command again: the downloaded zip is kept, nothing was installed.', zipPath);
  return new DatasetError(`cannot unpack ${JSON.stringify(name)}: ${(e as Error).message}`, 'The zip is damaged: delete it and download again; nothing was installed.', zipPath);
}

function open(path: string): Promise<yauzl.ZipFile> {
  return new Promise((res, rej) =>
    yauzl.open(path, { lazyEntries: true, strictFileNames: true, validateEntrySizes: true }, (err, zip) => {
      if (err || !zip) return rej(new DatasetError(`not a readable zip archive: ${err?.message ?? 'unknown error'}`, 'Delete it and download again.', path));
      res(zip);
    }),
  );
}

function nextEntry(zip: yauzl.ZipFile, zipPath: string): Promise<yauzl.Entry | null> {
  return new Promise((res, rej) => {
    const cleanup = () => {
      zip.off('entry', onEntry);
      zip.off('end', onEnd);
      zip.off('error', onError);
    };
    const onEntry = (e: yauzl.Entry) => (cleanup(), res(e));
    const onEnd = () => (cleanup(), res(null));
    const onError = (e: Error) => (cleanup(), rej(new DatasetError(`broken zip archive: ${e.message}`, 'The zip is damaged or not a BEIR dataset zip: delete it and download again; nothing was installed.', zipPath)));
    zip.on('entry', onEntry);
    zip.on('end', onEnd);
    zip.on('error', onError);
    zip.readEntry();
  });
}

function openStream(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<NodeJS.ReadableStream> {
  return new Promise((res, rej) => zip.openReadStream(entry, (err, stream) => (err || !stream ? rej(new DatasetError(`cannot read ${entry.fileName} from the archive: ${err?.message}`, 'The zip is damaged: delete it and download again; nothing was installed.')) : res(stream))));
}
