import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { writeSyntheticBeir } from '../../helpers/syntheticBeir';
import { requireBuiltCli } from '../support/paths';

const ROOT = resolve(__dirname, '../../..');
const MAIN = join(ROOT, 'src/cli/main.ts');
const dir = mkdtempSync(join(tmpdir(), 'irw-cli-faults-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function irw(...args: string[]) {
  return spawnSync(process.execPath, [requireBuiltCli(), ...args], { cwd: ROOT, encoding: 'utf8' });
}

/** A folder holding two small datasets. */
function datasetsFolder(): string {
  const all = join(dir, 'datasets');
  if (!existsSync(all)) for (const name of ['nfcorpus', 'scifact']) writeSyntheticBeir(join(all, name), { docs: 20, queries: 3, vocabulary: 50, seed: 1 });
  return all;
}

/** A small BEIR folder: a byte-order mark, one bad JSON line, one duplicate id, one bad query line. */
function dataset(): string {
  const ds = join(dir, 'ds');
  if (existsSync(ds)) return ds;
  mkdirSync(join(ds, 'qrels'), { recursive: true });
  writeFileSync(
    join(ds, 'corpus.jsonl'),
    '\ufeff{"_id": "d1", "text": "apple banana"}\n{"_id": "d2", "text": "cherry"}\n{"_id": "d3" "text": "x"}\n{"_id": "d2", "text": "dup"}\n{"_id": "d4", "text": "apple pie"}\n',
  );
  writeFileSync(join(ds, 'queries.jsonl'), '{"_id": "q1", "text": "apple"}\nnot json\n');
  writeFileSync(join(ds, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\n');
  writeFileSync(join(ds, 'qrels', 'header-only.tsv'), 'query-id\tcorpus-id\tscore\n');
  writeFileSync(join(ds, 'qrels', 'empty.tsv'), '');
  return ds;
}

describe('irw run: bad corpus and queries lines are skipped, each reported, with the count', () => {
  it('BOM noted, bad lines named with file, line and column, the run written from the rest', () => {
    const out = join(dir, 'skip.trec');
    const r = irw('run', '--dataset', dataset(), '--out', out);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /corpus\.jsonl starts with a UTF-8 byte-order mark, which was ignored/);
    assert.match(r.stderr, /skipped .*corpus\.jsonl:3: not valid JSON at column 14: /);
    assert.match(r.stderr, /skipped .*corpus\.jsonl:4: duplicate id "d2" \(first on line 2\)/);
    assert.match(r.stderr, /skipped 2 bad lines of .*corpus\.jsonl/);
    assert.match(r.stderr, /skipped .*queries\.jsonl:2: not valid JSON/);
    assert.match(r.stderr, /skipped 1 bad line of .*queries\.jsonl/);
    assert.deepEqual(
      readFileSync(out, 'utf8')
        .trim()
        .split('\n')
        .map((l) => l.split(' ')[2]),
      ['d1', 'd4'],
    );
  });
});

describe('irw run: what cannot work is refused up front, saying what to do (exit 1)', () => {
  const cases: [string, () => string[], RegExp][] = [
    ['a missing dataset folder is named as a folder', () => ['--dataset', join(dir, 'nope')], /nope: dataset folder does not exist/],
    ['a folder of datasets lists them', () => ['--dataset', datasetsFolder()], /holds datasets \(nfcorpus, scifact\)[\s\S]*--dataset .*nfcorpus/],
    ['an unknown split lists the splits there are', () => ['--dataset', dataset(), '--split', 'dev'], /no split 'dev'[\s\S]*Splits there are: empty, header-only, test/],
    ['a header-only qrels', () => ['--dataset', dataset(), '--split', 'header-only'], /no judgement in this qrels file/],
    ['an empty qrels', () => ['--dataset', dataset(), '--split', 'empty'], /no judgement in this qrels file/],
  ];
  for (const [name, args, message] of cases) {
    it(name, () => {
      const out = join(dir, 'refused.trec');
      const r = irw('run', ...args(), '--out', out);
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stderr, message);
      assert.equal(existsSync(out), false);
    });
  }

  it('--out naming a folder: exit 1 before any work, nothing written into the folder', () => {
    const folder = join(dir, 'outdir');
    mkdirSync(folder, { recursive: true });
    const r = irw('run', '--dataset', dataset(), '--out', folder);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /outdir: this is a folder; the run needs a file name/);
    assert.doesNotMatch(r.stderr, /building the index/);
    assert.deepEqual(readdirSync(folder), []);
  });
});

describe('irw run / fuse: an option with no effect in the chosen mode is refused, saying why (exit 2)', () => {
  const cases: [string[], RegExp][] = [
    [['run', '--model', 'm'], /--model has no effect with --retriever bm25: only neural retrievers use a model/],
    [['run', '--retriever', 'dense', '--model', 'm', '--rm3'], /--rm3 has no effect with --retriever dense: RM3 expands BM25 queries/],
    [['run', '--retriever', 'dense', '--model', 'm', '--k1', '1'], /--k1 has no effect with --retriever dense/],
    [['run', '--retriever', 'rerank', '--model', 'm', '--first-stage', 'r', '--top-k', '5'], /--top-k has no effect with --retriever rerank/],
    [['run', '--retriever', 'hybrid', '--model', 'm', '--method', 'rrf', '--norm', 'sum'], /--norm has no effect with --method rrf/],
    [['run', '--retriever', 'hybrid', '--model', 'm', '--rrf-k', '10'], /--rrf-k has no effect with --method arithmetic/],
    [['run', '--norm', 'sum'], /--norm has no effect with --retriever bm25/],
    [['fuse', 'a', 'b', '--method', 'rrf', '--norm', 'l2'], /--norm has no effect with --method rrf/],
    [['fuse', 'a', 'b', '--rrf-k', '10'], /--rrf-k has no effect with --method arithmetic/],
  ];
  for (const [args, message] of cases) {
    it(args.join(' '), () => {
      const full = args[0] === 'run' ? [...args, '--dataset', dataset(), '--out', join(dir, 'x.trec')] : [...args, '--out', join(dir, 'x.trec')];
      const r = irw(...full);
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, message);
    });
  }

  it('the run help lists each option once (as the one table of options does)', () => {
    // An option with a value written out (--retriever dense) is a line of its own.
    const options = irw('run', '--help').stdout.split('\n').flatMap((l) => /^ {2}(--[\w-]+(?: [a-z][\w|]*)?)/.exec(l)?.[1] ?? []);
    assert.ok(options.includes('--top-k') && options.includes('--cache') && options.includes('--retriever dense'), options.join(' '));
    assert.deepEqual(options.filter((o, i) => options.indexOf(o) !== i), []);
  });

  it('the fuse help says rrf refuses --norm (as the CLI does)', () => {
    const r = irw('fuse', '--help');
    assert.doesNotMatch(r.stdout, /ignores --norm/);
    assert.match(r.stdout, /refuses --norm/);
  });

  it('irw run --tag names the run, like irw fuse', () => {
    const out = join(dir, 'tagged.trec');
    const r = irw('run', '--dataset', dataset(), '--out', out, '--tag', 'my-run');
    assert.equal(r.status, 0, r.stderr);
    assert.match(readFileSync(out, 'utf8'), / my-run\n$/);
    assert.equal(irw('run', '--dataset', dataset(), '--out', out, '--tag', 'two words').status, 2);
  });
});

describe('irw run --threads N (BM25)', () => {
  // The runs of 1, 2 and 3 threads on real data are compared in test/unit/core/retrieval/bm25/parallelSearch.test.ts.
  it('is taken by the BM25 retriever (the same run with 1 and 2); 0 or a fraction is refused (exit 2)', () => {
    const runs = ['1', '2'].map((t) => {
      const out = join(dir, `threads-${t}.trec`);
      const r = irw('run', '--dataset', dataset(), '--out', out, '--threads', t);
      assert.equal(r.status, 0, r.stderr);
      return readFileSync(out, 'utf8');
    });
    assert.match(runs[0], /^q1 Q0 d1 1 /);
    assert.equal(runs[1], runs[0]);
    for (const bad of ['0', '1.5', 'x']) {
      const r = irw('run', '--dataset', dataset(), '--out', join(dir, 'x.trec'), '--threads', bad);
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, /threads/);
    }
  });
});

describe('irw run: signals', () => {
  it('SIGINT before the run has started its work exits 3 like one during it, and writes nothing', () => {
    const out = join(dir, 'early.trec');
    // The CLI's modules are loaded, the signal comes, then the command starts (as when Ctrl-C lands during start-up).
    const script = `const m = require(${JSON.stringify(MAIN)}); process.kill(process.pid, 'SIGINT'); const t = Date.now(); while (Date.now() - t < 200);
      m.main(['run', '--dataset', ${JSON.stringify(dataset())}, '--out', ${JSON.stringify(out)}]).then((c) => { process.exitCode = c; });`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(r.signal, null, 'killed by the signal instead of exiting 3');
    assert.equal(r.status, 3, r.stderr);
    assert.match(r.stderr, /cancelled; no run file written/);
    assert.equal(existsSync(out), false);
  });
});

describe('irw run: gzip corpora', () => {
  it('a dataset with corpus.jsonl.gz and queries.jsonl.gz gives the run its plain files give', () => {
    const plain = dataset();
    const gz = join(dir, 'ds-gz');
    mkdirSync(join(gz, 'qrels'), { recursive: true });
    for (const f of ['corpus.jsonl', 'queries.jsonl']) writeFileSync(join(gz, `${f}.gz`), gzipSync(readFileSync(join(plain, f))));
    writeFileSync(join(gz, 'qrels', 'test.tsv'), readFileSync(join(plain, 'qrels', 'test.tsv')));
    const a = irw('run', '--dataset', plain, '--out', join(dir, 'plain.trec'));
    const b = irw('run', '--dataset', gz, '--out', join(dir, 'gz.trec'));
    assert.equal(b.status, 0, b.stderr);
    assert.equal(a.status, 0, a.stderr);
    assert.equal(readFileSync(join(dir, 'gz.trec'), 'utf8'), readFileSync(join(dir, 'plain.trec'), 'utf8'));
  });
});

describe('irw run --queries FILE: any queries, not only those judged in a split', () => {
  it('TSV queries are run as given; --split with --queries is refused', () => {
    const q = join(dir, 'my-queries.tsv');
    writeFileSync(q, 'x1\tcherry\nx2\tapple\n');
    const out = join(dir, 'q.trec');
    const r = irw('run', '--dataset', dataset(), '--queries', q, '--out', out);
    assert.equal(r.status, 0, r.stderr);
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => l.split(' ').slice(0, 3).join(' '));
    assert.deepEqual(lines, ['x1 Q0 d2', 'x2 Q0 d1', 'x2 Q0 d4']);
    assert.equal(irw('run', '--dataset', dataset(), '--queries', q, '--split', 'test', '--out', out).status, 2);
  });
});
