import { stat } from 'node:fs/promises';
import { sha256File } from '../../fileHash';

const memo = new Map<string, { size: number; mtimeMs: number; hash: string }>();

/**
 * SHA-256 of a file's content, remembered per (path, size, mtime) for the life of the process, so a 400 MB
 * model is read once per session, not once per run.
 */
export async function hashFile(path: string, signal?: AbortSignal): Promise<string> {
  const st = await stat(path);
  const known = memo.get(path);
  if (known && known.size === st.size && known.mtimeMs === st.mtimeMs) return known.hash;
  const hash = await sha256File(path, signal);
  memo.set(path, { size: st.size, mtimeMs: st.mtimeMs, hash });
  return hash;
}
