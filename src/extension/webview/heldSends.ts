/**
 * Sends to webviews held while one change of a split goes to every view of it, then made in one turn. The
 * extension host's writer takes what is posted in one turn to the workbench as one message, and the
 * workbench's one renderer thread reads each message apart (in code-server a websocket frame and a blob read, a
 * few ms each, on the thread that also draws every view), so the views' models after a judgement cost it one
 * read instead of one each.
 */
export class HeldSends {
  private holds = 0;
  private readonly queued: (() => void)[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Held for maxMs since the first hold: overlapping holds (a judgement a key, an engine answering slowly) go on now. */
  private expired = false;

  /** @param maxMs the longest a send waits, however the holds overlap. */
  constructor(private readonly maxMs: number) {}

  /** Holds every send until the returned release is called (once counts; the sends go with the last release). */
  hold(): () => void {
    if (this.holds++ === 0) {
      this.expired = false;
      this.timer = setTimeout(() => {
        this.expired = true;
        this.flush();
      }, this.maxMs);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.holds > 0) return;
      clearTimeout(this.timer);
      this.flush();
    };
  }

  /** Sends now, or once every hold is released (at most maxMs after the first), in the order asked. */
  send(post: () => void): void {
    if (this.holds > 0 && !this.expired) this.queued.push(post);
    else post();
  }

  private flush(): void {
    for (const post of this.queued.splice(0)) post();
  }
}

/**
 * Refreshes every view of a change with their sends held, so their new models go in one turn; resolved once
 * they are sent (a view that takes long holds the others back no longer than the held period's bound).
 */
export async function refreshTogether(held: HeldSends, refreshes: readonly (() => Promise<void>)[]): Promise<void> {
  const release = held.hold();
  await Promise.allSettled(refreshes.map((refresh) => refresh()));
  release();
}
