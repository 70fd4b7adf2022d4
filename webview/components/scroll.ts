/**
 * A scroll position kept across a window reload (VS Code's view state, which the page saves itself). After a
 * reload the page is short at first (tables, tests and plots arrive in later models and frames), so the saved
 * position is tried each time the content grows (a ResizeObserver) until it is reached or the person scrolls;
 * meanwhile the clamped position is not saved over it.
 */
export interface KeptScroll {
  /** The position to save: the one still being restored, else where the box is scrolled to. */
  top(): number;
}

/**
 * Keeps `box`'s scroll (the page: window) starting from `saved` (a number > 0 from the view state, else
 * nothing to restore); `save` is called, once a frame at most, as the person scrolls.
 */
export function keepScroll(box: HTMLElement | Window, saved: unknown, save: () => void): KeptScroll {
  const page = box === window;
  const now = () => (page ? window.scrollY : (box as HTMLElement).scrollTop);
  const go = (y: number) => (page ? window.scrollTo(0, y) : ((box as HTMLElement).scrollTop = y));
  let restoring = typeof saved === 'number' && saved > 0 ? saved : undefined;
  // What grows: the page's body, or a box's children (its own size is fixed: it scrolls), those added later too.
  const growing = new ResizeObserver(() => {
    if (restoring !== undefined) go(restoring);
    if (restoring === undefined || Math.abs(now() - restoring) < 1) stop();
  });
  const added = new MutationObserver(() => {
    for (const c of (box as HTMLElement).children) growing.observe(c);
  });
  function stop(): void {
    restoring = undefined;
    growing.disconnect();
    added.disconnect();
  }
  if (restoring !== undefined) {
    if (page) growing.observe(document.body);
    else {
      for (const c of (box as HTMLElement).children) growing.observe(c);
      added.observe(box as HTMLElement, { childList: true });
    }
  }
  for (const by of ['wheel', 'keydown', 'mousedown', 'touchstart']) window.addEventListener(by, stop, { passive: true });
  let frame = 0;
  box.addEventListener('scroll', () => {
    if (restoring !== undefined) return;
    cancelAnimationFrame(frame);
    frame = requestAnimationFrame(save);
  });
  return { top: () => restoring ?? now() };
}
