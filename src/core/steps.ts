/**
 * Runs a computation written in steps (a generator that yields between slices, so the engine can answer
 * requests meanwhile) to its end at once, for a caller with nothing else to do, and returns its result.
 */
export function runSteps<T>(steps: Iterator<void, T, undefined>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}
