import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { writeFileAtomic } from '../durableFs';
import { describeFile } from './files';
import { provenanceOf, sidecarPath } from './record';

/**
 * Imports a run file into a runs folder as it is (the index then reads it as any run dropped there: a bad one
 * is left out with every bad line in the Problems panel), and gives the copy a sidecar saying where it came from (the source's path and hash,
 * and when). A source with its own sidecar (a run made by irw elsewhere) keeps its settings and provenance,
 * so it can still be explained; the import is added to them.
 */
export async function importRunFile(source: string, targetDir: string, command: string): Promise<{ path: string }> {
  const from = await describeFile(source);
  mkdirSync(targetDir, { recursive: true });
  const path = join(targetDir, basename(source));
  copyFileSync(source, path);
  const imported = { from, at: new Date().toISOString() };
  let content: Record<string, unknown> = { imported: true, provenance: provenanceOf(command, {}, { imported }) };
  const own = sidecarPath(source);
  if (existsSync(own) && resolve(own) !== resolve(sidecarPath(path))) {
    try {
      const parsed = JSON.parse(readFileSync(own, 'utf8')) as Record<string, unknown>;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
        const provenance = (parsed.provenance ?? provenanceOf(undefined, {})) as Record<string, unknown>;
        content = { ...parsed, provenance: { ...provenance, imported } };
      }
    } catch {
      // A sidecar that is not JSON describes nothing: the import is recorded alone.
    }
  }
  writeFileAtomic(sidecarPath(path), `${JSON.stringify(content, null, 2)}\n`);
  return { path };
}
