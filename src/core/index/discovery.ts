import { closeSync, openSync, readdirSync, readSync, statSync, type Dirent } from 'node:fs';
import { basename, dirname, extname, join, relative, resolve, sep } from 'node:path';
import { annotationPaths, annotationSplit } from '../judgements/annotations';
import { beirFile } from '../formats/beir';
import { corpusFile, datasetFiles, isCorpusFileName, isTsvCorpus, trecSplits } from '../formats/datasetFolder';
import type { Problem } from '../formats/problems';

/**
 * A dataset folder, found by the rules `irw run --dataset` reads folders with (formats/datasetFolder.ts): BEIR
 * (corpus.jsonl, queries.jsonl, qrels/<split>.tsv) or MS MARCO/TREC-style (a TSV collection, queries.<split>.tsv
 * or topics.<split>.txt, TREC qrels.<split>.tsv), each data file maybe gzipped.
 */
export interface DiscoveredDataset {
  dir: string;
  name: string;
  corpus: string;
  /** queries.jsonl (BEIR), or the queries (or topics) file of each split (MS MARCO/TREC), without repeats. */
  queries: string[];
  splits: DiscoveredSplit[];
}

export interface DiscoveredSplit {
  split: string;
  /** The split's original qrels; undefined when the split has only the user's annotations. */
  qrels?: string;
  /** qrels/<split>.annotations.tsv in either layout (see annotationPaths). */
  annotations: string;
}

export interface DiscoveredRun {
  path: string;
  /** The dataset the run's location names (`<dataset>/runs/…` or `runs/<dataset name>/…`), if any. */
  datasetDir?: string;
}

export interface Discovery {
  datasets: DiscoveredDataset[];
  runs: DiscoveredRun[];
  /** Files of a runs folder skipped because they cannot be read (dangling or looping links, permissions). */
  problems: Problem[];
}

export interface DiscoveryOptions {
  /** Folder of run files, relative to a workspace folder or to a dataset folder (setting irWorkbench.runs.folder). */
  runsFolder: string;
  /** How deep below a workspace folder datasets are looked for. */
  maxDepth?: number;
}

const SKIP_DIRS = new Set(['node_modules', '.git', '.hg', '.svn', 'dist', 'out', '__pycache__', '.venv', 'venv']);
const RUN_EXTENSIONS = new Set(['', '.trec', '.run', '.txt', '.tsv', '.res', '.runs']);

/** Finds datasets and run files under the workspace folders `roots`. Sorted, so results are stable. */
export function discover(roots: readonly string[], options: DiscoveryOptions): Discovery {
  const maxDepth = options.maxDepth ?? 6;
  const datasets: DiscoveredDataset[] = [];
  const seen = new Set<string>();
  for (const root of roots) findDatasets(resolve(root), 0, maxDepth, datasets, seen);
  datasets.sort((a, b) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0));

  const byName = new Map<string, DiscoveredDataset[]>();
  for (const d of datasets) byName.set(d.name, [...(byName.get(d.name) ?? []), d]);

  const runs = new Map<string, DiscoveredRun>();
  const problems: Problem[] = [];
  for (const d of datasets) {
    for (const path of runFiles(resolve(d.dir, options.runsFolder), 0, problems)) runs.set(path, { path, datasetDir: d.dir });
  }
  for (const root of roots) {
    const folder = resolve(root, options.runsFolder);
    for (const path of runFiles(folder, 0, problems)) {
      if (runs.has(path)) continue;
      // runs/<dataset name>/file names its dataset when that name is unambiguous.
      const first = relative(folder, path).split(sep)[0];
      const named = path.includes(sep, folder.length + 1) ? byName.get(first) : undefined;
      runs.set(path, named?.length === 1 ? { path, datasetDir: named[0].dir } : { path });
    }
  }
  const unique = [...new Map(problems.map((p) => [p.file, p])).values()]; // a folder seen from two roots
  return { datasets, runs: [...runs.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)), problems: unique };
}

/** A run's name in every view: its file name without a run extension (.trec, .run, …). */
export function runStem(path: string): string {
  const name = basename(path);
  const ext = extname(name);
  return ext && RUN_EXTENSIONS.has(ext.toLowerCase()) ? name.slice(0, -ext.length) : name;
}

/**
 * The one label of each run of a split, as the tree and every panel show it: its stem, with as many of its
 * folders as it takes to tell apart runs that share a stem (e.g. one run imported twice). The run's tag goes
 * in tooltips.
 */
export function runLabels(paths: readonly string[]): Map<string, string> {
  const byStem = new Map<string, string[]>();
  for (const p of paths) byStem.set(runStem(p), [...(byStem.get(runStem(p)) ?? []), p]);
  const labels = new Map<string, string>();
  for (const [stem, twins] of byStem) {
    const folders = twins.map((p) => dirname(p).split(/[\\/]/).filter(Boolean));
    const depth = Math.max(...folders.map((f) => f.length));
    let k = twins.length === 1 ? 0 : 1;
    const label = (i: number) => (k === 0 ? stem : [...folders[i].slice(-k), stem].join('/'));
    while (k < depth && new Set(twins.map((_, i) => label(i))).size < twins.length) k++;
    twins.forEach((p, i) => labels.set(p, label(i)));
  }
  return new Map(paths.map((p) => [p, labels.get(p)!]));
}

function list(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function findDatasets(dir: string, depth: number, maxDepth: number, out: DiscoveredDataset[], seen: Set<string>): void {
  if (seen.has(dir)) return;
  seen.add(dir);
  const entries = list(dir);
  const dataset = entries.some((e) => e.isFile() && isCorpusFileName(e.name)) ? datasetAt(dir) : undefined;
  if (dataset) {
    out.push(dataset);
    return; // a dataset's own sub-folders (qrels/, runs/) hold no further datasets
  }
  if (depth >= maxDepth) return;
  for (const e of entries) {
    if (e.isDirectory() && !e.name.startsWith('.') && !SKIP_DIRS.has(e.name)) {
      findDatasets(join(dir, e.name), depth + 1, maxDepth, out, seen);
    }
  }
}

/** The dataset in `dir` (which holds a corpus file), or undefined for a TSV collection without any split. */
function datasetAt(dir: string): DiscoveredDataset | undefined {
  const corpus = corpusFile(dir);
  const splits = new Map<string, DiscoveredSplit>();
  const queries = new Set<string>();
  const add = (split: string, qrels?: string) => {
    const s = splits.get(split) ?? { split, annotations: annotationPaths(dir, split).tsv };
    if (qrels) s.qrels = qrels;
    splits.set(split, s);
  };
  if (isTsvCorpus(corpus)) {
    for (const split of trecSplits(dir)) {
      const files = datasetFiles(dir, split);
      add(split, files.qrels);
      queries.add(files.queries);
    }
    // Many projects hold a docs.tsv: a collection counts as a dataset once a split (queries and qrels) is beside it.
    if (splits.size === 0) return undefined;
  } else {
    queries.add(beirFile(dir, 'queries.jsonl'));
  }
  for (const e of list(join(dir, 'qrels'))) {
    if (!e.isFile() || !e.name.endsWith('.tsv')) continue;
    const annotated = annotationSplit(e.name);
    if (annotated) add(annotated);
    else if (!isTsvCorpus(corpus)) add(e.name.slice(0, -'.tsv'.length), join(dir, 'qrels', e.name));
  }
  return {
    dir,
    name: basename(dir),
    corpus,
    queries: [...queries],
    splits: [...splits.values()].sort((a, b) => splitOrder(a.split) - splitOrder(b.split) || (a.split < b.split ? -1 : 1)),
  };
}

/** test first, as BEIR reports it; then dev and train; other names alphabetically after. */
function splitOrder(split: string): number {
  const i = ['test', 'dev', 'train'].indexOf(split);
  return i < 0 ? 3 : i;
}

/** The start of every discovery problem's message: the indexer replaces them all on each pass. */
export const SKIPPED_RUN = 'skipped in the runs folder:';

/**
 * The run files in `folder` and its sub-folders (3 deep), by the rules the store discovers runs with. A
 * symbolic link is followed to a file; a dangling link, a link loop or an unreadable file is skipped and
 * reported in `problems`, never an error that stops the rest.
 */
export function runFiles(folder: string, depth = 0, problems: Problem[] = []): string[] {
  const out: string[] = [];
  for (const e of list(folder)) {
    const path = join(folder, e.name);
    let isFile = e.isFile();
    let isDir = e.isDirectory();
    if (e.isSymbolicLink()) {
      try {
        const st = statSync(path);
        isFile = st.isFile();
        isDir = false; // not followed into folders: a link to an ancestor would list the same runs again
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        const why = code === 'ENOENT' ? 'the link points to nothing' : code === 'ELOOP' ? 'the link is a loop' : `the link cannot be followed (${code})`;
        problems.push({ file: path, line: 0, severity: 'warning', message: `${SKIPPED_RUN} ${why}. Fix or remove the link.` });
        continue;
      }
    }
    if (isDir && !e.name.startsWith('.') && depth < 3) out.push(...runFiles(path, depth + 1, problems));
    else if (isFile && isRunFileName(e.name)) {
      try {
        if (looksLikeRun(path)) out.push(path);
      } catch (err) {
        problems.push({ file: path, line: 0, severity: 'warning', message: `${SKIPPED_RUN} the file cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}). Check its permissions.` });
      }
    }
  }
  return out;
}

/** Whether a file in a runs folder may be a run by its name (runFiles' rule before it reads the first line). */
export function isRunFileName(name: string): boolean {
  return RUN_EXTENSIONS.has(extname(name).toLowerCase());
}

/**
 * Whether a file's first non-empty line has a TREC run's shape (`qid Q0 docid rank score tag`), so READMEs
 * and notes in a runs folder are not taken for runs. A run with bad lines further down is still a run:
 * the indexer reports those.
 */
export function looksLikeRun(path: string): boolean {
  const fd = openSync(path, 'r'); // an unreadable file throws: the caller reports it
  try {
    const buf = Buffer.alloc(4096);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const first = buf.subarray(0, n).toString('utf8').split('\n').find((l) => l.trim() !== '');
    if (first === undefined) return false;
    const f = first.trim().split(/[ \t]+/);
    return f.length === 6 && /^-?\d+$/.test(f[3]) && Number.isFinite(Number(f[4]));
  } finally {
    closeSync(fd);
  }
}
