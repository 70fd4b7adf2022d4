// `irw`: loads the command line's bundle (dist/irw.js, from main.ts) with a V8 code cache and runs it; `irw eval`
// loads dist/irw-eval.js, the same main.ts with only that command (see esbuild.mjs), as its start is what users wait for.
import { join } from 'node:path';
import { requireWithCodeCache } from './codeCache';
import type * as Irw from './main';

const command = process.argv[2] ?? 'help';
const irw = requireWithCodeCache(join(__dirname, command === 'eval' ? 'irw-eval.js' : 'irw.js'), command) as typeof Irw;
irw.start(process.argv.slice(2));
