// `irw`: loads the command line's bundle (dist/irw.js, from main.ts) with a V8 code cache and runs it; `irw eval`
// loads dist/irw-eval.js, the same main.ts with only that command (see esbuild.mjs), as its start is what users wait for.
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { requireWithCodeCache } from './codeCache';
import type * as Irw from './main';

const command = process.argv[2] ?? 'help';
// A cold `irw compare` spent about a third of its CPU time in V8's optimizing compiler on background threads
// (some 200 optimizations of the table's code, each inlining deep chains of calls); smaller inlining budgets
// make each cheaper, and the table as a whole measured 7-13 % less CPU (docs/benchmarks.md). Set before the
// bundle is compiled, so its code cache is made and read under the same flags.
if (command === 'compare') setFlagsFromString('--max-inlined-bytecode-size=100 --max-inlined-bytecode-size-cumulative=300');
const bundle = join(__dirname, command === 'eval' ? 'irw-eval.js' : 'irw.js');
const load = () => requireWithCodeCache(bundle, command) as typeof Irw;
const serve = process.env.IRW_RESIDENT_SERVE;
if (serve) {
  // The resident `irw eval` (`cli.js eval`), started by a call with IRW_RESIDENT=1.
  load().serveResident(serve);
} else if (command === 'eval' && process.env.IRW_RESIDENT === '1') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- required only here: node:net and child processes cost every other call's start
  const { evalViaResident } = require('./resident/client') as typeof import('./resident/client');
  void evalViaResident(bundle, __filename, process.argv.slice(2)).then((answered) => answered || load().start(process.argv.slice(2)));
} else {
  load().start(process.argv.slice(2));
}
