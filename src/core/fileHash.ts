import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** A file's sha256 (hex), read in 1 MiB chunks: what tells a touched but identical file, and keys the caches. */
export async function sha256File(path: string, signal?: AbortSignal): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20, signal })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
