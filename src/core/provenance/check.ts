import { existsSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { corpusFile } from '../formats/datasetFolder';
import { sameContent, shortHash, type FileRecord } from './files';
import { datasetQueriesFile, readSidecar, splitOfQrels, type Sidecar } from './record';

/**
 * Checks a run's recorded provenance against the dataset it is evaluated on: a run made on another corpus or
 * other queries than the qrels' dataset has, or before the qrels changed, gets a warning (its figures may not
 * mean what they seem). A run without provenance (imported, or older than provenance) cannot be checked and
 * gets none. Fused and re-ranked runs are checked through their inputs, and against changes of those inputs.
 */
export interface ProvenanceWarning {
  run: string;
  kind: 'corpus' | 'queries' | 'qrels' | 'input';
  message: string;
}

/** What a run is evaluated against: the qrels file, and the dataset folder it belongs to (null when unknown). */
export interface EvaluatedOn {
  qrels: string;
  dataset: string | null;
}

const describe = (r: FileRecord) => `${r.path} (sha256 ${shortHash(r.sha256)})`;

export async function checkRun(runPath: string, on: EvaluatedOn, sidecar: Sidecar | null = readSidecar(runPath), seen = new Set<string>()): Promise<ProvenanceWarning[]> {
  const path = resolve(runPath);
  if (seen.has(path)) return [];
  seen.add(path);
  const p = sidecar?.provenance;
  if (!p) return [];
  const out: ProvenanceWarning[] = [];
  const warn = (kind: ProvenanceWarning['kind'], message: string) => out.push({ run: runPath, kind, message });
  const { inputs } = p;
  if (on.dataset && inputs.corpus) {
    const current = corpusFile(on.dataset);
    const c = await sameContent(inputs.corpus, current);
    if (!c.same) {
      warn('corpus', inputs.corpus.path === resolve(current)
        ? `made on ${describe(inputs.corpus)}, which has changed since (now ${c.sha256 ? `sha256 ${shortHash(c.sha256)}` : 'another size'}): the run's documents and scores are those of the old corpus`
        : `made on the corpus ${describe(inputs.corpus)}, not on this dataset's ${current}${c.sha256 ? ` (sha256 ${shortHash(c.sha256)})` : ''}`);
    }
  }
  if (on.dataset && inputs.queries) {
    const current = datasetQueriesFile(on.dataset, splitOfQrels(on.qrels));
    if (current) {
      const q = await sameContent(inputs.queries, current);
      if (!q.same) {
        warn('queries', typeof sidecar.settings.queries === 'string'
          ? `made with the queries of ${describe(inputs.queries)}, not this dataset's ${current}: its rankings answer other query texts`
          : `made with ${describe(inputs.queries)}, which differs from this dataset's ${current} now: the query texts changed since the run was made`);
      }
    }
  }
  if (inputs.qrels && splitOfQrels(inputs.qrels.path) === splitOfQrels(on.qrels) && existsSync(on.qrels)) {
    const q = await sameContent(inputs.qrels, on.qrels);
    if (!q.same) {
      warn('qrels', `made when ${basename(inputs.qrels.path)} held ${inputs.qrels.judgements} judgements of ${inputs.qrels.queries} queries (sha256 ${shortHash(inputs.qrels.sha256)}); ${on.qrels} has changed since: the run answers the queries judged then${p.tuning ? ', and its tuning figures were computed on those judgements' : ''}`);
    }
  }
  for (const input of [...(inputs.runs ?? []), ...(inputs.firstStage ? [inputs.firstStage] : [])]) {
    const now = await sameContent(input, input.path);
    if (!now.same) warn('input', `its input run ${describe(input)} has changed or gone since: re-make this run from the current one`);
    else for (const w of await checkRun(input.path, on, undefined, seen)) out.push({ ...w, run: runPath, message: `input ${basename(input.path)}: ${w.message}` });
  }
  return out;
}
