import { DATASETS, needsShared } from '../../../support/paths';
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync, statSync, openSync, writeSync, closeSync, mkdirSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAnalyzer, type Analyzer } from '../../../../../src/core/retrieval/analysis/analyzer';
import { IndexBuilder, type Bm25Index } from '../../../../../src/core/retrieval/bm25/index';
import { Searcher, bagOfWords, idf } from '../../../../../src/core/retrieval/bm25/search';
import { byte4ToInt, intToByte4 } from '../../../../../src/core/retrieval/bm25/smallFloat';
import { cacheFile, cacheKey, loadIndex, saveIndex } from '../../../../../src/core/retrieval/bm25/cache';
import { Rm3, RM3_DEFAULTS } from '../../../../../src/core/retrieval/bm25/rm3';
import { adjustScoreTies } from '../../../../../src/core/retrieval/bm25/ranker';
import { runBm25, runTag, type Bm25RunRequest } from '../../../../../src/core/retrieval/bm25/run';
import { readQueryWeights } from '../../../../../src/core/retrieval/bm25/queryWeights';
import { RunWriter } from '../../../../../src/core/formats/runWriter';
import { InputError } from '../../../../../src/core/formats/errors';
import { readQueries } from '../../../../../src/core/formats/beir';

const SCIFACT = join(DATASETS, 'scifact');

function build(an: Analyzer, docs: [string, string, string][], mode: 'flat' | 'multifield' = 'flat'): Bm25Index {
  const b = new IndexBuilder(an, mode);
  for (const [id, title, text] of docs) b.add(id, title, text);
  return b.finish();
}

describe("Lucene's SmallFloat length encoding", () => {
  it('is exact up to 23 and matches known Lucene values above', () => {
    for (let i = 0; i < 24; i++) assert.equal(byte4ToInt(intToByte4(i)), i);
    // Hand-computed from SmallFloat.intToByte4: 4 significant bits above 24.
    assert.equal(intToByte4(24), 24);
    assert.equal(intToByte4(100), 57);
    assert.equal(byte4ToInt(57), 96);
    assert.equal(intToByte4(0x7fffffff), 255);
  });
  it('round-trips to a value at most the length and within 12.5% of it; encoding is monotone (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e8 }), fc.integer({ min: 0, max: 1e8 }), (a, b) => {
        const d = byte4ToInt(intToByte4(a));
        assert.ok(d <= a && d >= a * 0.875 - 1);
        if (a <= b) assert.ok(intToByte4(a) <= intToByte4(b));
      }),
    );
  });
});

describe('BM25 scoring and ranking', () => {
  let an: Analyzer;
  before(async () => {
    an = await createAnalyzer();
  });

  it('scores as the textbook Lucene BM25 formula with quantized lengths', () => {
    const docs: [string, string, string][] = [
      ['d1', 'Cats', 'cats chase mice and cats sleep'],
      ['d2', '', 'dogs chase cats'],
      ['d3', 'Mice', 'mice eat cheese cheese cheese'],
      ['d4', '', 'nothing relevant here at all'],
    ];
    const index = build(an, docs);
    const k1 = 1.2;
    const b = 0.75;
    const s = new Searcher(index, { k1, b });
    const hits = s.search(bagOfWords(an.analyze('cat mice cat')), 10);
    const lengths = docs.map(([, t, x]) => an.analyze(`${t} ${x}`).length);
    const avgdl = lengths.reduce((a, c) => a + c, 0) / lengths.length;
    const expected = docs.map((d, i) => {
      const terms = an.analyze(`${d[1]} ${d[2]}`);
      let score = 0;
      for (const [term, boost] of [['cat', 2], ['mice', 1]] as const) {
        const tf = terms.filter((t) => t === term).length;
        if (!tf) continue;
        const df = docs.filter((x) => an.analyze(`${x[1]} ${x[2]}`).includes(term)).length;
        const dl = byte4ToInt(intToByte4(lengths[i]));
        score += boost * Math.log(1 + (docs.length - df + 0.5) / (df + 0.5)) * (tf / (tf + k1 * (1 - b + (b * dl) / avgdl)));
      }
      return score;
    });
    assert.equal(hits.docs.length, 3, 'only matching documents are returned');
    for (let i = 0; i < hits.docs.length; i++) {
      const want = expected[hits.docs[i]];
      assert.ok(Math.abs(hits.scores[i] - want) < 1e-5 * want, `${index.docIds[hits.docs[i]]}: ${hits.scores[i]} vs ${want}`);
    }
    const byExpected = [0, 1, 2].sort((x, y) => expected[y] - expected[x]);
    assert.deepEqual(Array.from(hits.docs), byExpected);
    assert.ok(idf(4, 1) > idf(4, 3));
  });

  it('breaks ties by document id, ascending, whatever the corpus order', () => {
    const index = build(an, [
      ['b', '', 'same words'],
      ['c', '', 'same words'],
      ['a', '', 'same words'],
      ['aa', '', 'other'],
    ]);
    const hits = new Searcher(index, { k1: 0.9, b: 0.4 }).search(bagOfWords(['same']), 2);
    assert.deepEqual(Array.from(hits.docs, (d) => index.docIds[d]), ['a', 'b']);
  });

  it('top-k selection equals a full sort, ties included (property)', () => {
    const vocab = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'];
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.constantFrom(...vocab), { maxLength: 12 }), { minLength: 1, maxLength: 40 }),
        fc.array(fc.constantFrom(...vocab), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 50 }),
        (texts, q, k) => {
          const index = build(an, texts.map((t, i) => [`d${(i * 7) % 41}x${i}`, '', t.join(' ')] as [string, string, string]));
          const s = new Searcher(index, { k1: 0.9, b: 0.4 });
          const bag = bagOfWords(an.analyze(q.join(' ')));
          // Negative weights (possible in --query-weights) take the comparator path of the final sort.
          const signed = new Map([...bag].map(([t, w], i) => [t, i % 2 ? -w : w]));
          for (const query of [bag, signed]) {
            const all = s.search(query, 1e6);
            const top = s.search(query, k);
            const order = Array.from(all.docs).map((d, i) => ({ id: index.docIds[d], s: all.scores[i] }));
            for (let i = 1; i < order.length; i++) {
              assert.ok(order[i - 1].s > order[i].s || (order[i - 1].s === order[i].s && order[i - 1].id < order[i].id));
            }
            assert.deepEqual(Array.from(top.docs), Array.from(all.docs).slice(0, k));
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('multifield sums per-field scores; flat scores title + text as one field', () => {
    const docs: [string, string, string][] = [
      ['d1', 'protein folding', 'a study of chaperones'],
      ['d2', 'chaperones', 'protein folding in cells'],
      ['d3', '', 'unrelated text'],
    ];
    const multi = build(an, docs, 'multifield');
    assert.deepEqual(multi.fieldIndexes.map((f) => f.name), ['title', 'text']);
    assert.equal(multi.fieldIndexes[0].docCount, 2, 'an empty title does not count in the title field');
    const ms = new Searcher(multi, { k1: 0.9, b: 0.4 });
    const q = bagOfWords(an.analyze('protein'));
    const title = new Searcher({ ...multi, fieldIndexes: [multi.fieldIndexes[0]] }, { k1: 0.9, b: 0.4 }).search(q, 10);
    const text = new Searcher({ ...multi, fieldIndexes: [multi.fieldIndexes[1]] }, { k1: 0.9, b: 0.4 }).search(q, 10);
    const both = ms.search(q, 10);
    const sum = new Map<number, number>();
    for (const h of [title, text]) h.docs.forEach((d, i) => sum.set(d, (sum.get(d) ?? 0) + h.scores[i]));
    both.docs.forEach((d, i) => assert.ok(Math.abs(both.scores[i] - sum.get(d)!) < 1e-6));
    const flat = build(an, docs, 'flat');
    assert.equal(flat.fieldIndexes.length, 1);
    assert.equal(flat.fieldIndexes[0].docCount, 3);
  });

  it('term frequencies above 65,535 are kept exactly', () => {
    const index = build(an, [['d1', '', `${'spam '.repeat(70_000)}ham`], ['d2', '', 'spam']]);
    const f = index.fieldIndexes[0];
    const t = f.termIds.get('spam')!;
    assert.deepEqual(Array.from(f.tfs.subarray(f.offsets[t], f.offsets[t + 1])), [70_000, 1]);
  });

  it('weighted queries scale term contributions (Lucene boosts)', () => {
    const index = build(an, [
      ['d1', '', 'apple apple banana'],
      ['d2', '', 'banana banana apple'],
    ]);
    const s = new Searcher(index, { k1: 0.9, b: 0.4 });
    const one = s.search(new Map([['appl', 1]]), 2);
    const three = s.search(new Map([['appl', 3]]), 2);
    one.scores.forEach((x, i) => assert.ok(Math.abs(three.scores[i] - 3 * x) < 1e-5));
    assert.equal(index.docIds[s.search(new Map([['appl', 0.1], ['banana', 1]]), 1).docs[0]], 'd2');
  });
});

describe('RM3', () => {
  it('expands with feedback terms: weights sum to one, original terms keep at least originalQueryWeight * their share', async () => {
    const an = await createAnalyzer();
    const docs: [string, string, string][] = [];
    for (let i = 0; i < 100; i++) docs.push([`d${i}`, '', i < 5 ? 'insulin glucose pancreas beta cells diabetes' : `filler text number${i} words`]);
    const index = build(an, docs);
    const s = new Searcher(index, { k1: 0.9, b: 0.4 });
    const q = bagOfWords(an.analyze('diabetes'));
    const rm3 = new Rm3(index.fieldIndexes[0], index.docIds.length, RM3_DEFAULTS);
    const expanded = rm3.expand(q, s.search(q, 1000));
    let total = 0;
    for (const w of expanded.values()) total += w;
    assert.ok(Math.abs(total - 1) < 1e-5);
    assert.ok(expanded.get('diabet')! >= 0.5);
    for (const t of ['insulin', 'glucos', 'pancrea']) assert.ok(expanded.has(t), t);
    // Terms in more than 10% of documents are not feedback terms; 'filler' is in 95 of 100.
    assert.ok(!expanded.has('filler'));
  });
});

describe('index cache', () => {
  let dir: string;
  let an: Analyzer;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'irw-bm25-cache-'));
    an = await createAnalyzer();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('round-trips an index exactly; a truncated, corrupted or foreign file is refused', () => {
    const index = build(an, [['d1', 'T', 'x y z'], ['d2', '', 'y y'], ['d3', 'title only', '']], 'multifield');
    const key = cacheKey('0'.repeat(64), an.id, 'multifield');
    const file = cacheFile(dir, key);
    assert.equal(loadIndex(file, key), 'absent');
    saveIndex(file, key, index);
    const back = loadIndex(file, key);
    assert.ok(typeof back !== 'string');
    assert.deepEqual(back.docIds, index.docIds);
    assert.deepEqual([...back.idRank], [...index.idRank]);
    back.fieldIndexes.forEach((f, i) => {
      const g = index.fieldIndexes[i];
      assert.deepEqual([f.name, f.terms, f.docCount, f.sumTotalTermFreq], [g.name, g.terms, g.docCount, g.sumTotalTermFreq]);
      assert.deepEqual([...f.offsets, ...f.docs, ...f.tfs, ...f.norms], [...g.offsets, ...g.docs, ...g.tfs, ...g.norms]);
      assert.deepEqual([...f.termIds], [...g.termIds]);
    });
    assert.equal(loadIndex(file, cacheKey('1'.repeat(64), an.id, 'multifield')), 'corrupt', 'another key');
    const size = statSync(file).size;
    const copy = join(dir, 'copy.idx');
    copyFileSync(file, copy);
    const fd = openSync(copy, 'r+');
    writeSync(fd, Buffer.from([0xff]), 0, 1, Math.floor(size / 2));
    closeSync(fd);
    assert.equal(loadIndex(copy, key), 'corrupt', 'one flipped byte');
    truncateSync(file, size - 10);
    assert.equal(loadIndex(file, key), 'corrupt', 'truncated');
  });

  it('a run reuses the cache, rebuilds a corrupted one, and a changed corpus gets a new index', async () => {
    const ds = join(dir, 'ds');
    mkdirSync(join(ds, 'qrels'), { recursive: true });
    writeFileSync(join(ds, 'corpus.jsonl'), '{"_id": "d1", "title": "", "text": "red apple"}\n{"_id": "d2", "title": "", "text": "green pear"}\n');
    writeFileSync(join(ds, 'queries.jsonl'), '{"_id": "q1", "text": "apple"}\n');
    writeFileSync(join(ds, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\r\nq1\td1\t1\r\n');
    const cache = join(dir, 'cache');
    const req = (out: string): Bm25RunRequest => ({
      dataset: ds, split: 'test', k1: 0.9, b: 0.4, fields: 'flat', topK: 10, removeQuery: true, rm3: null, queryWeights: null, cacheDir: cache, out,
    });
    const phases = (p: string[]) => ({ onProgress: (e: { phase: string }) => p.push(e.phase) });
    const first: string[] = [];
    const r1 = await runBm25(req(join(dir, 'r1.trec')), phases(first));
    assert.equal(r1.index, 'built');
    assert.equal(r1.cacheRebuilt, 'absent');
    // An empty cache folder: nothing is said to be loaded; the index is built and saved.
    assert.deepEqual([...new Set(first)], ['hash', 'index', 'save-index', 'search']);
    const second: string[] = [];
    const r2 = await runBm25(req(join(dir, 'r2.trec')), phases(second));
    assert.equal(r2.index, 'cache');
    assert.deepEqual([...new Set(second)], ['hash', 'load-index', 'search']);
    assert.equal(readFileSync(join(dir, 'r1.trec'), 'utf8'), readFileSync(join(dir, 'r2.trec'), 'utf8'));
    writeFileSync(r2.cacheFile!, 'garbage');
    const r3 = await runBm25(req(join(dir, 'r3.trec')));
    assert.equal(r3.index, 'built');
    assert.equal(r3.cacheRebuilt, 'corrupt');
    writeFileSync(join(ds, 'corpus.jsonl'), '{"_id": "d1", "title": "", "text": "red apple"}\n{"_id": "d2", "title": "", "text": "apple pie"}\n');
    const r4 = await runBm25(req(join(dir, 'r4.trec')));
    assert.equal(r4.index, 'built');
    assert.notEqual(r4.cacheFile, r3.cacheFile);
    assert.match(readFileSync(join(dir, 'r4.trec'), 'utf8'), /q1 Q0 d2 2/);
    assert.deepEqual(readdirSync(cache).filter((f) => f.endsWith('.partial')), []);
  });
});

describe('runs: tag, remove-query, weighted queries', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'irw-bm25-run-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const base = (over: Partial<Bm25RunRequest>): Bm25RunRequest => ({
    dataset: SCIFACT, split: 'test', k1: 0.9, b: 0.4, fields: 'flat', topK: 100, removeQuery: true, rm3: null, queryWeights: null, cacheDir: null, out: join(dir, 'x.trec'), ...over,
  });

  it('the tag names the configuration', () => {
    assert.equal(runTag(base({})), 'bm25-flat-k1=0.9-b=0.4-removeQuery');
    assert.equal(runTag(base({ fields: 'multifield', removeQuery: false, rm3: RM3_DEFAULTS })), 'bm25-multifield-k1=0.9-b=0.4-rm3=10,10,0.5-keepQuery');
  });

  it("ties are written as Anserini's ScoreTiesAdjuster writes them: 1e-4 rounding, 1e-6 per tie", () => {
    const scores = [23.439316, 22.087432, 22.087432, 22.08741, 21.602508]; // a ranking: descending
    adjustScoreTies(scores);
    // In float, as in Anserini, 22.0874 - 1e-6 and 22.0874 - 2e-6 round to the same value (spacing ~1.9e-6 here).
    assert.deepEqual(scores.map((x) => x.toFixed(6)), ['23.439301', '22.087400', '22.087399', '22.087399', '21.602501']);
    const small = [1.5, 1.5, 1.5];
    adjustScoreTies(small);
    assert.deepEqual(small.map((x) => x.toFixed(6)), ['1.500000', '1.499999', '1.499998']);
  });

  it('a hit whose id is the query id is dropped unless told otherwise', async () => {
    const ds = join(dir, 'self');
    mkdirSync(join(ds, 'qrels'), { recursive: true });
    writeFileSync(join(ds, 'corpus.jsonl'), '{"_id": "q1", "text": "zebra stripes"}\n{"_id": "d2", "text": "zebra"}\n');
    writeFileSync(join(ds, 'queries.jsonl'), '{"_id": "q1", "text": "zebra stripes"}\n');
    writeFileSync(join(ds, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\r\nq1\td2\t1\r\n');
    const drop = join(dir, 'drop.trec');
    const keep = join(dir, 'keep.trec');
    await runBm25(base({ dataset: ds, out: drop }));
    await runBm25(base({ dataset: ds, out: keep, removeQuery: false }));
    assert.deepEqual(readFileSync(drop, 'utf8').trim().split('\n').map((l) => l.split(' ')[2]), ['d2']);
    assert.deepEqual(readFileSync(keep, 'utf8').trim().split('\n').map((l) => l.split(' ')[2]), ['q1', 'd2']);
  });

  it('--query-weights equal to the bag of words of each query reproduce the text run', { skip: needsShared('datasets/scifact') }, async () => {
    const an = await createAnalyzer();
    const lines = [...readQueries(join(SCIFACT, 'queries.jsonl')).values()].map((q) => JSON.stringify({ _id: q.id, weights: Object.fromEntries(bagOfWords(an.analyze(q.text))) }));
    const wfile = join(dir, 'weights.jsonl');
    writeFileSync(wfile, lines.join('\n') + '\n');
    const a = join(dir, 'text.trec');
    const b = join(dir, 'weights.trec');
    await runBm25(base({ out: a }));
    const r = await runBm25(base({ out: b, queryWeights: wfile }));
    assert.equal(r.tag, 'bm25-flat-k1=0.9-b=0.4-weighted-removeQuery');
    const strip = (p: string) => readFileSync(p, 'utf8').replace(/ \S+\n/g, '\n');
    assert.equal(strip(a), strip(b));
  });

  it('bad weights files name file and line', () => {
    const p = join(dir, 'bad-weights.jsonl');
    writeFileSync(p, '{"_id": "q1", "weights": {"a": 1}}\n{"_id": "q2", "weights": {"a": "x"}}\n');
    assert.throws(() => readQueryWeights(p), (e: unknown) => e instanceof InputError && e.line === 2 && e.file === p);
  });

  it('a query judged in qrels but absent from queries.jsonl is an input error', async () => {
    const ds = join(dir, 'missing');
    mkdirSync(join(ds, 'qrels'), { recursive: true });
    writeFileSync(join(ds, 'corpus.jsonl'), '{"_id": "d1", "text": "x"}\n');
    writeFileSync(join(ds, 'queries.jsonl'), '{"_id": "q1", "text": "x"}\n');
    writeFileSync(join(ds, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\r\nq9\td1\t1\r\n');
    await assert.rejects(runBm25(base({ dataset: ds, out: join(dir, 'm.trec') })), (e: unknown) => e instanceof InputError && /q9/.test(e.message));
    assert.equal(existsSync(join(dir, 'm.trec')), false);
  });
});

describe('run writer', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'irw-runwriter-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('writes TREC lines to a temporary file and renames it on commit', () => {
    const out = join(dir, 'a.trec');
    const w = new RunWriter(out, 'tag1');
    w.writeRanking('q1', ['d1', 'd2'], [2.5, 1.0000004]);
    assert.equal(existsSync(out), false);
    w.commit();
    assert.equal(readFileSync(out, 'utf8'), 'q1 Q0 d1 1 2.500000 tag1\nq1 Q0 d2 2 1.000000 tag1\n');
    assert.deepEqual(readdirSync(dir), ['a.trec']);
  });

  it('abort leaves nothing, and an existing file under the final name is untouched', () => {
    const out = join(dir, 'b.trec');
    writeFileSync(out, 'old\n');
    const w = new RunWriter(out, 'tag');
    w.writeRanking('q1', ['d1'], [1]);
    w.abort();
    w.abort();
    assert.equal(readFileSync(out, 'utf8'), 'old\n');
    assert.deepEqual(readdirSync(dir).filter((f) => f.includes('partial')), []);
  });

  it('refuses tags with whitespace', () => {
    assert.throws(() => new RunWriter(join(dir, 'c.trec'), 'my tag'));
  });
});
