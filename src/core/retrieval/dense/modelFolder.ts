import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError } from '../../formats/errors';
import { describeFile } from '../../provenance/files';
import type { ModelRecord } from '../../provenance/record';
import { hashFile } from './fingerprint';

/**
 * A model folder: model.onnx (or onnx/model.onnx, the Hugging Face layout), tokenizer.json and/or vocab.txt,
 * and the settings that say how to turn token embeddings into a query's or a document's vector. Each setting
 * comes from, in order: an override (the CLI's --similarity), irw-model.json
 *
 *   { "pooling": "mean" | "cls" | "max" | "lasttoken" | "mean_sqrt_len" | "weightedmean", "normalize": true,
 *     "maxLength": 256, "queryPrefix": "", "documentPrefix": "", "similarity": "cosine" | "dot" }
 *
 * then what a sentence-transformers folder declares: modules.json (its modules: Transformer, Pooling,
 * Normalize), the Pooling module's config.json (pooling_mode_*), sentence_bert_config.json (max_seq_length),
 * config_sentence_transformers.json (prompts, similarity_fn_name; cosine when absent, as sentence-transformers
 * defaults), and for the length, as sentence-transformers does without max_seq_length, tokenizer_config.json's
 * model_max_length capped by config.json's max_position_embeddings. What the folder does not declare is refused,
 * naming the files looked at: never a silent guess (a Xenova-style export has none of these files). What a
 * folder declares that this product cannot do (a Dense module, concatenated pooling modes, lower-casing) is
 * refused naming the file and key. Cross-encoders need only the length.
 */
export const POOLINGS = ['mean', 'cls', 'max', 'lasttoken', 'mean_sqrt_len', 'weightedmean'] as const;
export type Pooling = (typeof POOLINGS)[number];
export type Similarity = 'dot' | 'cosine';
export type ModelKind = 'bi-encoder' | 'cross-encoder';

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
  kind: ModelKind;
  config: ModelConfig;
  /** Where each setting came from, e.g. maxLength: "sentence_bert_config.json max_seq_length". */
  sources: Record<keyof ModelConfig, string>;
  /** The model's positions (config.json max_position_embeddings, less the offset of RoBERTa-style models), when declared. */
  positions: number | null;
}

export const CONFIG_FILE = 'irw-model.json';

const KEYS: Record<keyof ModelConfig, (v: unknown) => boolean> = {
  pooling: (v) => POOLINGS.includes(v as Pooling),
  normalize: (v) => typeof v === 'boolean',
  maxLength: (v) => Number.isInteger(v) && (v as number) >= 1,
  queryPrefix: (v) => typeof v === 'string',
  documentPrefix: (v) => typeof v === 'string',
  similarity: (v) => v === 'dot' || v === 'cosine',
};

const CONFIG_HINT = `irw-model.json keys: pooling (${POOLINGS.map((p) => `"${p}"`).join(' | ')}), normalize (true | false), maxLength (tokens), queryPrefix, documentPrefix (strings), similarity ("dot" | "cosine").`;

/** A setting's value and where it was read. */
type Found<T> = { value: T; source: string } | undefined;
type Declared = { [K in keyof ModelConfig]?: Found<ModelConfig[K]> };

/** The model folder's ONNX file: model.onnx, or onnx/model.onnx (the Hugging Face layout). */
export function modelFile(dirArg: string): string {
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
  return modelPath;
}

export function readModelFolder(dirArg: string, kind: ModelKind = 'bi-encoder', overrides: Partial<ModelConfig> = {}): ModelFolder {
  const dir = resolve(dirArg);
  const modelPath = modelFile(dir);
  const own = readOwnConfig(join(dir, CONFIG_FILE));
  const st = kind === 'bi-encoder' ? sentenceTransformers(dir) : { declared: {}, isSt: false };
  const positions = modelPositions(dir);
  const lengthFromTokenizer = tokenizerLength(dir, positions);
  const fromOverrides: Declared = {};
  for (const [k, v] of Object.entries(overrides)) if (v !== undefined) (fromOverrides as Record<string, Found<unknown>>)[k] = { value: v, source: 'the command line' };
  const pick = <K extends keyof ModelConfig>(key: K, fallback: Found<ModelConfig[K]>): Found<ModelConfig[K]> =>
    (fromOverrides[key] ?? own[key] ?? st.declared[key] ?? fallback) as Found<ModelConfig[K]>;
  const emptyPrefix = { value: '', source: st.isSt ? 'config_sentence_transformers.json (no prompt)' : 'none declared' };
  const neutral = { value: 'mean' as Pooling, source: 'not used by a cross-encoder' };
  const found = {
    pooling: pick('pooling', kind === 'cross-encoder' ? neutral : undefined),
    normalize: pick('normalize', kind === 'cross-encoder' ? { value: false, source: 'not used by a cross-encoder' } : undefined),
    maxLength: pick('maxLength', lengthFromTokenizer),
    queryPrefix: pick('queryPrefix', emptyPrefix),
    documentPrefix: pick('documentPrefix', emptyPrefix),
    // sentence-transformers compares with cosine unless config_sentence_transformers.json says otherwise.
    similarity: pick('similarity', kind === 'cross-encoder' ? { value: 'dot', source: 'not used by a cross-encoder' } : st.isSt ? { value: 'cosine', source: "sentence-transformers' default (no similarity_fn_name)" } : undefined),
  };
  const missing = (Object.keys(found) as (keyof ModelConfig)[]).filter((k) => found[k] === undefined);
  if (missing.length > 0) {
    throw new InputError({
      code: 'malformed',
      message:
        `this model folder does not declare ${missing.join(', ')}: it has no ${CONFIG_FILE} giving ${missing.length > 1 ? 'them' : 'it'}, and no sentence-transformers file that does ` +
        `(looked for modules.json, 1_Pooling/config.json, sentence_bert_config.json, config_sentence_transformers.json${missing.includes('maxLength') ? ', tokenizer_config.json model_max_length' : ''}); ` +
        'a guess would give plausible but wrong vectors',
      file: dir,
      hint: `Copy the model's sentence-transformers files from its repository into the folder, or write ${CONFIG_FILE}, e.g. for all-MiniLM-L6-v2 {"pooling": "mean", "normalize": true, "maxLength": 256, "similarity": "cosine"}. ${CONFIG_HINT}`,
    });
  }
  const maxLength = found.maxLength!;
  if (positions !== null && maxLength.value > positions) {
    throw new InputError({
      code: 'malformed',
      message: `maxLength ${maxLength.value} (${maxLength.source}) is more than the model's ${positions} positions (config.json max_position_embeddings)`,
      file: dir,
      hint: `Set maxLength to at most ${positions} in ${CONFIG_FILE}.`,
    });
  }
  const config = Object.fromEntries(Object.entries(found).map(([k, v]) => [k, v!.value])) as unknown as ModelConfig;
  const sources = Object.fromEntries(Object.entries(found).map(([k, v]) => [k, v!.source])) as Record<keyof ModelConfig, string>;
  return { dir, modelPath, kind, config, sources, positions };
}

function readJsonObject(path: string, hint: string): Record<string, unknown> | undefined {
  if (!existsSync(path)) return undefined;
  let obj: unknown;
  try {
    obj = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new InputError({ code: 'malformed', message: `not valid JSON: ${(e as Error).message}`, file: path, hint });
  }
  if (typeof obj !== 'object' || obj === null) throw new InputError({ code: 'malformed', message: 'expected a JSON object', file: path, hint });
  return obj as Record<string, unknown>;
}

function readOwnConfig(path: string): Declared {
  const obj = readJsonObject(path, CONFIG_HINT);
  if (!obj) return {};
  if (Array.isArray(obj)) throw new InputError({ code: 'malformed', message: 'expected a JSON object', file: path, hint: CONFIG_HINT });
  const out: Declared = {};
  for (const [key, value] of Object.entries(obj)) {
    const valid = KEYS[key as keyof ModelConfig];
    if (!valid) throw new InputError({ code: 'malformed', message: `unknown key "${key}"`, file: path, hint: CONFIG_HINT });
    if (!valid(value)) throw new InputError({ code: 'malformed', message: `bad value for "${key}": ${JSON.stringify(value)}`, file: path, hint: CONFIG_HINT });
    (out as Record<string, Found<unknown>>)[key] = { value, source: `${CONFIG_FILE} ${key}` };
  }
  return out;
}

const ST_HINT = 'Use a sentence-transformers model this product can run (Transformer, Pooling and Normalize modules), or write irw-model.json for a plain encoder.';

/** The Pooling config's mode keys and what each means here. */
const POOLING_KEYS: Record<string, Pooling> = {
  pooling_mode_mean_tokens: 'mean',
  pooling_mode_cls_token: 'cls',
  pooling_mode_max_tokens: 'max',
  pooling_mode_lasttoken: 'lasttoken',
  pooling_mode_mean_sqrt_len_tokens: 'mean_sqrt_len',
  pooling_mode_weightedmean_tokens: 'weightedmean',
};

/** What a sentence-transformers folder declares (files absent: nothing); refuses what it declares and this cannot do. */
function sentenceTransformers(dir: string): { declared: Declared; isSt: boolean } {
  const declared: Declared = {};
  const modulesPath = join(dir, 'modules.json');
  const modules = readJsonObject(modulesPath, ST_HINT) as unknown;
  let poolingDir = join(dir, '1_Pooling');
  let transformerDir = dir;
  if (modules !== undefined) {
    const refuse = (message: string) => new InputError({ code: 'malformed', message, file: modulesPath, hint: ST_HINT });
    if (!Array.isArray(modules)) throw refuse('expected a JSON array of modules');
    let pooling = false;
    let normalize = false;
    modules.forEach((m: { type?: unknown; path?: unknown }, i) => {
      const type = typeof m?.type === 'string' ? m.type : '';
      const path = typeof m?.path === 'string' ? m.path : '';
      const name = type.split('.').pop();
      if (name === 'Transformer' && i === 0) transformerDir = join(dir, path);
      else if (name === 'Pooling' && !pooling) {
        pooling = true;
        poolingDir = join(dir, path);
      } else if (name === 'Normalize') normalize = true;
      else throw refuse(`module ${i} "type": ${JSON.stringify(type)} is not supported (this product runs a Transformer, then Pooling, then optionally Normalize${name === 'Dense' ? '; a Dense layer after pooling changes the vectors and their size' : ''})`);
    });
    if (!pooling) throw refuse('no Pooling module: the model would give token embeddings, not one vector per text');
    declared.normalize = { value: normalize, source: 'modules.json (Normalize module)' };
  }
  const poolingPath = join(poolingDir, 'config.json');
  const poolingConfig = readJsonObject(poolingPath, ST_HINT);
  if (poolingConfig) {
    const modes = Object.keys(POOLING_KEYS).filter((k) => poolingConfig[k] === true);
    const refuse = (message: string) => new InputError({ code: 'malformed', message, file: poolingPath, hint: ST_HINT });
    if (modes.length === 0) throw refuse(`no pooling mode is true (keys ${Object.keys(POOLING_KEYS).join(', ')})`);
    if (modes.length > 1) throw refuse(`${modes.join(' and ')} are all true: sentence-transformers concatenates those vectors, which this product does not do`);
    if (poolingConfig.include_prompt === false) throw refuse('"include_prompt": false (pooling without the prompt\'s tokens) is not supported');
    declared.pooling = { value: POOLING_KEYS[modes[0]], source: `${poolingPath.slice(dir.length + 1)} ${modes[0]}` };
  }
  const sbPath = join(transformerDir, 'sentence_bert_config.json');
  const sb = readJsonObject(sbPath, ST_HINT);
  if (sb) {
    if (sb.do_lower_case === true) throw new InputError({ code: 'malformed', message: '"do_lower_case": true (lower-casing texts before the tokenizer) is not supported', file: sbPath, hint: ST_HINT });
    if (Number.isInteger(sb.max_seq_length) && (sb.max_seq_length as number) >= 1) declared.maxLength = { value: sb.max_seq_length as number, source: 'sentence_bert_config.json max_seq_length' };
  }
  const cstPath = join(dir, 'config_sentence_transformers.json');
  const cst = readJsonObject(cstPath, ST_HINT);
  if (cst) {
    const fn = cst.similarity_fn_name;
    if (fn === 'cosine') declared.similarity = { value: 'cosine', source: 'config_sentence_transformers.json similarity_fn_name' };
    else if (fn === 'dot' || fn === 'dot_product') declared.similarity = { value: 'dot', source: 'config_sentence_transformers.json similarity_fn_name' };
    else if (fn !== undefined && fn !== null) {
      throw new InputError({ code: 'malformed', message: `"similarity_fn_name": ${JSON.stringify(fn)} is not supported (cosine or dot)`, file: cstPath, hint: 'Give irw-model.json "similarity" to compare with cosine or dot product instead.' });
    }
    const prompts = (typeof cst.prompts === 'object' && cst.prompts !== null ? cst.prompts : {}) as Record<string, unknown>;
    const fallback = typeof cst.default_prompt_name === 'string' ? cst.default_prompt_name : null;
    // As sentence-transformers' encode_query / encode_document pick their prompt, then the default prompt.
    const prompt = (names: string[]): Found<string> => {
      const name = names.find((n) => typeof prompts[n] === 'string') ?? (fallback !== null && typeof prompts[fallback] === 'string' ? fallback : null);
      return name === null ? undefined : { value: prompts[name] as string, source: `config_sentence_transformers.json prompts.${name}` };
    };
    const q = prompt(['query']);
    const d = prompt(['document', 'passage', 'corpus']);
    if (q) declared.queryPrefix = q;
    if (d) declared.documentPrefix = d;
  }
  return { declared, isSt: modules !== undefined || poolingConfig !== undefined || sb !== undefined || cst !== undefined };
}

/** RoBERTa-style models number positions from padding_idx + 1: two of max_position_embeddings are not usable. */
const OFFSET_TYPES = new Set(['roberta', 'xlm-roberta', 'camembert', 'mpnet', 'longformer', 'data2vec-text', 'xlm-roberta-xl']);

function modelPositions(dir: string): number | null {
  const config = readJsonObject(join(dir, 'config.json'), 'Use the config.json of the model.');
  const n = config?.max_position_embeddings;
  if (!Number.isInteger(n)) return null;
  return (n as number) - (OFFSET_TYPES.has(String(config!.model_type)) ? 2 : 0);
}

/** sentence-transformers' length without max_seq_length: the tokenizer's model_max_length, capped by the positions. */
function tokenizerLength(dir: string, positions: number | null): Found<number> {
  const tc = readJsonObject(join(dir, 'tokenizer_config.json'), 'Use the tokenizer_config.json of the model.');
  const n = tc?.model_max_length;
  // Tokenizers without a limit store a huge sentinel (1e30).
  if (!Number.isInteger(n) || (n as number) < 1 || (n as number) > 1e6) return positions === null ? undefined : { value: positions, source: 'config.json max_position_embeddings' };
  return positions !== null && positions < (n as number)
    ? { value: positions, source: 'config.json max_position_embeddings (below tokenizer_config.json model_max_length)' }
    : { value: n as number, source: 'tokenizer_config.json model_max_length' };
}

/** The tokenizer files whose content decides the tokens (hashed into cache keys and provenance). */
export const TOKENIZER_FILES = ['tokenizer.json', 'vocab.txt', 'tokenizer_config.json'];

/**
 * A key for everything that decides a document's embedding: the ONNX file, the tokenizer files and the
 * settings used for documents. Changing any of them makes cached embeddings stale.
 */
export async function documentEmbeddingKey(folder: ModelFolder): Promise<string> {
  const h = createHash('sha256');
  h.update(await hashFile(folder.modelPath));
  for (const name of TOKENIZER_FILES) {
    const p = join(folder.dir, name);
    if (existsSync(p)) h.update(`${name}:${await hashFile(p)}`);
  }
  const { pooling, normalize, maxLength, documentPrefix } = folder.config;
  h.update(JSON.stringify({ pooling, normalize, maxLength, documentPrefix }));
  return h.digest('hex');
}

/** The model as a run's provenance records it: its files' hashes and every setting, with where each came from. */
export async function describeModel(folder: ModelFolder, signal?: AbortSignal): Promise<ModelRecord> {
  const tokenizer = [];
  for (const name of TOKENIZER_FILES) {
    const p = join(folder.dir, name);
    if (existsSync(p)) tokenizer.push(await describeFile(p, signal));
  }
  const used = folder.kind === 'cross-encoder' ? (['maxLength'] as const) : (Object.keys(folder.config) as (keyof ModelConfig)[]);
  return {
    dir: folder.dir,
    kind: folder.kind,
    model: await describeFile(folder.modelPath, signal),
    tokenizer,
    settings: Object.fromEntries(used.map((k) => [k, folder.config[k]])),
    sources: Object.fromEntries(used.map((k) => [k, folder.sources[k]])),
  };
}
