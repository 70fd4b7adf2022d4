import { unlinkSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { withOutput } from '../io';
import { releaseSignals } from '../signals';
import type { ResidentAnswer, ResidentRequest } from './socket';

/** How long the process waits for a call before it exits (IRW_RESIDENT_IDLE_S, seconds). */
const idleMs = () => 1000 * (Number(process.env.IRW_RESIDENT_IDLE_S) > 0 ? Number(process.env.IRW_RESIDENT_IDLE_S) : 600);

/**
 * Serves `irw eval` calls on `socket` one at a time (a call that comes meanwhile is told so and evaluates in its own
 * process), each with the caller's folder and its output sent back whole; exits after idleMs() without a call. It
 * reads every file anew at each call (nothing is kept between calls but compiled code), so a changed qrels or run
 * is never answered from memory. Started detached by the launcher (resident/client.ts).
 */
export function serveResident(socket: string, main: (argv: string[]) => Promise<number>): void {
  // SIGTERM and SIGINT end it at once (a call in progress is the caller's to repeat: it gets no answer).
  releaseSignals();
  let busy = false;
  let served = 0;
  let idle: NodeJS.Timeout | undefined;
  const server = createServer((c) => {
    let text: string | null = '';
    c.setEncoding('utf8');
    c.on('error', () => undefined);
    c.on('data', (chunk: string) => {
      if (text === null) return;
      text += chunk;
      const nl = text.indexOf('\n');
      if (nl < 0) return;
      let req: ResidentRequest;
      try {
        req = JSON.parse(text.slice(0, nl)) as ResidentRequest;
      } catch {
        return void c.destroy();
      }
      text = null;
      void answer(c, req);
    });
  });
  const stop = () => {
    server.close();
    try {
      unlinkSync(socket);
    } catch {
      // already gone: a newer process took the path
    }
    process.exit(0);
  };
  const rest = () => {
    clearTimeout(idle);
    idle = setTimeout(stop, idleMs());
  };
  const reply = (c: Socket, a: ResidentAnswer, ...bytes: Buffer[]) => void c.end(Buffer.concat([Buffer.from(`${JSON.stringify(a)}\n`), ...bytes]));
  async function answer(c: Socket, req: ResidentRequest): Promise<void> {
    if (req.status) return reply(c, { served, pid: process.pid });
    if (busy || req.argv[0] !== 'eval') return reply(c, { busy: true });
    busy = true;
    clearTimeout(idle);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    try {
      process.chdir(req.cwd);
      const code = await withOutput({ out: (d) => out.push(Buffer.from(d)), err: (t) => err.push(Buffer.from(t)), outIsTTY: req.tty }, () => main(req.argv));
      served++;
      const [o, e] = [Buffer.concat(out), Buffer.concat(err)];
      reply(c, { code, out: o.length, err: e.length }, o, e);
    } catch {
      // The caller's folder is gone, or the like: it evaluates itself and says what is wrong.
      reply(c, { busy: true });
    } finally {
      busy = false;
      rest();
    }
  }
  server.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EADDRINUSE') process.exit(1);
    // A socket file is there: another live process keeps it (this one is not needed), or a dead one left it.
    const probe = connect(socket);
    probe.on('connect', () => process.exit(0));
    probe.on('error', () => {
      try {
        unlinkSync(socket);
      } catch {
        // removed meanwhile
      }
      server.listen(socket);
    });
  });
  server.listen(socket, rest);
}
