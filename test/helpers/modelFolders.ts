/**
 * Writes model folders (generated model.onnx + the real bert-base-uncased tokenizer files of
 * test/data/bert-base-uncased + irw-model.json) that `irw run --retriever dense|rerank|hybrid` accepts.
 *
 *   node --import tsx test/helpers/modelFolders.ts OUT_DIR [--realistic]
 *
 * makes OUT_DIR/bi-encoder and OUT_DIR/cross-encoder; --realistic gives them MiniLM-L6's shape (6 layers,
 * hidden 384) instead of a lookup table, so inference costs what a real model's does.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bertTokenizerDir } from './bertTokenizer';
import { biEncoder, crossEncoder, type GeneratedModel, type ModelSpec } from './onnxModels';

export const TOKENIZER_DIR = bertTokenizerDir();
export const VOCAB = 30522;

export function writeModelFolder(
  dir: string,
  model: GeneratedModel,
  config: Record<string, unknown>,
  tokenizerFiles: string[] = ['tokenizer.json', 'vocab.txt', 'tokenizer_config.json'],
): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'model.onnx'), model.bytes);
  for (const f of tokenizerFiles) copyFileSync(join(TOKENIZER_DIR, f), join(dir, f));
  writeFileSync(join(dir, 'irw-model.json'), JSON.stringify(config, null, 2));
  return dir;
}

export const REALISTIC: Omit<ModelSpec, 'seed'> = { vocab: VOCAB, hidden: 384, layers: 6, ffn: 1536 };
export const TINY: Omit<ModelSpec, 'seed'> = { vocab: VOCAB, hidden: 32 };

if (require.main === module) {
  const out = process.argv[2];
  if (!out) {
    process.stderr.write('usage: node --import tsx test/helpers/modelFolders.ts OUT_DIR [--realistic]\n');
    process.exit(2);
  }
  const shape = process.argv.includes('--realistic') ? REALISTIC : TINY;
  writeModelFolder(join(out, 'bi-encoder'), biEncoder({ ...shape, seed: 1 }), {
    pooling: 'mean',
    normalize: true,
    maxLength: 256,
    similarity: 'cosine',
  });
  writeModelFolder(join(out, 'cross-encoder'), crossEncoder({ ...shape, seed: 2 }), { maxLength: 512 });
  process.stdout.write(`wrote ${join(out, 'bi-encoder')} and ${join(out, 'cross-encoder')}\n`);
}
