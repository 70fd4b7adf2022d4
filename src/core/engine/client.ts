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

/**
 * The host's side of the store: starts the worker thread that owns the database and turns messages into
 * promises. Nothing here blocks: hashing, parsing, SQL and fsync all happen on the worker's thread.
 */
export class EngineClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly changedListeners: (() => void)[] = [];
  private readonly splitListeners: ((key: string, info?: SplitInfo) => void)[] = [];
  private dead: Error | undefined;

  private constructor(
    private readonly worker: Worker,
    /** Why the previous snapshot was not used, if it was not (it is rebuilt from the files). */
    readonly discarded: string | undefined,
  ) {
    worker.on('message', (m: WorkerMessage) => this.receive(m));
    worker.on('error', (e) => this.fail(e));
    worker.on('exit', (code) => this.fail(new Error(`the store worker exited (code ${code})`)));
  }

  /**
   * Starts the worker from `entry`: the bundled dist/engine.js, or (tests, benchmarks) the TypeScript
   * source, which is loaded through tsx.
   */
  static start(entry: string, config: WorkerConfig): Promise<EngineClient> {
    const worker = entry.endsWith('.ts')
      ? new Worker(`require('tsx/cjs'); require(${JSON.stringify(entry)});`, { eval: true, workerData: config })
      : new Worker(entry, { workerData: config });
    return new Promise((resolve, reject) => {
      const onError = (e: Error) => reject(e);
      worker.once('error', onError);
      worker.once('message', (m: WorkerMessage) => {
        worker.off('error', onError);
        if (m.kind !== 'ready' || m.protocol !== PROTOCOL_VERSION) {
          void worker.terminate();
          reject(new Error(`store worker speaks protocol ${m.kind === 'ready' ? m.protocol : '?'}, expected ${PROTOCOL_VERSION}`));
          return;
        }
        resolve(new EngineClient(worker, m.discarded));
      });
    });
  }

  request<K extends RequestKind>(
    kind: K,
    args: EngineRequests[K]['args'],
    onProgress?: (message: string, fraction?: number) => void,
  ): Promise<EngineRequests[K]['result']> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, onProgress });
      this.worker.postMessage({ id, kind, args } as HostMessage);
    });
  }

  /** Called when judgements or metrics change outside an index request. */
  onChanged(listener: () => void): { dispose(): void } {
    this.changedListeners.push(listener);
    return { dispose: () => this.changedListeners.splice(this.changedListeners.indexOf(listener) >>> 0, 1) };
  }

  /** Called when an open split's figures changed (judgements, its files, significance computed): its views ask again. */
  onSplitChanged(listener: (key: string, info?: SplitInfo) => void): { dispose(): void } {
    this.splitListeners.push(listener);
    return { dispose: () => this.splitListeners.splice(this.splitListeners.indexOf(listener) >>> 0, 1) };
  }

  /** Saves the snapshot, then stops the worker. */
  async close(): Promise<void> {
    if (this.dead) return;
    try {
      await this.request('flush', {});
    } finally {
      this.dead = new Error('the store is closed');
      await this.worker.terminate();
    }
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

  private fail(e: Error): void {
    this.dead ??= e;
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }
}
