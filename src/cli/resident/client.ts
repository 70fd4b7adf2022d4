import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { connect } from 'node:net';
import { residentSocket, type ResidentAnswer, type ResidentRequest } from './socket';

/** Inputs larger than this are evaluated in the caller's process: a warm evaluator saves little on them, and the resident one stays small. */
const MAX_INPUT_BYTES = 64 * 1024 * 1024;
/** An answer slower than this (a machine under heavy load) is given up: the caller evaluates itself. */
const ANSWER_MS = 60_000;

/**
 * Asks the resident `irw eval` (resident/server.ts) for this call, and writes its answer: true if it answered.
 * False, and the caller evaluates in its own process, when the call reads standard input or a folder or more
 * than MAX_INPUT_BYTES, when the resident process is busy or none is up (one is then started for the next
 * calls), or on any fault of the connection: nothing has been written then.
 */
export async function evalViaResident(bundle: string, launcher: string, argv: string[]): Promise<boolean> {
  let bytes = 0;
  for (const a of argv.slice(1)) {
    if (a === '-') return false;
    try {
      const s = statSync(a);
      if (s.isDirectory()) return false;
      if (s.isFile()) bytes += s.size;
    } catch {
      // an option or its value, or a path that is not there (the evaluator says so)
    }
  }
  if (bytes > MAX_INPUT_BYTES) return false;
  const socket = residentSocket(bundle);
  if (!socket) return false;
  const answer = await ask(socket, { argv, cwd: process.cwd(), tty: process.stdout.isTTY === true });
  if (answer === 'absent') {
    spawn(process.execPath, [launcher, 'eval'], { detached: true, stdio: 'ignore', env: { ...process.env, IRW_RESIDENT_SERVE: socket } }).unref();
    return false;
  }
  if (!answer || !('code' in answer.head)) return false;
  const { code, out, err } = answer.head;
  if (answer.bytes.length !== out + err) return false;
  // A reader that closes the pipe early (`| head`) ends the call as it ends an evaluation in this process: 141,
  // signals.ts's EXIT_CLOSED_PIPE (not loaded here: its handlers would hold SIGINT while this call waits).
  process.stdout.on('error', (e: NodeJS.ErrnoException) => e.code === 'EPIPE' && process.exit(141));
  if (err) process.stderr.write(answer.bytes.subarray(out));
  if (out) process.stdout.write(answer.bytes.subarray(0, out));
  process.exitCode = code;
  return true;
}

/**
 * The resident process's answer to `req` on `socket` (its JSON line, and the bytes after it); 'absent' when none
 * listens there; undefined on any other fault.
 */
export function ask(socket: string, req: ResidentRequest): Promise<{ head: ResidentAnswer; bytes: Buffer } | 'absent' | undefined> {
  return new Promise((resolve) => {
    const c = connect(socket);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      c.destroy();
      resolve(undefined);
    }, ANSWER_MS);
    const done = (a: { head: ResidentAnswer; bytes: Buffer } | 'absent' | undefined) => {
      clearTimeout(timer);
      resolve(a);
    };
    c.on('connect', () => c.write(`${JSON.stringify(req)}\n`));
    c.on('data', (d) => chunks.push(d));
    c.on('end', () => {
      const all = Buffer.concat(chunks);
      const nl = all.indexOf(10);
      try {
        done(nl < 0 ? undefined : { head: JSON.parse(all.toString('utf8', 0, nl)) as ResidentAnswer, bytes: all.subarray(nl + 1) });
      } catch {
        done(undefined);
      }
    });
    c.on('error', (e: NodeJS.ErrnoException) => done(e.code === 'ENOENT' || e.code === 'ECONNREFUSED' ? 'absent' : undefined));
  });
}

/** How many calls the resident process on `socket` served, and its pid; undefined when none answers (tests, benchmarks). */
export async function residentStatus(socket: string): Promise<{ served: number; pid: number } | undefined> {
  const a = await ask(socket, { argv: [], cwd: process.cwd(), tty: false, status: true });
  return a && a !== 'absent' && 'served' in a.head ? a.head : undefined;
}
