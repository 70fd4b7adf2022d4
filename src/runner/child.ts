import { setReadReport } from '../core/formats/beir';
import { checkDataset } from '../core/formats/datasetFolder';
import { isInputError } from '../core/formats/errors';
import { checkOutPath } from '../core/formats/runWriter';
import { stageOf } from '../core/progress/stages';
import { checkRequest, runBm25 } from '../core/retrieval/bm25/run';
import { checkNeuralJob, isNeuralJob, runNeuralJob } from '../core/retrieval/neuralJob';
import { HEARTBEAT_MS, PROTOCOL_VERSION, isProtocolMessage, type ChildMessage, type ErrorPayload, type ParentMessage } from './protocol';

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
  const heartbeat = setInterval(() => void send({ v: PROTOCOL_VERSION, kind: 'alive', id }), HEARTBEAT_MS);
  const warn = (text: string) => void send({ v: PROTOCOL_VERSION, kind: 'warning', id, text });
  setReadReport({
    skipped: (e) => warn(`skipped ${e.file ?? '?'}:${e.line ?? '?'}: ${e.message}`),
    notice: (file, message) => warn(`${file} ${message}`),
    finished: (file, n) => warn(`skipped ${n} bad line${n === 1 ? '' : 's'} of ${file}; the rest was read`),
  });
  try {
    // The same checks as `irw run`, before any long work: an unusable --out, dataset folder, split or qrels.
    const target = isNeuralJob(request) ? request.request : request;
    checkOutPath(target.out);
    if ('dataset' in target) checkDataset(target.dataset, target.split, 'queries' in target ? target.queries : undefined);
    const hooks = {
      signal: controller.signal,
      onProgress: (p: Extract<ChildMessage, { kind: 'progress' }>['progress']) => {
        const stage = stageOf(p);
        void send({ v: PROTOCOL_VERSION, kind: 'progress', id, progress: { ...p, label: stage.label, unit: stage.unit } });
      },
    };
    const result = isNeuralJob(request) ? await runNeuralJob(request, hooks) : await runBm25(request, hooks);
    await send({ v: PROTOCOL_VERSION, kind: 'result', id, result });
  } catch (e) {
    if (controller.signal.aborted) await send({ v: PROTOCOL_VERSION, kind: 'cancelled', id });
    else await send({ v: PROTOCOL_VERSION, kind: 'error', id, error: payload(e) });
  } finally {
    clearInterval(heartbeat);
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
