import type { Qrels } from '../../formats/qrels';
import { runSteps } from '../../steps';
import type { Run } from '../../formats/run';
import { JudgementTable } from '../judgementTable';

/**
 * The holes of a set of runs: per query, the unjudged documents in the top `poolDepth` of any of the runs
 * (the depth-k pool the Holes view and the judging queue use). Documents outside the pool stay non-relevant,
 * as trec_eval counts them; "every assignment" below means every assignment of grades to these holes.
 */

/** One run's ranking of one query, as trec_eval ranks it. */
export interface RankedList {
  /** Grade at each rank; negative (NONPOOL, UNJUDGED) where the document is not judged for the query. */
  rels: Int32Array;
  /** Index of the hole at each rank (into HoleQuery.holes), -1 for a judged or unpooled document. */
  holeAt: Int32Array;
}

export interface HoleQuery {
  qid: string;
  /** Judged documents per grade (grade >= 0), as trec_eval counts them; holes are not in it. */
  relLevels: Int32Array;
  /** Document ids of the holes, in pool order (run order, then rank). */
  holes: string[];
  /** Grade given to each hole since the pool was taken (the judging loop), -1 while unjudged. */
  grades: Int32Array;
  /** One per run of the set, in its order; empty lists for a query the run does not answer. */
  lists: RankedList[];
}

export interface HoleSet {
  runIds: string[];
  poolDepth: number;
  /** Grades a hole can take: 0 and every grade >= 0 found in the qrels, ascending (the dataset's scale). */
  scale: number[];
  /** Every query of the qrels, in trec_eval's order (queries a run misses score 0, as trec_eval -c). */
  queries: HoleQuery[];
}

export interface PoolOptions {
  /** Pool depth: holes are unjudged documents in the top k of any run (default 10). */
  poolDepth?: number;
}

export function prepareHoles(qrels: Qrels, runs: readonly Run[], options: PoolOptions = {}): HoleSet {
  return runSteps(prepareHolesSteps(qrels, runs, options));
}

/**
 * prepareHoles() a few hundred queries at a time, yielding between them: on a 10,000-query split with four
 * runs it takes 0.3-0.7 s, which the engine must not spend in one piece while judgements wait.
 */
export function* prepareHolesSteps(qrels: Qrels, runs: readonly Run[], options: PoolOptions = {}, every = 200): Generator<void, HoleSet, undefined> {
  const poolDepth = options.poolDepth ?? 10;
  const grades = new Set<number>([0]);
  const table = new JudgementTable();
  const holeTable = new JudgementTable();
  const queries: HoleQuery[] = [];
  for (const qid of qrels.queryIds()) {
    if (queries.length > 0 && queries.length % every === 0) yield;
    const j = qrels.judgements(qid)!;
    let max = -1;
    for (const g of j.grades) {
      if (g >= 0) grades.add(g);
      if (g > max) max = g;
    }
    const relLevels = new Int32Array(max + 1);
    for (const g of j.grades) if (g >= 0) relLevels[g]++;
    table.load(j);
    const holeIndex = new Map<string, number>();
    const holes: string[] = [];
    const rels = runs.map((run) => {
      const q = run.queryIndex(qid);
      if (q < 0) return new Int32Array(0);
      const start = run.offsets[q];
      const out = new Int32Array(run.offsets[q + 1] - start);
      for (let i = 0; i < out.length; i++) {
        const d = run.docIds[start + i];
        out[i] = table.lookup(run.docs, d);
        if (i < poolDepth && out[i] < 0) {
          const id = run.docs.string(d);
          if (!holeIndex.has(id)) {
            holeIndex.set(id, holes.length);
            holes.push(id);
          }
        }
      }
      return out;
    });
    // A hole pooled from one run may sit deeper in another: find it at every rank of every run, by the
    // document's bytes (a string per unjudged line was most of the pool's time: 4 runs x 100 lines x 10,000
    // queries). The table's "grade" of hole k is k.
    holeTable.load({ docs: holes, grades: Int32Array.from(holes, (_, k) => k) });
    const lists = runs.map((run, r) => {
      const holeAt = new Int32Array(rels[r].length).fill(-1);
      const start = run.offsets[run.queryIndex(qid)];
      for (let i = 0; i < holeAt.length; i++) {
        if (rels[r][i] >= 0) continue;
        const h = holeTable.lookup(run.docs, run.docIds[start + i]);
        if (h >= 0) holeAt[i] = h;
      }
      return { rels: rels[r], holeAt };
    });
    queries.push({ qid, relLevels, holes, grades: new Int32Array(holes.length).fill(-1), lists });
  }
  return { runIds: runs.map((r) => r.tag), poolDepth, scale: [...grades].sort((a, b) => a - b), queries };
}

/** Records a judgement of hole `h` of query `q` (the judging loop); the intervals and ranges then narrow. */
export function judgeHole(q: HoleQuery, h: number, grade: number): void {
  q.grades[h] = grade;
}
