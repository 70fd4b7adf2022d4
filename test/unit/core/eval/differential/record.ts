/**
 * Records trec_eval's answers for the differential test (differential.test.ts): runs a trec_eval binary you
 * built yourself over every generated case and option set, and writes what it printed (restricted to the
 * measures irw implements) as data. Not run by the tests; run it after changing the generator or adding a
 * measure:
 *
 *   TREC_EVAL=/path/to/trec_eval-9.0.8/trec_eval node --import tsx test/unit/core/eval/differential/record.ts 9
 *   TREC_EVAL=/path/to/trec_eval-10.0/trec_eval  node --import tsx test/unit/core/eval/differential/record.ts 10
 *   TREC_EVAL=/path/to/trec_eval-9.0.8/trec_eval node --import tsx test/unit/core/eval/differential/record.ts jg
 *   TREC_EVAL=/path/to/trec_eval-9.0.8/trec_eval node --import tsx test/unit/core/eval/differential/record.ts prefs
 *   TREC_EVAL=/path/to/trec_eval-9.0.8/trec_eval node --import tsx test/unit/core/eval/differential/record.ts prefsfile
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { generateCase } from './generate';
import { expectedFile, expectedOf, restrict, suite, withFiles, type Expected, type SuiteName } from './spec';

const arg = process.argv[2];
const name = (arg === 'jg' || arg === 'prefs' || arg === 'prefsfile' ? arg : Number(arg)) as SuiteName;
const bin = process.env.TREC_EVAL;
if (!bin || ![9, 10, 'jg', 'prefs', 'prefsfile'].includes(name)) throw new Error('usage: TREC_EVAL=path record.ts 9|10|jg|prefs|prefsfile');
const s = suite(name);
const dir = mkdtempSync(join(tmpdir(), 'irw-diff-'));
const qrelsPath = join(dir, 'qrels');
const runPath = join(dir, 'run');
const zscoresPath = join(dir, 'zscores');
const out: (Expected | { error: string })[][] = [];
for (let seed = 0; seed < s.cases; seed++) {
  const c = generateCase(seed);
  writeFileSync(qrelsPath, name === 'prefsfile' ? c.prefs : c.qrels);
  writeFileSync(runPath, c.run);
  writeFileSync(zscoresPath, c.zscores);
  out.push(
    s.optionSets.map((opts) => {
      const args = ['-q', ...withFiles(opts, zscoresPath), ...s.measures.flatMap((m) => ['-m', m]), qrelsPath, runPath];
      const r = spawnSync(bin, args, { maxBuffer: 1 << 28 });
      // Where trec_eval fails, what it said is the expected answer (the test decides what irw must do then).
      if (r.status !== 0) return { error: r.stderr.toString().trim().split('\n')[0] };
      return expectedOf(restrict(r.stdout, s.families));
    }),
  );
}
writeFileSync(expectedFile(name), gzipSync(JSON.stringify({ measures: s.measures, optionSets: s.optionSets, cases: out })));
console.log(`${s.cases} cases x ${s.optionSets.length} option sets recorded in ${expectedFile(name)}`);
