import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError } from '../../formats/errors';
import { hashFile } from './fingerprint';

/**
 * A model folder: model.onnx (or onnx/model.onnx, the Hugging Face layout), tokenizer.json and/or vocab.txt,
 * and optionally irw-model.json:
 *
 *   { "pooling": "mean" | "cls", "normalize": true, "maxLength": 256,
 *     "queryPrefix": "", "documentPrefix": "", "similarity": "cosine" | "dot" }
 *
 * Missing keys fall back to sentence-transformers' own files when the folder has them
 * (sentence_bert_config.json: max_seq_length; 1_Pooling/config.json: pooling mode; modules.json: a Normalize
 * module), then to mean pooling, no normalization, 512 tokens and dot product.
 */
export type Pooling = 'mean' | 'cls';
export type Similarity = 'dot' | 'cosine';

export interface ModelConfig {
  pooling: Pooling;
  normalize: boolean;
  maxLength: number;
  queryPrefix: string;
  documentPrefix: string;
  similarity: Similarity;
}

export interface ModelFolder {
  dir: string;
  modelPath: string;
  config: ModelConfig;
}

export const CONFIG_FILE = 'irw-model.json';

export function readModelFolder(dirArg: string, overrides: Partial<ModelConfig> = {}): ModelFolder {
  const dir = resolve(dirArg);
  const modelPath = [join(dir, 'model.onnx'), join(dir, 'onnx', 'model.onnx')].find((p) => existsSync(p));
  if (!modelPath) {
    throw new InputError({
      code: 'unreadable',
      message: existsSync(dir) ? 'no model.onnx in the model folder' : 'model folder not found',
      file: dir,
      hint: 'Point --model (or the model setting in the editor) at a folder holding an ONNX export: model.onnx plus tokenizer.json or vocab.txt.',
    });
  }
  const own = readConfig(join(dir, CONFIG_FILE));
  const st = sentenceTransformersConfig(dir);
  const pick = <K extends keyof ModelConfig>(key: K, fallback: ModelConfig[K]): ModelConfig[K] =>
    overrides[key] ?? own[key] ?? st[key] ?? fallback;
  return {
    dir,
    modelPath,
    config: {
      pooling: pick('pooling', 'mean'),
      normalize: pick('normalize', false),
      maxLength: pick('maxLength', 512),
      queryPrefix: pick('queryPrefix', ''),
      documentPrefix: pick('documentPrefix', ''),
      similarity: pick('similarity', 'dot'),
    },
  };
}

const KEYS: Record<keyof ModelConfig, (v: unknown) => boolean> = {
  pooling: (v) => v === 'mean' || v === 'cls',
  normalize: (v) => typeof v === 'boolean',
  maxLength: (v) => Number.isInteger(v) && (v as number) > 2,
  queryPrefix: (v) => typeof v === 'string',
  documentPrefix: (v) => typeof v === 'string',
  similarity: (v) => v === 'dot' || v === 'cosine',
};

function readConfig(path: string): Partial<ModelConfig> {
  if (!existsSync(path)) return {};
  const text = readFileSync(path, 'utf8');
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch (e) {
    throw new InputError({ code: 'malformed', message: `not valid JSON: ${(e as Error).message}`, file: path, hint: CONFIG_HINT });
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
    throw new InputError({ code: 'malformed', message: 'expected a JSON object', file: path, hint: CONFIG_HINT });
  }
  for (const [key, value] of Object.entries(obj)) {
    const valid = KEYS[key as keyof ModelConfig];
    if (!valid) throw new InputError({ code: 'malformed', message: `unknown key "${key}"`, file: path, hint: CONFIG_HINT });
    if (!valid(value)) {
      throw new InputError({ code: 'malformed', message: `bad value for "${key}": ${JSON.stringify(value)}`, file: path, hint: CONFIG_HINT });
    }
  }
  return obj as Partial<ModelConfig>;
}

const CONFIG_HINT =
  'irw-model.json keys: pooling ("mean" | "cls"), normalize (true | false), maxLength (tokens, > 2), queryPrefix, documentPrefix (strings), similarity ("dot" | "cosine").';

function sentenceTransformersConfig(dir: string): Partial<ModelConfig> {
  const out: Partial<ModelConfig> = {};
  const json = (p: string): Record<string, unknown> | undefined => {
    try {
      return existsSync(p) ? (JSON.parse(readFileSync(p, 'utf8')) as Record<string, unknown>) : undefined;
    } catch {
      return undefined; // optional hints only; irw-model.json is the place for explicit settings
    }
  };
  const sb = json(join(dir, 'sentence_bert_config.json'));
  if (sb && Number.isInteger(sb.max_seq_length)) out.maxLength = sb.max_seq_length as number;
  const pooling = json(join(dir, '1_Pooling', 'config.json'));
  if (pooling?.pooling_mode_cls_token === true) out.pooling = 'cls';
  else if (pooling?.pooling_mode_mean_tokens === true) out.pooling = 'mean';
  const modules = json(join(dir, 'modules.json'));
  if (Array.isArray(modules)) {
    out.normalize = modules.some((m) => typeof m?.type === 'string' && m.type.endsWith('.Normalize'));
  }
  return out;
}

/**
 * A key for everything that decides a document's embedding: the ONNX file, the tokenizer files and the
 * settings used for documents. Changing any of them makes cached embeddings stale.
 */
export async function documentEmbeddingKey(folder: ModelFolder): Promise<string> {
  const h = createHash('sha256');
  h.update(await hashFile(folder.modelPath));
  for (const name of ['tokenizer.json', 'vocab.txt', 'tokenizer_config.json']) {
    const p = join(folder.dir, name);
    if (existsSync(p)) h.update(`${name}:${await hashFile(p)}`);
  }
  const { pooling, normalize, maxLength, documentPrefix } = folder.config;
  h.update(JSON.stringify({ pooling, normalize, maxLength, documentPrefix }));
  return h.digest('hex');
}
