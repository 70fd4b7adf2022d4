import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readRun, Run } from '../../../../../src/core/formats/run';
import { writeRun } from '../../../../../src/core/retrieval/dense/dataset';
import { fuseRuns, FUSION_DEFAULTS, runFuse } from '../../../../../src/core/retrieval/fusion/run';
import { mulberry32 } from '../../../../../src/core/random';

const dir = mkdtempSync(join(tmpdir(), 'irw-fuse-run-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Per query, the document order trec_eval 9 gives a file: score as a 32-bit float descending, docno descending. */
function trecEvalOrder(file: string): Map<string, string[]> {
  const byQuery = new Map<string, { d: string; s: number }[]>();
  for (const line of readFileSync(file, 'utf8').trim().split('\n')) {
    const [q, , d, , s] = line.split(' ');
    if (!byQuery.has(q)) byQuery.set(q, []);
    byQuery.get(q)!.push({ d, s: Math.fround(Number(s)) });
  }
  const out = new Map<string, string[]>();
  for (const [q, l] of byQuery) out.set(q, l.sort((a, b) => b.s - a.s || (a.d < b.d ? 1 : a.d > b.d ? -1 : 0)).map((x) => x.d));
  return out;
}

function randomRun(tag: string, seed: number, queries: number, docs: number): Run {
  const rnd = mulberry32(seed);
  const rankings: [string, string[], number[]][] = [];
  for (let q = 0; q < queries; q++) {
    const ids = Array.from({ length: docs }, (_, i) => `doc${Math.floor(rnd() * docs * 3)}-${i}`);
    const scores = ids.map(() => 10 + rnd() * 20).sort((a, b) => b - a);
    rankings.push([`q${q}`, ids, scores]);
  }
  return Run.fromRankings(tag, rankings);
}

describe('irw fuse: the written file ranks as the fusion did, under trec_eval reading', () => {
  const a = randomRun('a', 1, 5, 1000);
  const b = randomRun('b', 2, 5, 1000);
  for (const norm of ['sum', 'min-max', 'z-score'] as const) {
    it(`--norm ${norm}: every query's order in the file is the fused order`, async () => {
      const runs = [join(dir, 'a.trec'), join(dir, 'b.trec')];
      writeRun(a, runs[0]);
      writeRun(b, runs[1]);
      const out = join(dir, `fused-${norm}.trec`);
      const fusion = { ...FUSION_DEFAULTS, norm };
      await runFuse({ runs, fusion, tag: null, out });
      // The fusion of the files as read back (6-decimal inputs), in memory:
      const fused = fuseRuns(runs.map((p) => readRun(p)), fusion, 't');
      const fileOrder = trecEvalOrder(out);
      for (const q of fused.qids) assert.deepEqual(fileOrder.get(q), [...fused.ranking(q)!.docs], `query ${q}`);
    });
  }
});
