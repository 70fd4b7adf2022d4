/* global MutationObserver, requestAnimationFrame, performance -- these functions run inside a webview's page */
// What a webview showed and when, timed inside its page (so the driver's polling adds nothing): the time of
// the frame drawn after each change of body[data-qrels-version] (the judgements a view shows) and of
// body[data-pair] (the pair the Judge sidebar shows), and the time stamp of each keydown. Times are epoch
// milliseconds (performance.timeOrigin + …), comparable across the workbench's frames.

/** Starts recording in `frame` (a playwright Frame, Workbench.webviewFrame). */
export async function recordShown(frame) {
  await frame.evaluate(() => {
    const w = window;
    const now = () => performance.timeOrigin + performance.now();
    const seen = { version: document.body.dataset.qrelsVersion, pair: document.body.dataset.pair };
    // What is on screen already counts from now (it was drawn before).
    w.__irwShown = {
      versions: seen.version === undefined ? [] : [{ version: Number(seen.version), t: now() }],
      pairs: seen.pair ? [{ pair: seen.pair, t: now() }] : [],
      keys: [],
      // Host events the page received (models, states): how many updates a judgement costs a view.
      events: 0,
      // Each host event's time: queued for the page (the event's time stamp) and handled (after the page's handler).
      messages: [],
    };
    // Waiters (until()) woken after each record: the driver waits inside the page instead of polling it.
    w.__irwWake = [];
    const wake = () => { for (const f of w.__irwWake.splice(0)) f(); };
    window.addEventListener('message', (e) => {
      if (!e.data || (e.data.type !== 'event' && e.data.type !== 'patch')) return;
      w.__irwShown.events++;
      w.__irwShown.messages.push({ queued: performance.timeOrigin + e.timeStamp, handled: now() });
    });
    new MutationObserver(() => {
      // Recorded when the frame showing it is drawn, as it is then (a value replaced before was never shown).
      requestAnimationFrame(() => {
        const t = now();
        const version = document.body.dataset.qrelsVersion;
        const pair = document.body.dataset.pair;
        if (version !== seen.version) w.__irwShown.versions.push({ version: Number(version), t });
        // A pair is shown when it is drawn; the note that the next one is coming is not one.
        if (pair !== seen.pair && pair) w.__irwShown.pairs.push({ pair, t });
        seen.version = version;
        seen.pair = pair;
        wake();
      });
    }).observe(document.body, { attributes: true, attributeFilter: ['data-qrels-version', 'data-pair'] });
    document.addEventListener('keydown', (e) => {
      w.__irwShown.keys.push({ key: e.key, t: performance.timeOrigin + e.timeStamp });
      wake();
    }, true);
  });
}

/**
 * What `frame` recorded so far: { versions: [{version, t}], pairs: [{pair, t}], keys: [{key, t}], events }, with the
 * qrels version and pair it shows now.
 */
export function shown(frame) {
  return frame.evaluate(() => ({ ...window.__irwShown, version: Number(document.body.dataset.qrelsVersion), pair: document.body.dataset.pair }));
}

/**
 * Resolves with the first record of `frame` that `what` names, once the page has it: 'key' the keydown number
 * `arg.key`; 'pair' a pair other than `arg.not` drawn at or after that keydown; 'version' a qrels version of at
 * least `arg.version` (the page's own keys are not needed: any page may show it). Set up before the key is
 * pressed, the wait is inside the page: a timed judgement carries no polling of the driver's (each poll was work
 * on the renderer's main thread, the one being timed: ~14 DevTools commands a judgement, ~40 ms of its CPU).
 */
export async function until(frame, what, arg, timeout = 60_000) {
  let timer;
  const timedOut = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeout / 1000} s waiting in the page for ${what} ${JSON.stringify(arg)}`)), timeout);
  });
  const found = frame.evaluate(([what, arg]) => new Promise((resolve) => {
    const w = window;
    const find = () => {
      if (what === 'version') return w.__irwShown.versions.find((x) => x.version >= arg.version);
      const key = w.__irwShown.keys[arg.key];
      return what === 'key' || !key ? key : w.__irwShown.pairs.find((x) => x.t >= key.t && x.pair !== arg.not);
    };
    const check = () => {
      const v = find();
      if (v) resolve(v);
      else w.__irwWake.push(check);
    };
    check();
  }), [what, arg]);
  try {
    return await Promise.race([found, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
