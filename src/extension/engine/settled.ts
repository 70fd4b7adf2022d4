/**
 * Calls `work` once calls to schedule() have stopped for `quietMs`, and at the latest `maxWaitMs` after the first
 * of them: a burst of events, one run.
 */
export function settled(work: () => unknown, quietMs: number, maxWaitMs: number): { schedule(): void; dispose(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let first = 0;
  const run = () => {
    timer = undefined;
    void work();
  };
  return {
    schedule() {
      const now = Date.now();
      if (timer === undefined) first = now;
      else clearTimeout(timer);
      timer = setTimeout(run, Math.max(0, Math.min(quietMs, first + maxWaitMs - now)));
    },
    dispose() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
