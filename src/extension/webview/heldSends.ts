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

  /** Holds every send until the returned release is called (once counts; the sends go with the last release). */
  hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.holds === 0) for (const post of this.queued.splice(0)) post();
    };
  }

  /** Sends now, or once every hold is released, in the order asked. */
  send(post: () => void): void {
    if (this.holds > 0) this.queued.push(post);
    else post();
  }
}
