// Shared by the holes tests: random small cases and the brute force every range is checked against.
import { Qrels } from '../../../../../src/core/formats/qrels';
import { Run } from '../../../../../src/core/formats/run';
import { mulberry32 } from '../../../../../src/core/random';
import type { HoleQuery } from '../../../../../src/core/eval/holes';
import type { HoleScorer } from '../../../../../src/core/eval/holes';

export interface Case {
  qrels: Qrels;
  runs: Run[];
}

/** Three runs over 14 documents, 3 queries, some judged (grades from `grades`), some pooled-unjudged (-1). */
export function randomCase(seed: number, grades: readonly number[]): Case {
  const next = mulberry32(seed);
  const pick = (n: number) => next() % n;
  const judgements: { qid: string; docid: string; grade: number }[] = [];
  const qids = ['q1', 'q2', 'q3'];
  for (const qid of qids) {
    for (let d = 0; d < 14; d++) {
      const r = pick(10);
      if (r < 4) judgements.push({ qid, docid: `d${d}`, grade: grades[pick(grades.length)] });
      else if (r === 4) judgements.push({ qid, docid: `d${d}`, grade: -1 });
    }
    if (!judgements.some((j) => j.qid === qid)) judgements.push({ qid, docid: 'd0', grade: grades[grades.length - 1] });
  }
  const runs = [0, 1, 2].map((r) =>
    Run.fromRankings(
      `run${r}`,
      qids
        .filter((q) => !(r === 2 && q === 'q3')) // a run that misses a query
        .map((qid) => {
          const docs = Array.from({ length: 14 }, (_, d) => `d${d}`)
            .filter(() => pick(5) > 0)
            .slice(0, 4 + pick(8));
          return [qid, docs, docs.map((_, i) => 100 - i)] as [string, string[], number[]];
        }),
    ),
  );
  return { qrels: Qrels.fromJudgements(judgements), runs };
}

/** Every assignment of `scale` to the free holes of q: min and max of f. */
export function bruteForce(q: HoleQuery, scale: readonly number[], f: (grades: Int32Array) => number): { lo: number; hi: number } {
  const free: number[] = [];
  q.grades.forEach((g, h) => g < 0 && free.push(h));
  const grades = Int32Array.from(q.grades);
  let lo = Infinity;
  let hi = -Infinity;
  const total = scale.length ** free.length;
  for (let k = 0; k < total; k++) {
    let x = k;
    for (const h of free) {
      grades[h] = scale[x % scale.length];
      x = Math.floor(x / scale.length);
    }
    const v = f(grades);
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  return { lo, hi };
}

export const scoreOf = (q: HoleQuery, r: number, s: HoleScorer) => (g: Int32Array) => s.score(q, r, g);
