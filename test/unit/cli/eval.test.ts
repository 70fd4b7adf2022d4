import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { evaluate } from '../../../src/core/eval';
import { readQrels } from '../../../src/core/formats/qrels';
import { readRun } from '../../../src/core/formats/run';
import { GOLDEN, needsShared, RUNS, requireBuiltCli } from '../support/paths';

const irw = (...args: string[]) => spawnSync(process.execPath, [requireBuiltCli(), 'eval', ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });

/** The measures shared/golden was produced with (its README). */
const GOLDEN_MEASURES = ['official', 'ndcg', 'ndcg_cut', 'map_cut', 'recall', 'success', 'set_P', 'set_recall', 'set_F', 'Rprec_mult', 'num_nonrel_judged_ret', 'infAP', 'ndcg_rel', 'Rndcg'];
const QRELS = join(GOLDEN, 'scifact', 'qrels.test.trec');
const NAMES = ['bm25okapi.knarfthekant', 'minilm-faiss.knarfthekant'];
const run = (name: string) => join(RUNS, 'scifact', `${name}.trec`);
/** trec_eval's output for one run, as irw eval prints it among several: its runid line first, naming the file. */
const block = (name: string, path: string) => {
  const lines = readFileSync(join(GOLDEN, 'scifact', `${name}.q.txt`), 'utf8').split(/(?<=\n)/);
  return [`runid                 \tall\t${path}\n`, ...lines.filter((l) => !l.startsWith('runid '))].join('');
};

describe('irw eval QRELS RUN RUN... (several runs, one qrels)', { skip: needsShared('runs', 'golden') }, () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'irw-eval-many-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("prints each run's trec_eval output (shared/golden) in turn, its runid line naming the file", () => {
    const r = irw('-q', ...GOLDEN_MEASURES.flatMap((m) => ['-m', m]), QRELS, ...NAMES.map(run));
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, NAMES.map((n) => block(n, run(n))).join(''));
  });

  it('a folder is its run files in name order; hidden files, .json sidecars and .md notes are not runs', () => {
    const folder = join(dir, 'runs');
    mkdirSync(folder);
    copyFileSync(run(NAMES[1]), join(folder, 'b.trec'));
    copyFileSync(run(NAMES[0]), join(folder, 'a.trec'));
    writeFileSync(join(folder, 'a.trec.json'), '{}');
    writeFileSync(join(folder, 'README.md'), '# runs\n');
    writeFileSync(join(folder, '.hidden'), 'x');
    mkdirSync(join(folder, 'sub'));
    const r = irw('-q', ...GOLDEN_MEASURES.flatMap((m) => ['-m', m]), QRELS, folder);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, block(NAMES[0], join(folder, 'a.trec')) + block(NAMES[1], join(folder, 'b.trec')));
  });

  it('--format csv is one long table (run, tag, query, measure, value) with every value evaluate() gives', () => {
    const r = irw('-q', '-m', 'ndcg_cut.10', '-m', 'map', '--format', 'csv', QRELS, ...NAMES.map(run));
    assert.equal(r.status, 0, r.stderr);
    const rows = r.stdout.split('\r\n');
    assert.equal(rows.shift(), 'run,tag,query,measure,value');
    assert.equal(rows.pop(), '');
    const qrels = readQrels(QRELS);
    let n = 0;
    for (const name of NAMES) {
      const result = evaluate(qrels, readRun(run(name)), { measures: ['ndcg_cut.10', 'map'] });
      for (const [c, col] of result.columns.entries()) {
        result.queries.forEach((q, qi) => {
          assert.ok(rows.includes(`"${run(name)}","${result.runId}","${q}","${col.name}",${result.values[qi * result.columns.length + c]}`), `${name} ${q} ${col.name}`);
          n++;
        });
        assert.ok(rows.includes(`"${run(name)}","${result.runId}","all","${col.name}",${result.summary[c]}`));
        n++;
      }
    }
    assert.equal(rows.length, n, 'nothing but those rows');
    for (const row of rows) assert.equal(row.split(',').length, 5, row);
  });

  it('--format json: an array of runs with their measures and, with -q, queries (also for one run)', () => {
    const r = irw('-q', '-m', 'P.5', '-m', 'num_q', '--format', 'json', QRELS, run(NAMES[0]));
    assert.equal(r.status, 0, r.stderr);
    const [entry, ...more] = JSON.parse(r.stdout) as { run: string; tag: string; measures: Record<string, number>; queries: Record<string, Record<string, number>> }[];
    assert.equal(more.length, 0);
    const result = evaluate(readQrels(QRELS), readRun(run(NAMES[0])), { measures: ['P.5'] });
    assert.equal(entry.run, run(NAMES[0]));
    assert.equal(entry.tag, 'rank_bm25_BM25Okapi');
    assert.deepEqual(entry.measures, { num_q: 300, P_5: result.summary[0] });
    assert.equal(Object.keys(entry.queries).length, 300);
    assert.equal(entry.queries['13'].P_5, result.values[result.queries.indexOf('13')]);
  });

  it('a bad run is reported naming its file and line, the good ones are still printed, and the exit code is 1', () => {
    const bad = join(dir, 'bad.trec');
    writeFileSync(bad, '1 Q0 d1 1 high tag\n');
    const elsewhere = join(dir, 'elsewhere.trec');
    writeFileSync(elsewhere, 'PLAIN-1 Q0 d1 1 2.5 tag\n');
    const r = irw('-m', 'P.5', QRELS, run(NAMES[0]), bad, elsewhere, run(NAMES[1]));
    assert.equal(r.status, 1);
    assert.match(r.stderr, new RegExp(`${bad}:1: score 'high'`));
    assert.match(r.stderr, new RegExp(`no query is in both ${QRELS} and ${elsewhere}`));
    assert.equal(r.stdout.match(/^runid/gm)?.length, 2);
    assert.ok(r.stdout.includes(`\t${run(NAMES[1])}\n`));
  });

  it('one run stays byte for byte what trec_eval prints (no runid line of ours)', () => {
    const r = irw('-q', ...GOLDEN_MEASURES.flatMap((m) => ['-m', m]), QRELS, run(NAMES[0]));
    assert.equal(r.stdout, readFileSync(join(GOLDEN, 'scifact', `${NAMES[0]}.q.txt`), 'utf8'));
  });
});

describe('irw eval on a terminal: escape sequences in file-derived text are shown, not obeyed', () => {
  let dir: string;
  let qrels: string;
  let hostile: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'irw-eval-tty-'));
    qrels = join(dir, 'q.txt');
    hostile = join(dir, 'r.txt');
    writeFileSync(qrels, 'q1 0 d1 1\n');
    // A tag that would retitle the terminal window (OSC 0).
    writeFileSync(hostile, 'q1 Q0 d1 1 2.5 a\x1b]0;pwned\x07b\nq1 Q0 d2 2 1.5 a\x1b]0;pwned\x07b\n');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('into a pipe or file: the bytes trec_eval prints (ESC and BEL as they are)', () => {
    const r = irw('-m', 'runid', '-m', 'P.1', qrels, hostile);
    assert.equal(r.stdout, 'runid                 \tall\ta\x1b]0;pwned\x07b\nP_1                   \tall\t1.0000\n');
  });

  it('on a terminal (a pseudo-terminal from script(1)): ESC and BEL as visible symbols', { skip: !existsSync('/usr/bin/script') && 'needs script(1) from util-linux' }, () => {
    const cmd = [process.execPath, requireBuiltCli(), 'eval', '-m', 'runid', '-m', 'P.1', qrels, hostile].map((a) => `'${a}'`).join(' ');
    const r = spawnSync('/usr/bin/script', ['-qec', cmd, '/dev/null'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.replace(/\r\n/g, '\n'), 'runid                 \tall\ta\u241b]0;pwned\u2407b\nP_1                   \tall\t1.0000\n');
  });
});
