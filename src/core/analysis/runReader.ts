import { existsSync } from 'node:fs';
import { join, resolve as absolute } from 'node:path';
import { Worker } from 'node:worker_threads';
import { DocArena, type ArenaParts } from '../formats/docArena';
import { isInputError } from '../formats/errors';
import { readQrels } from '../formats/qrels';
import { readRun, Run } from '../formats/run';
import { uniqueLabel } from './load';
import { scoreRun, type AnalysisSession, type Scores } from './session';

/**
 * Reading and scoring run files off the editor's thread, several at once: each file is read and evaluated in a
 * worker thread of its own (the runner's 2 cores both work), and the columns come back as transferred
 * buffers, not copies.
 */
export interface ReadRequest {
  file: string;
  qrelsPath: string;
  complete: boolean;
  relevanceLevel: number;
}

export interface RunParts {
  tag: string;
  qids: string[];
  offsets: Int32Array;
  docIds: Int32Array;
  scores: Float64Array;
  docs: ArenaParts;
}

export type ReadReply = { ok: true; run: RunParts; scores: Scores } | { ok: false; reason: string };

/** What a worker does: read the run, check it answers the split, score it on the original qrels. */
export function readAndScore(req: ReadRequest): { reply: ReadReply; transfer: ArrayBuffer[] } {
  try {
    const qrels = readQrels(req.qrelsPath);
    const run = readRun(req.file);
    if (!qrels.queryIds().some((q) => run.queryIndex(q) >= 0)) {
      return { reply: { ok: false, reason: `ranks no query judged in ${req.qrelsPath}` }, transfer: [] };
    }
    const scores = scoreRun(qrels, run, req);
    // The arena's bytes may live in Node's shared Buffer pool, which cannot be transferred: copy them out.
    const arena = (run.docs as DocArena).toParts();
    const docs = { ...arena, bytes: new Uint8Array(arena.bytes.subarray(0, arena.used)) };
    const parts: RunParts = { tag: run.tag, qids: [...run.qids], offsets: run.offsets, docIds: run.docIds, scores: run.scores, docs };
    const buffers = [parts.offsets, parts.docIds, parts.scores, docs.bytes, docs.starts, docs.hashes, ...scores.columns].map((a) => a.buffer as ArrayBuffer);
    return { reply: { ok: true, run: parts, scores }, transfer: [...new Set(buffers)] };
  } catch (e) {
    return { reply: { ok: false, reason: isInputError(e) ? e.format() : (e as Error).message }, transfer: [] };
  }
}

export function runFromParts(p: RunParts): Run {
  return new Run(p.tag, p.qids, p.offsets, p.docIds, p.scores, DocArena.fromParts(p.docs));
}

function inWorker(workerPath: string, req: ReadRequest): Promise<ReadReply> {
  return new Promise((resolve) => {
    const w = workerPath.endsWith('.ts')
      ? new Worker(`require('tsx/cjs'); require(${JSON.stringify(workerPath)});`, { eval: true, workerData: req })
      : new Worker(absolute(workerPath), { workerData: req, execArgv: [] }); // the bundle needs no loader flags of the parent's
    let settled = false;
    const done = (r: ReadReply) => {
      if (!settled) {
        settled = true;
        resolve(r);
      }
    };
    w.once('message', (r: ReadReply) => done(r));
    w.once('error', (e) => done({ ok: false, reason: `reading failed: ${e.message}` }));
    w.once('exit', (code) => done({ ok: false, reason: `the reader stopped (exit code ${code}) before answering` }));
  });
}

/**
 * Adds run files to the session, reading and scoring `concurrency` of them at a time in worker threads
 * (`workerPath`: dist/run-reader.js, or its .ts source under tsx in tests). Files that are not valid runs, or
 * rank none of the split's judged queries, are left out with the reason.
 */
export async function addRunFilesInWorkers(
  session: AnalysisSession,
  files: readonly string[],
  workerPath: string,
  concurrency = 2,
): Promise<{ file: string; reason: string }[]> {
  if (!existsSync(workerPath)) throw new Error(`run reader missing: ${workerPath}`);
  const todo = files.filter((f) => !session.hasRun(f));
  const base = { qrelsPath: join(session.datasetDir, 'qrels', `${session.split}.tsv`), complete: session.complete, relevanceLevel: session.relevanceLevel };
  const replies: ReadReply[] = new Array(todo.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, todo.length) }, async () => {
      while (next < todo.length) {
        const i = next++;
        replies[i] = await inWorker(workerPath, { ...base, file: todo[i] });
      }
    }),
  );
  const skipped: { file: string; reason: string }[] = [];
  todo.forEach((file, i) => {
    const r = replies[i];
    if (r.ok) session.addRun(file, uniqueLabel(file, session.runRefs().map((x) => x.label)), runFromParts(r.run), r.scores);
    else skipped.push({ file, reason: r.reason });
  });
  return skipped;
}
