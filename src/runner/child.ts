import { isInputError } from '../core/formats/errors';
import { checkRequest, runBm25 } from '../core/retrieval/bm25/run';
import { checkNeuralJob, isNeuralJob, runNeuralJob } from '../core/retrieval/neuralJob';
import { PROTOCOL_VERSION, isProtocolMessage, type ChildMessage, type ErrorPayload, type ParentMessage } from './protocol';

/**
 * Runner child process (bundled to dist/runner.js, started with child_process.fork by ./client.ts).
 * Runs one job, reports progress, honours cancel, and exits. If the parent goes away (the IPC channel
 * closes), the job is cancelled and the process exits, so no orphan keeps computing.
 */
if (!process.send) {
  process.stderr.write('dist/runner.js is started by IR Workbench (child_process.fork); use `irw run` on the command line.\n');
  process.exit(2);
}

const controller = new AbortController();
let runId: string | null = null;

function send(m: ChildMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.connected) return resolve();
    process.send!(m, undefined, {}, () => resolve());
  });
}

function payload(e: unknown): ErrorPayload {
  if (isInputError(e)) {
    return { kind: 'input', code: e.code, message: e.message, file: e.file, line: e.line, text: e.text, hint: e.hint };
  }
  const err = e as Error;
  return { kind: 'internal', message: err?.message ?? String(e), stack: err?.stack };
}

async function run(id: string, request: Extract<ParentMessage, { kind: 'run' }>['request']): Promise<void> {
  const problem = isNeuralJob(request) ? checkNeuralJob(request) : checkRequest(request);
  if (problem) {
    await send({ v: PROTOCOL_VERSION, kind: 'error', id, error: { kind: 'usage', message: problem } });
    return;
  }
  try {
    const hooks = {
      signal: controller.signal,
      onProgress: (progress: Extract<ChildMessage, { kind: 'progress' }>['progress']) => void send({ v: PROTOCOL_VERSION, kind: 'progress', id, progress }),
    };
    const result = isNeuralJob(request) ? await runNeuralJob(request, hooks) : await runBm25(request, hooks);
    await send({ v: PROTOCOL_VERSION, kind: 'result', id, result });
  } catch (e) {
    if (controller.signal.aborted) await send({ v: PROTOCOL_VERSION, kind: 'cancelled', id });
    else await send({ v: PROTOCOL_VERSION, kind: 'error', id, error: payload(e) });
  }
}

process.on('message', (m: unknown) => {
  if (!isProtocolMessage(m)) return;
  const msg = m as ParentMessage;
  if (msg.kind === 'run' && runId === null) {
    runId = msg.id;
    void run(msg.id, msg.request).finally(() => process.disconnect());
  } else if (msg.kind === 'cancel' && msg.id === runId) {
    controller.abort();
  }
});

// Parent gone: stop work; the run writer removes its temporary file on abort.
process.on('disconnect', () => {
  controller.abort();
  setTimeout(() => process.exit(0), 2000).unref();
});

void send({ v: PROTOCOL_VERSION, kind: 'ready', pid: process.pid });
