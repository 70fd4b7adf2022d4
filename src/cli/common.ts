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

export interface Command {
  summary: string;
  /** Stops cleanly on `signal` (SIGINT/SIGTERM); a command without it exits at once on a signal. */
  cancellable?: boolean;
  run(argv: string[], signal: AbortSignal): Promise<number>;
}
