import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { InputError } from '../core/formats/errors';
import { defaultTmpPath, removeQuietly } from '../core/durableFs';
import type { Bm25RunRequest, Bm25RunResult, RunProgress } from '../core/retrieval/bm25/run';
import type { NeuralJob, NeuralProgress, NeuralResult } from '../core/retrieval/neuralJob';
import { PROTOCOL_VERSION, isProtocolMessage, type ChildMessage, type ParentMessage } from './protocol';

/**
 * Parent side of the runner protocol: forks dist/runner.js for one run and turns its messages into a promise.
 *
 *   const run = startBm25Run(request, { onProgress: (p) => ..., signal });
 *   run.cancel();               // or abort `signal`
 *   const result = await run.result;
 *
 * `result` resolves with the run's summary once the run file is in place, or rejects with
 *  - InputError (file, line, quoted text, hint) for bad input files;
 *  - RunnerError code 'cancelled' after cancel (the child stopped, no run file was written);
 *  - RunnerError code 'usage' for an invalid request (e.g. b outside [0, 1]);
 *  - RunnerError code 'crashed' if the child died (killed, out of memory, ...), with its exit code or signal
 *    and the end of its stderr, or went silent for `silenceMs` (stopped with SIGSTOP, hung) and was ended; the
 *    partial output is removed by the parent;
 *  - RunnerError code 'internal' for a bug reported by the child.
 * The promise always settles once the child has exited: no hang, no orphan (a child that ignores a cancel is
 * killed after `killAfterMs`).
 */
export type RunnerErrorCode = 'cancelled' | 'usage' | 'crashed' | 'internal';

export class RunnerError extends Error {
  constructor(
    readonly code: RunnerErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'RunnerError';
  }
}

export interface StartOptions<P = RunProgress> {
  onProgress?: (p: P) => void;
  signal?: AbortSignal;
  /** Path of the runner script; default dist/runner.js next to the bundle that imports this module. */
  runnerPath?: string;
  /** Node options for the child, e.g. ['--max-old-space-size=8192'] (tests add a TypeScript loader). */
  execArgv?: string[];
  /** After cancel, how long the child gets to stop before it is killed (default 5000 ms). */
  killAfterMs?: number;
  /**
   * How long the child may send nothing (it says it is alive every second while it works) before it is taken
   * for stopped or hung, killed, and the run fails with a message saying so (default 120000 ms: synchronous
   * steps such as checking a large cached index can keep it from answering for a while).
   */
  silenceMs?: number;
  /** What the child read other than as written: a skipped bad line, an ignored byte-order mark, the count. */
  onWarning?: (text: string) => void;
}

export interface RunHandle<R = Bm25RunResult> {
  readonly result: Promise<R>;
  /** Process id of the child (for diagnostics). */
  readonly pid: number | undefined;
  cancel(): void;
}

const STDERR_TAIL = 4000;

export function startBm25Run(request: Bm25RunRequest, options: StartOptions = {}): RunHandle {
  return startJob<Bm25RunResult, RunProgress>(request, options);
}

/** The same for a neural or fusion job (dense, rerank, hybrid, fuse: see core/retrieval/neuralJob.ts). */
export function startNeuralRun(job: NeuralJob, options: StartOptions<NeuralProgress> = {}): RunHandle<NeuralResult> {
  return startJob<NeuralResult, NeuralProgress>(job, options);
}

function startJob<R, P>(request: Bm25RunRequest | NeuralJob, options: StartOptions<P>): RunHandle<R> {
  const id = randomUUID();
  // The parent picks the temporary output path, so it can remove it even if the child is killed.
  const target = 'job' in request ? request.request : request;
  const tmpOut = target.tmpOut ?? defaultTmpPath(target.out);
  const withTmp: Bm25RunRequest | NeuralJob = 'job' in request ? ({ ...request, request: { ...request.request, tmpOut } } as NeuralJob) : { ...request, tmpOut };
  const child: ChildProcess = fork(options.runnerPath ?? join(__dirname, 'runner.js'), [], {
    execArgv: options.execArgv ?? [],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    serialization: 'json',
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (s: string) => {
    stderr = (stderr + s).slice(-STDERR_TAIL);
  });

  let final: ChildMessage | null = null;
  let cancelRequested = false;
  let killTimer: NodeJS.Timeout | undefined;
  let silent = false;
  const silenceMs = options.silenceMs ?? 120_000;
  let lastHeard = performance.now();
  const watchdog = setInterval(
    () => {
      if (final || performance.now() - lastHeard < silenceMs) return;
      silent = true;
      child.kill('SIGKILL'); // works on a stopped process too
    },
    Math.min(1000, silenceMs),
  );

  let runSent = false;
  const cancel = () => {
    if (cancelRequested || final) return;
    cancelRequested = true;
    if (!runSent) {
      child.kill(); // nothing started yet: no output to clean up
      return;
    }
    const msg: ParentMessage = { v: PROTOCOL_VERSION, kind: 'cancel', id };
    if (child.connected) child.send(msg, () => undefined);
    killTimer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? 5000);
  };
  const onAbort = () => cancel();
  if (options.signal?.aborted) queueMicrotask(cancel);
  else options.signal?.addEventListener('abort', onAbort, { once: true });

  const result = new Promise<R>((resolve, reject) => {
    child.on('message', (m: unknown) => {
      if (!isProtocolMessage(m)) return;
      lastHeard = performance.now();
      const msg = m as ChildMessage;
      if (msg.kind === 'ready') {
        if (cancelRequested) return;
        runSent = true;
        const run: ParentMessage = { v: PROTOCOL_VERSION, kind: 'run', id, request: withTmp };
        child.send(run, () => undefined);
      } else if (msg.kind === 'progress' && msg.id === id) {
        if (!final) options.onProgress?.(msg.progress as P);
      } else if (msg.kind === 'warning' && msg.id === id) {
        options.onWarning?.(msg.text);
      } else if ((msg.kind === 'result' || msg.kind === 'error' || msg.kind === 'cancelled') && msg.id === id) {
        final = msg;
      }
    });
    child.on('error', (e) => {
      // Spawn failure (missing runner script, ...). 'exit' may not follow, so settle here.
      if (child.exitCode === null && child.signalCode === null && child.pid === undefined) {
        cleanup();
        reject(new RunnerError('crashed', `could not start the runner process: ${e.message}`));
      }
    });
    // 'close' (not 'exit'): it comes after the IPC channel and stderr are drained, so the final message is in.
    child.on('close', (code, signal) => {
      cleanup();
      const msg: ChildMessage | null = final;
      if (msg?.kind === 'result') return resolve(msg.result as R);
      removeQuietly(tmpOut);
      if (msg?.kind === 'error') {
        const e = msg.error;
        if (e.kind === 'input') return reject(new InputError({ ...e }));
        if (e.kind === 'usage') return reject(new RunnerError('usage', e.message));
        return reject(new RunnerError('internal', `runner failed: ${e.stack ?? e.message}`));
      }
      if (msg?.kind === 'cancelled' || cancelRequested) return reject(new RunnerError('cancelled', 'the run was cancelled; no run file was written'));
      if (silent) {
        const secs = Math.round(silenceMs / 1000);
        return reject(new RunnerError('crashed', `the runner process sent nothing for ${secs} s (stopped or hung), so it was ended; no run file was written. Run again; if it recurs, run the same with irw run in a terminal to see where it stops`));
      }
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      const tail = stderr.trim() ? `\n${stderr.trim()}` : '';
      reject(new RunnerError('crashed', `the runner process ${how} before finishing; no run file was written${tail}`));
    });
  });

  function cleanup() {
    clearTimeout(killTimer);
    clearInterval(watchdog);
    options.signal?.removeEventListener('abort', onAbort);
  }

  return { result, pid: child.pid, cancel };
}
