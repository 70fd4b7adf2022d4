/**
 * Runs `steps` to the end in slices of at most `sliceMs`, each only once `quietFor()` (ms still to hold back,
 * ≤ 0 when none) says the requests have stopped; the event loop turns between slices, so a request waits for
 * one slice at most. No step runs before the call returns: the request that starts the work is answered first.
 * Resolves to the computing time (ms) the steps took.
 */
export async function runInSlices(steps: Iterator<void>, sliceMs: number, quietFor: () => number): Promise<number> {
  let computing = 0;
  for (let done = false; !done; ) {
    for (let wait = 0; ; ) {
      await new Promise((r) => (wait > 0 ? setTimeout(r, wait) : setImmediate(r)));
      wait = quietFor();
      if (wait <= 0) break;
    }
    const start = performance.now();
    const until = start + sliceMs;
    while (!(done = steps.next().done === true) && performance.now() < until);
    computing += performance.now() - start;
  }
  return computing;
}
