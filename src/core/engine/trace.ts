import { appendFileSync } from 'node:fs';

/**
 * Where the engine's time goes, for benchmarks (bench:judging): with IRW_ENGINE_TRACE set to a file, each request
 * the engine answers and each background job appends a JSON line { kind, at, ms } (at: wall clock in ms, ms:
 * from arrival to answer, or the job's own computing time). Off, it costs one comparison per request.
 */
const file = process.env.IRW_ENGINE_TRACE;

const tracing = file !== undefined && file !== '';

export function trace(kind: string, at: number, ms: number, extra?: Record<string, number | string>): void {
  if (!tracing) return;
  try {
    appendFileSync(file!, JSON.stringify({ kind, at: Math.round(at), ms: Math.round(ms * 10) / 10, ...extra }) + '\n');
  } catch {
    // A trace that cannot be written is no reason to fail a request.
  }
}
