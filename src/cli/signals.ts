/**
 * Ctrl-C (SIGINT) and SIGTERM for the whole life of `irw`, from the first module main.ts loads: a signal that
 * comes before a command has started its work is remembered and ends it as one during the work does (exit 3,
 * nothing written), rather than killing the process outright.
 *
 * A command that does not cancel (see Command.cancellable) gives the signals back to Node's default
 * (immediate exit) with release(); a signal already received then exits 3 at once.
 */
const controller = new AbortController();
const onSignal = (): void => controller.abort();
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

/** Aborted by the first SIGINT or SIGTERM. */
export const cancelSignal: AbortSignal = controller.signal;

/** Hands the signals back to Node's default handling. Returns whether one has already come. */
export function releaseSignals(): boolean {
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  return controller.signal.aborted;
}
