import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { processAlive } from '../durableFs';
import { BEIR_BASE_URL, BEIR_DATASETS, findBeirDataset, type BeirDataset } from './catalog';
import { downloadFile, md5File, type DownloadProgress } from './download';
import { DatasetError, fileSystemError } from './errors';
import { unzip } from './unzip';
import { didYouMean } from '../nearest';

export interface GetDatasetRequest {
  name: string;
  /** Folder that receives `<name>/` (and the zip while it downloads). */
  dir: string;
  /** Where `<name>.zip` is fetched from; default BEIR's public server (IRW_BEIR_BASE_URL overrides it in the CLI). */
  baseUrl?: string;
  /** md5 to expect instead of BEIR's published one (a mirror that repackaged the zip). */
  md5?: string;
  /** Replace BEIR's files in a dataset folder that already exists (the user's other files there are kept). */
  force?: boolean;
  /** A server that sends nothing for this long fails the download (default: download.ts's DEFAULT_STALL_MS). */
  stallMs?: number;
}

export type GetProgress =
  | ({ phase: 'download' } & DownloadProgress)
  | { phase: 'verify' }
  | { phase: 'unpack'; entries: number; totalEntries: number }
  /** Another get of the same dataset into the same folder runs (process `pid`): this one waits for it. */
  | { phase: 'wait'; pid: number };

export interface GetDatasetResult {
  folder: string;
  url: string;
  /** False when the folder was already there (nothing downloaded). */
  downloaded: boolean;
  bytes: number;
  resumedFrom: number;
  /** Dataset folders written: the folder itself, or its sub-datasets (CQADupStack holds one per forum). */
  datasets: { folder: string; splits: string[] }[];
}

/** The catalogue entry for `name`, or the error saying it is unknown (with the nearest names): checked before anything is done. */
export function beirDatasetOrError(name: string): BeirDataset {
  const entry = findBeirDataset(name);
  if (!entry) {
    const names = BEIR_DATASETS.filter((d) => d.md5).map((d) => d.name);
    throw new DatasetError(`unknown BEIR dataset '${name}'${didYouMean(name, BEIR_DATASETS.map((d) => d.name)) || '.'}`, `Available: ${names.join(', ')} ('irw datasets list').`);
  }
  return entry;
}

/**
 * Downloads a BEIR dataset zip, checks its md5, and unpacks it to `<dir>/<name>/` (corpus.jsonl, queries.jsonl,
 * qrels/). Two gets of one dataset into one folder run one after the other (the second finds it there). With
 * `force`, BEIR's files in an existing folder are replaced and everything else in it (the user's judgements,
 * runs, notes) is kept.
 */
export async function getDataset(req: GetDatasetRequest, hooks: { signal?: AbortSignal; onProgress?: (p: GetProgress) => void } = {}): Promise<GetDatasetResult> {
  const entry = beirDatasetOrError(req.name);
  const md5 = req.md5 ?? entry.md5;
  if (!md5) throw new DatasetError(`BEIR publishes no zip for '${entry.name}': ${entry.licence}`, `See ${entry.homepage} and BEIR's examples/dataset for how to build it.`);
  if (!/^[0-9a-fA-F]{32}$/.test(md5)) throw new DatasetError(`not an md5 checksum: '${md5}'`, 'Give 32 hexadecimal digits.');
  const dir = resolve(req.dir);
  const folder = join(dir, entry.name);
  const url = `${(req.baseUrl ?? BEIR_BASE_URL).replace(/\/+$/, '')}/${entry.name}.zip`;
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw new DatasetError(`cannot create the folder: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 'Choose a --dir you can write to (a folder, not a file).', dir);
  }
  const unlock = await lockDataset(dir, entry.name, hooks);
  try {
    if (existsSync(folder) && !req.force) {
      const datasets = statSync(folder).isDirectory() ? findDatasetFolders(folder) : [];
      if (datasets.length > 0) return { folder, url, downloaded: false, bytes: 0, resumedFrom: 0, datasets };
      throw new DatasetError(
        'the folder exists but holds no BEIR dataset (corpus.jsonl, queries.jsonl, qrels/*.tsv)',
        "Remove it, or pass --force to put BEIR's files into it (files of yours there are kept).",
        folder,
      );
    }
    const zip = join(dir, `${entry.name}.zip`);
    // A zip left by an unpack that failed (disk full) was complete and checked: it is not downloaded again.
    const kept = existsSync(zip) && (await md5File(zip)) === md5.toLowerCase();
    const got = kept
      ? { bytes: statSync(zip).size, resumedFrom: 0 }
      : await downloadFile(url, zip, { md5, signal: hooks.signal, stallMs: req.stallMs, onProgress: (p) => hooks.onProgress?.({ phase: 'download', ...p }) });
    hooks.onProgress?.({ phase: 'verify' });
    // Unpack beside the target and move into place, so a failed or cancelled unpack leaves no half dataset.
    const staging = join(dir, `.${entry.name}.unzip-${process.pid}`);
    rmSync(staging, { recursive: true, force: true });
    try {
      await unzip(zip, staging, { signal: hooks.signal, onProgress: (p) => hooks.onProgress?.({ phase: 'unpack', ...p }) });
      const top = join(staging, entry.name);
      const unpacked = existsSync(top) && statSync(top).isDirectory() ? top : staging;
      const datasets = findDatasetFolders(unpacked);
      if (datasets.length === 0) throw new DatasetError(`the archive holds no BEIR dataset (corpus.jsonl, queries.jsonl, qrels/*.tsv)`, 'Check the base URL: it should serve BEIR dataset zips.', zip);
      if (existsSync(folder)) replaceFiles(unpacked, folder);
      else renameSync(unpacked, folder);
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
    rmSync(zip, { force: true });
    return { folder, url, downloaded: true, bytes: got.bytes, resumedFrom: got.resumedFrom, datasets: findDatasetFolders(folder) };
  } catch (e) {
    throw fileSystemError(e);
  } finally {
    unlock();
  }
}

/**
 * Moves every file under `from` to the same place under `to`, replacing files of the same name and keeping all
 * others. Checked before anything moves: a folder where a file goes (or a file where a folder goes) is refused,
 * naming it. The files replaced are moved aside first and put back if a move fails, so `to` ends with the old
 * files or the new, never a mix.
 */
function replaceFiles(from: string, to: string): void {
  const files = walkFiles(from).map((f) => relative(from, f));
  for (const rel of files) {
    const target = join(to, rel);
    if (existsSync(target) && statSync(target).isDirectory()) {
      throw new DatasetError(`a folder stands where the dataset has the file ${rel}`, 'Move that folder away, then run the same command again; nothing was replaced.', target);
    }
    for (let d = dirname(target); d !== to && d.startsWith(to); d = dirname(d)) {
      if (existsSync(d) && !statSync(d).isDirectory()) {
        throw new DatasetError(`a file stands where the dataset needs the folder ${relative(to, d)}`, 'Move that file away, then run the same command again; nothing was replaced.', d);
      }
    }
  }
  const aside = join(dirname(to), `.${relative(dirname(to), to)}.replaced-${process.pid}`);
  const moved: string[] = [];
  try {
    for (const rel of files) {
      const target = join(to, rel);
      if (existsSync(target)) {
        mkdirSync(dirname(join(aside, rel)), { recursive: true });
        renameSync(target, join(aside, rel));
      }
      mkdirSync(dirname(target), { recursive: true });
      renameSync(join(from, rel), target);
      moved.push(rel);
    }
  } catch (e) {
    for (const rel of moved) rmSync(join(to, rel), { force: true });
    for (const rel of files) if (existsSync(join(aside, rel))) renameSync(join(aside, rel), join(to, rel));
    rmSync(aside, { recursive: true, force: true });
    throw e;
  }
  rmSync(aside, { recursive: true, force: true });
}

function walkFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? walkFiles(join(dir, d.name)) : [join(dir, d.name)]));
}

const LOCK_POLL_MS = 200;

/**
 * Makes gets of `name` into `dir` run one at a time: `.<name>.get.lock` holds the pid of the one running; a
 * second waits (saying so) until it is gone, and takes over a lock whose process no longer runs.
 */
async function lockDataset(dir: string, name: string, hooks: { signal?: AbortSignal; onProgress?: (p: GetProgress) => void }): Promise<() => void> {
  const lock = join(dir, `.${name}.get.lock`);
  let told = false;
  for (;;) {
    hooks.signal?.throwIfAborted();
    try {
      const fd = openSync(lock, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(lock, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new DatasetError(`cannot create ${lock}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 'Choose a --dir you can write to.', dir);
      }
    }
    const pid = Number(readFileSync(lock, 'utf8').trim() || 0);
    if (pid > 0 && !processAlive(pid)) {
      try {
        unlinkSync(lock);
      } catch {
        // another waiter took it over first
      }
      continue;
    }
    if (!told) hooks.onProgress?.({ phase: 'wait', pid });
    told = true;
    await new Promise((r) => setTimeout(r, LOCK_POLL_MS));
  }
}


/** The BEIR dataset folders at or directly under `folder` (corpus.jsonl + queries.jsonl + qrels/*.tsv), with their splits. */
export function findDatasetFolders(folder: string): { folder: string; splits: string[] }[] {
  const here = splitsOf(folder);
  if (here) return [{ folder, splits: here }];
  return readdirSync(folder, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => join(folder, d.name))
    .flatMap((f) => {
      const splits = splitsOf(f);
      return splits ? [{ folder: f, splits }] : [];
    });
}

function splitsOf(folder: string): string[] | null {
  if (!existsSync(join(folder, 'corpus.jsonl')) || !existsSync(join(folder, 'queries.jsonl'))) return null;
  const qrels = join(folder, 'qrels');
  if (!existsSync(qrels)) return null;
  const splits = readdirSync(qrels)
    .filter((f) => f.endsWith('.tsv') && !f.includes('.annotations'))
    .map((f) => f.slice(0, -4))
    .sort();
  return splits.length > 0 ? splits : null;
}
