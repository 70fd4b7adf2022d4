/** Shared fixtures for the dense / re-rank tests: generated model folders and a small real-text dataset. */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DATASETS } from '../unit/support/paths';
import { biEncoder, crossEncoder, type GeneratedModel, type ModelSpec } from './onnxModels';
import { TINY, writeModelFolder } from './modelFolders';
import { BERT_DATA, readVocab } from './bertTokenizer';
import { uniform } from '../../src/core/random';

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
 * `n` corpus lines: SciFact's first documents (real text) where ../shared has SciFact, else documents made of
 * the tokenizer's own whole words (with capitals, digits, punctuation and accents), the title's words recurring
 * in the text as a real abstract's do, so that a fresh clone runs the same tests.
 */
function corpusLines(n: number): string[] {
  const scifact = join(DATASETS, 'scifact', 'corpus.jsonl');
  if (existsSync(scifact)) return readFileSync(scifact, 'utf8').split('\n').slice(0, n);
  const words = readVocab(join(BERT_DATA, 'vocab.txt')).filter((w) => /^[a-z]{3,}$/.test(w));
  const rand = uniform(17);
  const pick = () => words[Math.floor(rand() * words.length)];
  return Array.from({ length: n }, (_, i) => {
    const topic = Array.from({ length: 4 + (i % 6) }, pick);
    const word = () => (rand() < 0.5 ? topic[Math.floor(rand() * topic.length)] : rand() < 0.05 ? `${Math.floor(rand() * 1000)}%` : pick());
    const sentence = (len: number) => Array.from({ length: len }, word).join(' ').replace(/^./, (c) => c.toUpperCase());
    const title = topic.join(' ').replace(/^./, (c) => c.toUpperCase());
    return JSON.stringify({ _id: String(1000 + i * 7), title, text: `${sentence(20 + (i % 40))}, naïve café. ${sentence(12)}?`, metadata: {} });
  });
}

/**
 * A BEIR folder with `docs` documents (corpusLines) and queries q1..qN whose texts are the titles of some of
 * those documents, each judged relevant to that document.
 */
export function smallDataset(root: string, docs = 40, queries = 6): { dir: string; ids: string[] } {
  const dir = join(root, 'dataset');
  mkdirSync(join(dir, 'qrels'), { recursive: true });
  const lines = corpusLines(docs);
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
