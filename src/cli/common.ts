import { parseArgs, type ParseArgsConfig } from 'node:util';
import { didYouMean } from '../core/nearest';

/** Shared pieces of the `irw` subcommands: exit codes, usage errors, the command shape. */
export const EXIT = {
  ok: 0,
  input: 1,
  usage: 2,
  cancelled: 3,
  internal: 4,
  /** `irw compare --fail-if-worse`: a run is significantly worse than the baseline (a regression gate). */
  worse: 5,
} as const;

export class UsageError extends Error {}

/**
 * node:util's parseArgs for a subcommand: an unknown or malformed option is a usage error (exit 2), an unknown
 * one with the nearest option the command has.
 */
export function parseCommandArgs<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (e) {
    // Node's own text for an unknown option explains '--' for positionals: say only what is wrong, and what was meant.
    const unknown = (e as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'(-[^']*)'/.exec((e as Error).message)?.[1] : undefined;
    if (unknown === undefined) throw new UsageError((e as Error).message);
    const known = Object.entries(config.options ?? {}).flatMap(([long, o]) => [`--${long}`, ...(o.short ? [`-${o.short}`] : [])]);
    throw new UsageError(`unknown option '${unknown}'${didYouMean(unknown, known)}`);
  }
}

export interface Command {
  /** Stops cleanly on `signal` (SIGINT/SIGTERM); a command without it exits at once on a signal. */
  cancellable?: boolean;
  run(argv: string[], signal: AbortSignal): Promise<number>;
}
