/** Shared fixtures for the dense / re-rank tests: generated model folders and a small real-text dataset. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DATASETS } from '../unit/support/paths';
import { biEncoder, crossEncoder, type GeneratedModel, type ModelSpec } from './onnxModels';
import { TINY, writeModelFolder } from './modelFolders';

export interface Fixture {
  dir: string;
  model: GeneratedModel;
}

/** The settings a test folder declares unless it says otherwise (a folder must declare them: modelFolder.ts). */
export const PLAIN_SETTINGS = { pooling: 'mean', normalize: false, maxLength: 512, similarity: 'dot' };

export function tinyBiEncoder(root: string, name: string, config: Record<string, unknown>, spec: Partial<ModelSpec> = {}, files?: string[]): Fixture {
  const model = biEncoder({ ...TINY, hidden: 16, seed: 3, ...spec });
  return { dir: writeModelFolder(join(root, name), model, { ...PLAIN_SETTINGS, ...config }, files), model };
}

export function tinyCrossEncoder(root: string, name: string, config: Record<string, unknown> = {}, spec: Partial<ModelSpec> = {}): Fixture {
  const model = crossEncoder({ ...TINY, hidden: 8, seed: 4, ...spec });
  return { dir: writeModelFolder(join(root, name), model, config), model };
}

/**
 * A BEIR folder with the first `docs` SciFact documents (real text) and queries q1..qN whose texts are the
 * titles of some of those documents, each judged relevant to that document.
 */
export function smallDataset(root: string, docs = 40, queries = 6): { dir: string; ids: string[] } {
  const dir = join(root, 'dataset');
  mkdirSync(join(dir, 'qrels'), { recursive: true });
  const lines = readFileSync(join(DATASETS, 'scifact', 'corpus.jsonl'), 'utf8').split('\n').slice(0, docs);
  writeFileSync(join(dir, 'corpus.jsonl'), lines.join('\n') + '\n');
  const parsed = lines.map((l) => JSON.parse(l) as { _id: string; title: string });
  const q: string[] = [];
  const qrels = ['query-id\tcorpus-id\tscore'];
  for (let i = 0; i < queries; i++) {
    const d = parsed[(i * 7) % docs];
    q.push(JSON.stringify({ _id: `q${i + 1}`, text: d.title }));
    qrels.push(`q${i + 1}\t${d._id}\t1`);
  }
  writeFileSync(join(dir, 'queries.jsonl'), q.join('\n') + '\n');
  writeFileSync(join(dir, 'qrels', 'test.tsv'), qrels.join('\n') + '\n');
  return { dir, ids: parsed.map((p) => p._id) };
}
