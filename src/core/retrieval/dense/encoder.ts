import { InputError } from '../../formats/errors';
import { modelFile, readModelFolder, type ModelConfig, type ModelFolder } from './modelFolder';
import { poolInto } from './pooling';
import { EncoderSession, type Output, type SessionOptions } from './session';
import { loadTokenizer, type TextTokenizer, type TokenBatch } from './tokenizer';

export interface EncodeHooks {
  signal?: AbortSignal;
  /** Texts encoded so far, of `total`. */
  onProgress?: (done: number, total: number) => void;
}

export interface BatchOptions {
  batchSize: number;
}

/**
 * Batched inference over `count` inputs, pipelined: while onnxruntime runs batch i on its threads, this thread
 * tokenizes batch i+1 and pools batch i-1, so the JavaScript work hides behind inference. Inputs are taken
 * longest first (by `length`, as sentence-transformers sorts by text length) so each batch pads to similar
 * lengths; `collect` receives each batch with the input indices of its rows.
 */
export async function runBatched(
  count: number,
  length: (i: number) => number,
  opts: BatchOptions,
  hooks: EncodeHooks,
  tokenize: (rows: Int32Array) => TokenBatch,
  session: EncoderSession,
  collect: (out: Output, batch: TokenBatch, rows: Int32Array) => void,
): Promise<void> {
  const lengths = Int32Array.from({ length: count }, (_, i) => length(i));
  const order = Int32Array.from({ length: count }, (_, i) => i).sort((a, b) => lengths[b] - lengths[a] || a - b);
  const size = Math.max(1, opts.batchSize);
  const prepare = (start: number) => {
    const rows = order.subarray(start, Math.min(count, start + size));
    return { rows, batch: tokenize(rows) };
  };
  let done = 0;
  let current = count > 0 ? prepare(0) : null;
  let pending = current ? session.run(current.batch) : null;
  for (let start = size; current && pending; start += size) {
    let next: ReturnType<typeof prepare> | null = null;
    let out: Output;
    try {
      if (start < count && !hooks.signal?.aborted) next = prepare(start);
    } finally {
      // Never leave a run in flight: the session may be released right after we return or throw.
      out = await pending;
    }
    hooks.signal?.throwIfAborted();
    pending = next ? session.run(next.batch) : null;
    collect(out, current.batch, current.rows);
    done += current.rows.length;
    hooks.onProgress?.(done, count);
    current = next;
  }
}

/** A bi-encoder: tokenizer + session + pooling, from a model folder. */
export class DenseEncoder {
  private constructor(
    readonly folder: ModelFolder,
    private readonly tokenizer: TextTokenizer,
    private readonly session: EncoderSession,
  ) {}

  static async open(dir: string, overrides: Partial<ModelConfig> = {}, opts: SessionOptions = {}): Promise<DenseEncoder> {
    // The model's signature first: a cross-encoder's folder declares no pooling, but that is not what is wrong with it.
    const session = await EncoderSession.open(modelFile(dir), 'bi-encoder', opts);
    try {
      const folder = readModelFolder(dir, 'bi-encoder', overrides);
      return new DenseEncoder(folder, loadTokenizer(folder.dir, folder.config.maxLength, false, folder.sources.maxLength), session);
    } catch (e) {
      await session.release();
      throw e;
    }
  }

  get config(): ModelConfig {
    return this.folder.config;
  }

  /** Embeddings of `texts` (each prefixed), row-major [texts.length, dim]. */
  async encode(texts: readonly string[], prefix: string, opts: BatchOptions, hooks: EncodeHooks = {}): Promise<{ dim: number; data: Float32Array }> {
    let dim = this.session.hidden ?? 0;
    let data = new Float32Array(texts.length * dim);
    const { pooling, normalize } = this.folder.config;
    await runBatched(
      texts.length,
      (i) => texts[i].length,
      opts,
      hooks,
      (rows) => this.tokenizer.encodeBatch(Array.from(rows, (i) => prefix + texts[i])),
      this.session,
      (out, batch, rows) => {
        if (out.dims.length !== 3 || out.dims[0] !== batch.batch || out.dims[1] !== batch.seqLen) {
          throw new InputError({
            code: 'malformed',
            message: `the model returned token embeddings of shape [${out.dims.join(', ')}] for a batch of [${batch.batch}, ${batch.seqLen}] tokens`,
            file: this.folder.modelPath,
            hint: 'Export the transformer without its pooling head (optimum-cli export onnx --task feature-extraction).',
          });
        }
        const d = out.dims[2];
        if (dim === 0) {
          dim = d;
          data = new Float32Array(texts.length * dim);
        }
        poolInto(out.data, batch.batch, batch.seqLen, dim, batch.lengths, pooling, normalize, data, rows);
      },
    );
    return { dim, data };
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}
