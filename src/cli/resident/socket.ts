import { mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fingerprint } from '../codeCache';

/**
 * The resident `irw eval` (IRW_RESIDENT=1): a process that stays up between calls, so that a loop over runs pays
 * Node's start in each call but not a cold evaluator (a cold `irw eval` of a SciFact run is ~2.3x a bare Node
 * start, most of it code not yet optimized: docs/benchmarks.md). One per user and build: its socket is named by
 * the bundle's fingerprint, in a folder only the user can enter.
 */

/** A request: the arguments after `irw`, the caller's folder, and whether its standard output is a terminal. */
export interface ResidentRequest {
  argv: string[];
  cwd: string;
  tty: boolean;
  /** Only ask how many calls the process served (tests, benchmarks). */
  status?: boolean;
}

/**
 * The answer, a JSON line and then bytes: the call's exit code and how many bytes of standard output and then of
 * error follow; or that the process is busy with another call (the caller then evaluates itself); or, asked, how
 * many calls it served.
 */
export type ResidentAnswer = { code: number; out: number; err: number } | { busy: true } | { served: number; pid: number };

/**
 * The socket's path for `bundle`, or null where there is none to trust: no user id (Windows), or a folder
 * another user owns or can enter ($XDG_RUNTIME_DIR, else the temporary folder, then irw-<uid>).
 */
export function residentSocket(bundle: string): string | null {
  const uid = process.getuid?.();
  if (uid === undefined) return null;
  const dir = join(process.env.XDG_RUNTIME_DIR || tmpdir(), `irw-${uid}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const s = statSync(dir);
    if (!s.isDirectory() || s.uid !== uid || (s.mode & 0o077) !== 0) return null;
  } catch {
    return null;
  }
  return join(dir, `eval-${fingerprint(bundle)}.sock`);
}
