import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative, sep } from 'node:path';
import * as yazl from 'yazl';

/** Zips `folder` as BEIR's zips are laid out: every file under `<name>/`. */
export function zipFolder(folder: string, name: string): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  const walk = (dir: string): string[] => readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : [join(dir, f)]));
  for (const file of walk(folder).sort()) zip.addFile(file, `${name}/${relative(folder, file).split(sep).join('/')}`);
  zip.end();
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('error', reject);
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

export const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');

export interface ServedFile {
  body: Buffer;
  /** Close the connection after this many bytes of the body (a dropped transfer). */
  cutAfter?: number;
  /** Answer 200 with the whole body even to a Range request (a server without resume). */
  ignoreRange?: boolean;
  /** Send the body in this many pieces, 100 ms apart (a slow link, for progress lines). */
  slowPieces?: number;
  /** Send this many bytes of the body, then nothing more, keeping the connection open (a stalled server). */
  stallAfter?: number;
}

/** A local HTTP server on 127.0.0.1 serving files by path, with HTTP Range; it records the Range headers it got. */
export async function startServer(files: Map<string, ServedFile>): Promise<{ url: string; ranges: (string | undefined)[]; close: () => Promise<void> }> {
  const ranges: (string | undefined)[] = [];
  const server = http.createServer((req, res) => {
    const file = files.get(req.url ?? '');
    ranges.push(req.headers.range);
    if (!file) {
      res.writeHead(404).end('not found');
      return;
    }
    let start = 0;
    const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    if (m && !file.ignoreRange) {
      start = Number(m[1]);
      if (start >= file.body.length) {
        res.writeHead(416, { 'content-range': `bytes */${file.body.length}` }).end();
        return;
      }
      res.writeHead(206, { 'content-length': file.body.length - start, 'content-range': `bytes ${start}-${file.body.length - 1}/${file.body.length}` });
    } else {
      res.writeHead(200, { 'content-length': file.body.length });
    }
    const body = file.body.subarray(start);
    if (file.stallAfter !== undefined && file.stallAfter < body.length) {
      res.write(body.subarray(0, file.stallAfter));
      return;
    }
    if (file.cutAfter !== undefined && file.cutAfter < body.length) {
      res.write(body.subarray(0, file.cutAfter), () => setTimeout(() => res.socket?.destroy(), 20));
      return;
    }
    if (file.slowPieces) {
      const size = Math.ceil(body.length / file.slowPieces);
      let at = 0;
      const next = () => {
        res.write(body.subarray(at, at + size));
        at += size;
        if (at < body.length) setTimeout(next, 100);
        else res.end();
      };
      next();
      return;
    }
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    ranges,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections(); // stalled responses stay open otherwise
        server.close(() => r());
      }),
  };
}
