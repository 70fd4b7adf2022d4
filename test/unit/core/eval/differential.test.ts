import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { evaluate, formatTrecEval } from '../../../../src/core/eval';
import { encodeId } from '../../../../src/core/formats/idTable';
import { readZScores, type ZScores } from '../../../../src/core/eval/zscores';
import { readPrefs, readQrelsPrefs, type PrefsQrels } from '../../../../src/core/eval/prefs';
import { readQrels, readQrelsJg } from '../../../../src/core/formats/qrels';
import { readRun } from '../../../../src/core/formats/run';
import { generateCase } from './differential/generate';
import { expectedFile, expectedOf, prefsUndefined, suite, withFiles, type Expected } from './differential/spec';

/** trec_eval's options as evaluate() options. */
function optionsOf(opts: readonly string[]) {
  const o: {
    complete?: boolean; relevanceLevel?: number; maxRetrieved?: number; numDocsInColl?: number; judgedOnly?: boolean; summary?: boolean;
    zscores?: ZScores; relInfo?: string;
  } = {};
  for (let i = 0; i < opts.length; i++) {
    if (opts[i] === '-c') o.complete = true;
    else if (opts[i] === '-l') o.relevanceLevel = Number(opts[++i]);
    else if (opts[i] === '-M') o.maxRetrieved = Number(opts[++i]);
    else if (opts[i] === '-N') o.numDocsInColl = Number(opts[++i]);
    else if (opts[i] === '-J') o.judgedOnly = true;
    else if (opts[i] === '-n') o.summary = false;
    else if (opts[i] === '-Z') o.zscores = readZScores(opts[++i]);
    else if (opts[i] === '-R') o.relInfo = opts[++i];
    else throw new Error(`option ${opts[i]} not mapped`);
  }
  return o;
}

// Three small files are written for each of ~10,000 cases: in memory (/dev/shm) where there is one, which took
// a quarter off this file's time against the disk's temporary folder (opening files there cost ~6 s).
const dir = (() => {
  try {
    return mkdtempSync(join('/dev/shm', 'irw-diff-'));
  } catch {
    return mkdtempSync(join(tmpdir(), 'irw-diff-')); // none, or not writable here
  }
})();
after(() => rmSync(dir, { recursive: true, force: true }));

for (const name of [9, 10, 'jg', 'prefs', 'prefsfile'] as const) {
  const s = suite(name);
  const version = s.version;
  describe(`differential test against trec_eval ${version === 9 ? '9.0.8' : '10.0'}${name === 'jg' ? ', -R qrels_jg' : name === 'prefs' ? ', -R qrels_prefs' : name === 'prefsfile' ? ', -R prefs' : ''} (recorded outputs, differential/record.ts)`, () => {
    const recorded = JSON.parse(gunzipSync(readFileSync(expectedFile(name))).toString()) as {
      measures: string[];
      optionSets: string[][];
      cases: (Expected | { error: string })[][];
    };

    it('was recorded with the generator, measures and option sets of today', () => {
      assert.deepEqual(recorded.measures, s.measures, 'the measures changed: re-record (record.ts)');
      assert.deepEqual(recorded.optionSets, s.optionSets);
      assert.equal(recorded.cases.length, s.cases);
    });

    it(`agrees on every case x option set, byte for byte (-q output of ${s.measures.length} measure arguments)`, () => {
      const qrelsPath = join(dir, `qrels${name}`);
      const runPath = join(dir, `run${name}`);
      const zscoresPath = join(dir, `zscores${name}`);
      const failures: string[] = [];
      let compared = 0;
      let trecEvalFailed = 0;
      let undefinedInTrecEval = 0;
      for (let seed = 0; seed < s.cases; seed++) {
        const c = generateCase(seed);
        writeFileSync(qrelsPath, name === 'prefsfile' ? c.prefs : c.qrels);
        writeFileSync(runPath, c.run);
        writeFileSync(zscoresPath, c.zscores);
        const qrels = name === 'jg' ? readQrelsJg(qrelsPath) : name === 'prefs' ? readQrelsPrefs(qrelsPath) : name === 'prefsfile' ? readPrefs(qrelsPath) : readQrels(qrelsPath);
        const run = readRun(runPath, { precision: version === 10 ? 'double' : 'float32' });
        s.optionSets.forEach((opts, k) => {
          const want = recorded.cases[seed][k];
          const shared = qrels.queryIds().some((q) => run.queryIndex(q) >= 0);
          if ((name === 'prefs' || name === 'prefsfile') && prefsUndefined(qrels as PrefsQrels)) {
            undefinedInTrecEval++;
            return;
          }
          compared++;
          if ('error' in want && want.error.includes('No queries with both results and relevance info')) {
            // trec_eval refuses qrels and a run that share no query; so does irw (the CLI, on no shared query).
            if (shared) failures.push(`case ${seed} [${opts.join(' ')}]: trec_eval refused, irw has a shared query`);
            return;
          }
          const { summary, relInfo: _, ...options } = optionsOf(withFiles(opts, zscoresPath));
          const result = evaluate(qrels, run, { measures: s.measures, firstParamsWin: true, trecEval: version, ...options });
          if ('error' in want) {
            // trec_eval 10.0 stops at a qrels query missing from the run without -c (exit 4): irw answers (README).
            assert.match(want.error, /result qid '.*' not found in qrels/);
            trecEvalFailed++;
            return;
          }
          const got = expectedOf(encodeId(formatTrecEval(result, true, summary)));
          if (got.digest !== want.digest) {
            failures.push(`case ${seed} [${opts.join(' ')}]: output differs${got.summary !== want.summary ? `\n  want summary ${want.summary}\n  got  summary ${got.summary}` : ' (per-query lines)'}`);
          }
        });
      }
      assert.ok(compared + undefinedInTrecEval >= s.cases * s.optionSets.length);
      assert.ok(undefinedInTrecEval < compared / 20, `${undefinedInTrecEval} cases skipped where trec_eval reads memory it never wrote`);
      assert.ok(trecEvalFailed < compared / 2, `trec_eval failed on ${trecEvalFailed} of ${compared}`);
      assert.deepEqual(failures.slice(0, 3), [], `${failures.length} of ${compared} comparisons differ`);
    });
  });
}
