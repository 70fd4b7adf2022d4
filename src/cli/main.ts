// First: signals are caught from the moment the CLI starts (see signals.ts).
import { cancelSignal, EXIT_CLOSED_PIPE, outputClosed, releaseSignals } from './signals';
import { isInputError } from '../core/formats/errors';
import { product } from '../core/provenance/product';
import { EXIT, UsageError, type Command } from './common';
import { io } from './io';
import { didYouMean } from '../core/nearest';

/**
 * `irw` — IR Workbench on the command line. Each subcommand lives in its own module, loaded when it runs: the
 * bundle's modules are initialised on first use, so `irw run` does not set up the statistics libraries of
 * `irw compare` or the unzipper of `irw datasets` (~10 ms of a cold start; see the README's bench:bm25).
 */
/* eslint-disable @typescript-eslint/no-require-imports -- require() keeps each command's modules lazy in the bundle */
const COMMANDS: Record<string, { summary: string; load: () => Command }> = {
  eval: { summary: 'evaluate a TREC run against qrels, printing exactly what trec_eval prints', load: () => (require('./eval') as typeof import('./eval')).evalCommand },
  run: { summary: 'run BM25, dense, re-rank or hybrid retrieval over a BEIR dataset and write a TREC run', load: () => (require('./run') as typeof import('./run')).runCommand },
  fuse: { summary: 'fuse two or more runs (min-max, L2, z-score, ... x means, CombSUM/MNZ, RRF)', load: () => (require('./fuse') as typeof import('./fuse')).fuseCommand },
  datasets: {
    summary: "list BEIR's datasets, or download one (md5-checked, resumable) into the workspace layout",
    load: () => (require('./datasets') as typeof import('./datasets')).datasetsCommand,
  },
  tune: { summary: 'tune BM25 (k1, b, RM3) or a fusion on one measure, with k-fold cross-validation over queries', load: () => (require('./tune') as typeof import('./tune')).tuneCommand },
  explain: { summary: 'why a run ranks a document where it does: its score broken down (BM25 terms, fusion inputs, model)', load: () => (require('./explain') as typeof import('./explain')).explainCommand },
  compare: { summary: 'results table with significance tests, intervals and settled/open comparisons', load: () => (require('./compare') as typeof import('./compare')).compareCommand },
};
/* eslint-enable @typescript-eslint/no-require-imports */

const HELP = `irw — IR Workbench command line

usage: irw <command> [options]

commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(9)} ${c.summary}`)
  .join('\n')}

Run 'irw <command> --help' for a command's options.

exit codes:
  0  success
  1  bad input: a file is unreadable or malformed (the message names file, line and what to do)
  2  usage error: unknown command or option, missing argument
  3  the run was cancelled (SIGINT/SIGTERM); partial output is removed
  4  internal error (a bug: please report it with the message); never for a file or option you can fix
  5  irw compare --fail-if-worse: a run is significantly worse than the baseline
  141  the output was a pipe its reader closed (e.g. into head): stopped quietly, as SIGPIPE stops Unix tools
`;

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  // Asked for, the help is the output (stdout, exit 0); `irw` alone is a usage error (stderr, exit 2).
  if (!name) {
    io.err(HELP);
    return EXIT.usage;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    io.out(HELP);
    return EXIT.ok;
  }
  if (name === '--version' || name === '-v') {
    io.out(`irw ${VERSION}\n`);
    return EXIT.ok;
  }
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!entry) {
    io.err(`irw: unknown command '${name}'${didYouMean(name, Object.keys(COMMANDS))}\nRun 'irw --help' for the commands.\n`);
    return EXIT.usage;
  }
  try {
    const command = entry.load();
    if (!command.cancellable && releaseSignals()) return EXIT.cancelled;
    return await command.run(rest, cancelSignal);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`irw ${name}: ${e.message}\nRun 'irw ${name} --help' for usage.\n`);
      return EXIT.usage;
    }
    if (isInputError(e)) {
      io.err(`irw ${name}: ${e.format()}\n`);
      return EXIT.input;
    }
    io.err(`irw ${name}: internal error: ${(e as Error).stack ?? String(e)}\n`);
    return EXIT.internal;
  }
}

const VERSION = product().version;

/** Serves `irw eval` calls on `socket` until idle (IRW_RESIDENT=1: see resident/server.ts). */
export function serveResident(socket: string): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only in the resident process: node:net costs every other call's start
  (require('./resident/server') as typeof import('./resident/server')).serveResident(socket, main);
}

/** Runs `irw` with these arguments and sets the process's exit code. */
export function start(argv: string[]): void {
  main(argv).then(
    (code) => {
      if (outputClosed()) process.exit(EXIT_CLOSED_PIPE);
      process.exitCode = code;
      // The command is done: exit now rather than let Node tear down its heap (~25 ms after a cold SciFact run),
      // unless output is still queued (an asynchronous pipe), which a natural exit lets drain.
      if (process.stdout.writableLength === 0 && process.stderr.writableLength === 0) process.exit();
    },
    (e) => {
      process.stderr.write(`irw: internal error: ${String(e)}\n`);
      process.exitCode = EXIT.internal;
    },
  );
}

if (require.main === module) start(process.argv.slice(2));
