// `irw`: loads the command line's bundle (dist/irw.js, from main.ts) with a V8 code cache and runs it.
import { join } from 'node:path';
import { requireWithCodeCache } from './codeCache';
import type * as Irw from './main';

const irw = requireWithCodeCache(join(__dirname, 'irw.js'), process.argv[2] ?? 'help') as typeof Irw;
irw.start(process.argv.slice(2));
