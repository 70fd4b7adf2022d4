/**
 * Ctrl-C (SIGINT) and SIGTERM for the whole life of `irw`, from the first module main.ts loads: a signal that
 * comes before a command has started its work is remembered and ends it as one during the work does (exit 3,
 * nothing written), rather than killing the process outright.
 *
 * A command that does not cancel (see Command.cancellable) gives the signals back to Node's default
 * (immediate exit) with release(); a signal already received then exits 3 at once.
 *
 * A closed pipe (`irw eval -q ... | head -1`) ends `irw` quietly, as SIGPIPE ends a Unix tool, with its exit code
 * 141 (128 + SIGPIPE): a command that cancels is cancelled first (it removes its partial output), one that does
 * not exits at once. Without this, Node reports the write's EPIPE as an uncaught error with a stack trace.
 */
const controller = new AbortController();
const onSignal = (): void => controller.abort();
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

/** The exit code of a process whose output pipe was closed (128 + SIGPIPE). */
export const EXIT_CLOSED_PIPE = 141;
let pipeClosed = false;
let released = false;
const onOutputError = (e: NodeJS.ErrnoException): void => {
  if (e.code !== 'EPIPE') throw e;
  pipeClosed = true;
  if (released) process.exit(EXIT_CLOSED_PIPE);
  controller.abort();
};
process.stdout.on('error', onOutputError);
process.stderr.on('error', onOutputError);

/** Aborted by the first SIGINT or SIGTERM, or by a closed output pipe. */
export const cancelSignal: AbortSignal = controller.signal;

/** Whether standard output or error was a pipe that its reader closed. */
export const outputClosed = (): boolean => pipeClosed;

/** Hands the signals back to Node's default handling. Returns whether one has already come. */
export function releaseSignals(): boolean {
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  released = true;
  return controller.signal.aborted;
}
