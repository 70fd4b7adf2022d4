// First: signals are caught from the moment the CLI starts (see signals.ts).
import { cancelSignal, releaseSignals } from './signals';
import { isInputError } from '../core/formats/errors';
import { EXIT, UsageError, type Command } from './common';
import { datasetsCommand } from './datasets';
import { compareCommand } from './compare';
import { evalCommand } from './eval';
import { fuseCommand } from './fuse';
import { runCommand } from './run';

/** `irw` — IR Workbench on the command line. Each subcommand lives in its own module. */
const COMMANDS: Record<string, Command> = {
  eval: evalCommand,
  run: runCommand,
  fuse: fuseCommand,
  datasets: datasetsCommand,
  compare: compareCommand,
};

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
`;

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(HELP);
    return name ? EXIT.ok : EXIT.usage;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(`irw ${VERSION}\n`);
    return EXIT.ok;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`irw: unknown command '${name}'\n\n${HELP}`);
    return EXIT.usage;
  }
  if (!command.cancellable && releaseSignals()) return EXIT.cancelled;
  try {
    return await command.run(rest, cancelSignal);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`irw ${name}: ${e.message}\nRun 'irw ${name} --help' for usage.\n`);
      return EXIT.usage;
    }
    if (isInputError(e)) {
      process.stderr.write(`irw ${name}: ${e.format()}\n`);
      return EXIT.input;
    }
    process.stderr.write(`irw ${name}: internal error: ${(e as Error).stack ?? String(e)}\n`);
    return EXIT.internal;
  }
}

declare const IRW_VERSION: string | undefined;
const VERSION = typeof IRW_VERSION === 'string' ? IRW_VERSION : 'dev';

/** Runs `irw` with these arguments and sets the process's exit code. */
export function start(argv: string[]): void {
  main(argv).then(
    (code) => {
      process.exitCode = code;
    },
    (e) => {
      process.stderr.write(`irw: internal error: ${String(e)}\n`);
      process.exitCode = EXIT.internal;
    },
  );
}

if (require.main === module) start(process.argv.slice(2));
