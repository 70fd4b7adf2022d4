import { openBm25 } from '../src/core/retrieval/bm25/run';
import { Bm25Ranker, type Ranking } from '../src/core/retrieval/bm25/ranker';
import { Run } from '../src/core/formats/run';
import { readQrels } from '../src/core/formats/qrels';
import { perQueryRow } from '../src/core/tune/scores';
(async () => {
  const o = await openBm25({ dataset: '/work/shared/datasets/scifact', split: 'test', k1: 0, b: 0, fields: 'flat', topK: 1000, removeQuery: true, rm3: null, queryWeights: null, cacheDir: null });
  const qrels = readQrels('/work/shared/datasets/scifact/qrels/test.tsv');
  for (let rep = 0; rep < 3; rep++) {
    let t = performance.now();
    const ranker = new Bm25Ranker(o.index, { k1: 1.2, b: 0.75, rm3: null }, 1000, true);
    const ranking: Ranking = { ids: [], scores: [] };
    const rankings: [string, string[], number[]][] = [];
    for (let i = 0; i < o.qids.length; i++) { ranker.rank(o.qids[i], o.queries[i], ranking); rankings.push([o.qids[i], ranking.ids.slice(), ranking.scores.slice()]); }
    const t1 = performance.now();
    for (const r of rankings) r[2] = r[2].map((x) => Number(x.toFixed(6)));
    const t2 = performance.now();
    const run = Run.fromRankings('t', rankings);
    const t3 = performance.now();
    perQueryRow(qrels, run, { measure: 'ndcg_cut.10', relevanceLevel: 1 });
    const t4 = performance.now();
    console.log({ search: t1 - t, fixed: t2 - t1, run: t3 - t2, eval: t4 - t3 });
  }
})();
