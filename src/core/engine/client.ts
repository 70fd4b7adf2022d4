import { Worker } from 'node:worker_threads';
import type { HostMessage, RequestKind, SplitInfo, EngineRequests, WorkerConfig, WorkerMessage } from './protocol';
import { PROTOCOL_VERSION } from './protocol';

type Pending = {
  resolve(value: unknown): void;
  reject(e: Error): void;
  onProgress?: (message: string, fraction?: number) => void;
};

/** An error answered by the worker: the request failed, the worker is fine. */
export class EngineError extends Error {}

/** Restarts allowed within RESTART_WINDOW_MS before the engine is given up for (a crash at every start). */
const MAX_RESTARTS = 3;
const RESTART_WINDOW_MS = 60_000;

/** What onRestarted listeners hear: why the worker stopped, and whether a new one runs. */
export interface Restart {
  why: string;
  running: boolean;
}

type Listeners<T extends unknown[]> = ((...args: T) => void)[];

function listen<T extends unknown[]>(list: Listeners<T>, listener: (...args: T) => void): { dispose(): void } {
  list.push(listener);
  return { dispose: () => list.splice(list.indexOf(listener) >>> 0, 1) };
}

/**
 * The host's side of the store: starts the worker thread that owns the database and turns messages into
 * promises. Nothing here blocks: hashing, parsing, SQL and fsync all happen on the worker's thread.
 *
 * If the worker ever exits without close() (a crash, an out-of-memory kill), the requests in flight fail with
 * an error saying so, a new worker is started (its database from the snapshot, else rebuilt from the files),
 * requests made meanwhile wait for it, and onRestarted listeners hear why; listeners of events stay attached.
 * A worker that dies MAX_RESTARTS times within a minute is not started again: requests then fail with why.
 */
export class EngineClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly changedListeners: Listeners<[]> = [];
  private readonly splitListeners: Listeners<[string, SplitInfo | undefined]> = [];
  private readonly warningListeners: Listeners<[string]> = [];
  private readonly restartListeners: Listeners<[Restart]> = [];
  /** Workers whose exit was handled ('error' and 'exit' may both come). */
  private readonly gone = new WeakSet<Worker>();
  private dead: Error | undefined;
  private closing = false;
  /** While a new worker starts: requests wait for it. */
  private starting: Promise<void> | undefined;
  private readonly restarts: number[] = [];

  private constructor(
    private worker: Worker,
    /** Why the previous snapshot was not used, if it was not (it is rebuilt from the files). */
    readonly discarded: string | undefined,
    private readonly entry: string,
    private readonly config: WorkerConfig,
  ) {
    this.attach(worker);
  }

  /**
   * Starts the worker from `entry`: the bundled dist/engine.js, or (tests, benchmarks) the TypeScript
   * source, which is loaded through tsx.
   */
  static async start(entry: string, config: WorkerConfig): Promise<EngineClient> {
    const { worker, discarded } = await startWorker(entry, config);
    return new EngineClient(worker, discarded, entry, config);
  }

  request<K extends RequestKind>(
    kind: K,
    args: EngineRequests[K]['args'],
    onProgress?: (message: string, fraction?: number) => void,
  ): Promise<EngineRequests[K]['result']> {
    if (this.starting) return this.starting.then(() => this.request(kind, args, onProgress));
    if (this.dead) return Promise.reject(this.dead);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, onProgress });
      this.worker.postMessage({ id, kind, args } as HostMessage);
    });
  }

  /** Called when judgements or metrics change outside an index request. */
  onChanged(listener: () => void): { dispose(): void } {
    return listen(this.changedListeners, listener);
  }

  /** Called when an open split's figures changed (judgements, its files, significance computed): its views ask again. */
  onSplitChanged(listener: (key: string, info?: SplitInfo) => void): { dispose(): void } {
    return listen(this.splitListeners, listener);
  }

  /** Called with what the user should know that failed no request (e.g. the snapshot could not be saved). */
  onWarning(listener: (message: string) => void): { dispose(): void } {
    return listen(this.warningListeners, listener);
  }

  /**
   * Called when the worker exited unasked: once a new one runs (`running`; the splits the old one had open are
   * gone), or when none could be started (`running` false: requests fail from then on).
   */
  onRestarted(listener: (r: Restart) => void): { dispose(): void } {
    return listen(this.restartListeners, listener);
  }

  /** Saves the snapshot, then stops the worker. */
  async close(): Promise<void> {
    await this.starting;
    if (this.dead) return;
    this.closing = true;
    try {
      await this.request('flush', {});
    } finally {
      this.dead = new Error('the store is closed');
      await this.worker.terminate();
    }
  }

  private attach(worker: Worker): void {
    worker.on('message', (m: WorkerMessage) => this.receive(m));
    worker.on('error', (e) => this.exited(worker, `it failed: ${e.message}`));
    worker.on('exit', (code) => this.exited(worker, `it exited with code ${code}`));
  }

  private receive(m: WorkerMessage): void {
    if (m.kind === 'changed') {
      for (const l of [...this.changedListeners]) l();
      return;
    }
    if (m.kind === 'split') {
      for (const l of [...this.splitListeners]) l(m.key, m.info);
      return;
    }
    if (m.kind === 'warning') {
      for (const l of [...this.warningListeners]) l(m.message);
      return;
    }
    if (m.kind === 'ready') return;
    const p = this.pending.get(m.id);
    if (!p) return;
    if (m.kind === 'progress') {
      p.onProgress?.(m.message, m.fraction);
      return;
    }
    this.pending.delete(m.id);
    if (m.ok) p.resolve(m.value);
    else p.reject(new EngineError(m.error.message));
  }

  /** The worker `worker` is gone: fail what it had in hand, then start another unless closing or given up. */
  private exited(worker: Worker, how: string): void {
    if (worker !== this.worker || this.dead || this.gone.has(worker)) return;
    this.gone.add(worker);
    const why = `the IR Workbench engine stopped (${how})`;
    const failed = new Error(`${why}; it is being restarted: try again`);
    for (const p of this.pending.values()) p.reject(failed);
    this.pending.clear();
    if (this.closing) {
      this.dead = new Error('the store is closed');
      return;
    }
    void worker.terminate();
    const now = Date.now();
    while (this.restarts.length > 0 && now - this.restarts[0] > RESTART_WINDOW_MS) this.restarts.shift();
    if (this.restarts.length >= MAX_RESTARTS) {
      this.dead = new Error(`${why}, for the ${MAX_RESTARTS + 1}th time within a minute, so it was not restarted: reload the window`);
      this.restarted({ why: this.dead.message, running: false });
      return;
    }
    this.restarts.push(now);
    this.starting = startWorker(this.entry, this.config).then(
      ({ worker: next }) => {
        this.worker = next;
        this.attach(next);
        this.starting = undefined;
        this.restarted({ why, running: true });
      },
      (e: Error) => {
        this.dead = new Error(`${why}, and could not be started again: ${e.message}`);
        this.starting = undefined;
        this.restarted({ why: this.dead.message, running: false });
      },
    );
  }

  private restarted(r: Restart): void {
    for (const l of [...this.restartListeners]) l(r);
  }
}

function startWorker(entry: string, config: WorkerConfig): Promise<{ worker: Worker; discarded: string | undefined }> {
  const worker = entry.endsWith('.ts')
    ? new Worker(`require('tsx/cjs'); require(${JSON.stringify(entry)});`, { eval: true, workerData: config })
    : new Worker(entry, { workerData: config });
  return new Promise((resolve, reject) => {
    const onError = (e: Error) => reject(e);
    const onExit = (code: number) => reject(new Error(`the engine exited (code ${code}) before it was ready`));
    worker.once('error', onError);
    worker.once('exit', onExit);
    worker.once('message', (m: WorkerMessage) => {
      worker.off('error', onError);
      worker.off('exit', onExit);
      if (m.kind !== 'ready' || m.protocol !== PROTOCOL_VERSION) {
        void worker.terminate();
        reject(new Error(`store worker speaks protocol ${m.kind === 'ready' ? m.protocol : '?'}, expected ${PROTOCOL_VERSION}`));
        return;
      }
      resolve({ worker, discarded: m.discarded });
    });
  });
}
