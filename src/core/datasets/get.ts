import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BEIR_BASE_URL, BEIR_DATASETS, findBeirDataset } from './catalog';
import { downloadFile, type DownloadProgress } from './download';
import { DatasetError } from './errors';
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
  /** Replace a dataset folder that already exists. */
  force?: boolean;
}

export type GetProgress = ({ phase: 'download' } & DownloadProgress) | { phase: 'verify' } | { phase: 'unpack'; entries: number; totalEntries: number };

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

/** Downloads a BEIR dataset zip, checks its md5, and unpacks it to `<dir>/<name>/` (corpus.jsonl, queries.jsonl, qrels/). */
export async function getDataset(req: GetDatasetRequest, hooks: { signal?: AbortSignal; onProgress?: (p: GetProgress) => void } = {}): Promise<GetDatasetResult> {
  const entry = findBeirDataset(req.name);
  if (!entry) {
    throw new DatasetError(`unknown BEIR dataset '${req.name}'${didYouMean(req.name, BEIR_DATASETS.map((d) => d.name))}`, `Available: ${BEIR_DATASETS.filter((d) => d.md5).map((d) => d.name).join(', ')} ('irw datasets list').`);
  }
  const md5 = req.md5 ?? entry.md5;
  if (!md5) throw new DatasetError(`BEIR publishes no zip for '${entry.name}': ${entry.licence}`, `See ${entry.homepage} and BEIR's examples/dataset for how to build it.`);
  if (!/^[0-9a-fA-F]{32}$/.test(md5)) throw new DatasetError(`not an md5 checksum: '${md5}'`, 'Give 32 hexadecimal digits.');
  const dir = resolve(req.dir);
  const folder = join(dir, entry.name);
  const url = `${(req.baseUrl ?? BEIR_BASE_URL).replace(/\/+$/, '')}/${entry.name}.zip`;
  if (existsSync(folder) && !req.force) {
    const datasets = findDatasetFolders(folder);
    if (datasets.length > 0) return { folder, url, downloaded: false, bytes: 0, resumedFrom: 0, datasets };
    throw new DatasetError('the folder exists but holds no BEIR dataset (corpus.jsonl, queries.jsonl, qrels/*.tsv)', 'Remove it, or pass --force to replace it.', folder);
  }
  mkdirSync(dir, { recursive: true });
  const zip = join(dir, `${entry.name}.zip`);
  const got = await downloadFile(url, zip, { md5, signal: hooks.signal, onProgress: (p) => hooks.onProgress?.({ phase: 'download', ...p }) });
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
    rmSync(folder, { recursive: true, force: true });
    renameSync(unpacked, folder);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  rmSync(zip, { force: true });
  return { folder, url, downloaded: true, bytes: got.bytes, resumedFrom: got.resumedFrom, datasets: findDatasetFolders(folder) };
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
