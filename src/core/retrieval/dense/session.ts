import type { InferenceSession as Session, Tensor as TensorT } from 'onnxruntime-node';
import { InputError } from '../../formats/errors';
import type { TokenBatch } from './tokenizer';

/**
 * An onnxruntime-node session for a sentence-transformers style encoder, checked against the signature the
 * code relies on before any text is fed to it:
 *
 *   inputs   input_ids, attention_mask and optionally token_type_ids: int64 [batch, sequence]
 *   outputs  bi-encoder:    last_hidden_state (or token_embeddings): float [batch, sequence, hidden]
 *            cross-encoder: logits: float [batch, 1]
 *
 * A model that does not match gets an InputError naming what was expected and what was found.
 */
export type EncoderKind = 'bi-encoder' | 'cross-encoder';

export interface SessionOptions {
  /** Threads for one inference (onnxruntime's intra-op pool); default: onnxruntime's choice (all cores). */
  threads?: number;
}

export interface Output {
  data: Float32Array;
  dims: readonly number[];
}

type Ort = typeof import('onnxruntime-node');
let ortModule: Ort | undefined;
/**
 * Loaded on first use: the native binding costs ~100 ms and only neural runs need it. It is an optional part of
 * the installation (an optional peer dependency of `irw`; only the platform packages of the extension carry it): where
 * it is missing, a neural run says what to install, and everything else works without it.
 */
function ort(): Ort {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    ortModule ??= require('onnxruntime-node') as Ort;
  } catch (e) {
    throw new InputError({
      code: 'not-installed',
      message: `dense, re-rank and hybrid runs need onnxruntime-node for ${process.platform}-${process.arch}, which this installation lacks (${String((e as Error).message).split('\n')[0]})`,
      hint:
        'irw: add it beside irw with npm install -g onnxruntime-node (~300 MB; ONNXRUNTIME_NODE_INSTALL=skip spares its installer ' +
        'a download of CUDA libraries), or run npm install in a checkout. ' +
        "VS Code: install the extension's package for your platform; the universal package has no neural runs. BM25 runs and evaluation need none of it.",
    });
  }
  return ortModule;
}

const REQUIRED_INPUTS = ['input_ids', 'attention_mask'];
const OPTIONAL_INPUTS = ['token_type_ids'];
const OUTPUTS: Record<EncoderKind, { names: string[]; rank: number; what: string }> = {
  'bi-encoder': {
    names: ['last_hidden_state', 'token_embeddings'],
    rank: 3,
    what: 'last_hidden_state: float [batch, sequence, hidden]',
  },
  'cross-encoder': { names: ['logits'], rank: 2, what: 'logits: float [batch, 1]' },
};

export class EncoderSession {
  private constructor(
    private readonly modelPath: string,
    private readonly session: Session,
    readonly kind: EncoderKind,
    readonly outputName: string,
    readonly usesTokenTypes: boolean,
    /** Hidden size when the model declares it (bi-encoders). */
    readonly hidden: number | undefined,
  ) {}

  static async open(modelPath: string, kind: EncoderKind, opts: SessionOptions = {}): Promise<EncoderSession> {
    const { InferenceSession } = ort();
    let session: Session;
    try {
      session = await InferenceSession.create(modelPath, {
        ...(opts.threads ? { intraOpNumThreads: opts.threads } : {}),
        graphOptimizationLevel: 'all',
      });
    } catch (e) {
      throw new InputError({
        code: 'malformed',
        message: `onnxruntime could not load the model: ${(e as Error).message}`,
        file: modelPath,
        hint: 'Use an ONNX export of the model (e.g. optimum-cli export onnx), not a PyTorch or safetensors file.',
      });
    }
    const inputs = session.inputMetadata;
    const outputs = session.outputMetadata;
    const problems: string[] = [];
    const names = inputs.map((i) => i.name);
    for (const n of REQUIRED_INPUTS) if (!names.includes(n)) problems.push(`input ${n} is missing`);
    for (const i of inputs) {
      if (!REQUIRED_INPUTS.includes(i.name) && !OPTIONAL_INPUTS.includes(i.name)) problems.push(`unexpected input ${i.name}`);
      else if (!i.isTensor || i.type !== 'int64' || (i.shape.length > 0 && i.shape.length !== 2)) {
        problems.push(`input ${describe(i)} is not int64 [batch, sequence]`);
      }
    }
    const want = OUTPUTS[kind];
    const out = outputs.find((o) => want.names.includes(o.name));
    if (!out) problems.push(`no output named ${want.names.join(' or ')}`);
    else if (!out.isTensor || out.type !== 'float32' || (out.shape.length > 0 && out.shape.length !== want.rank)) {
      problems.push(`output ${describe(out)} is not ${want.what.split(': ')[1]}`);
    } else if (kind === 'cross-encoder' && typeof out.shape[1] === 'number' && out.shape[1] !== 1) {
      problems.push(`output logits has ${out.shape[1]} labels; a re-ranker has one`);
    }
    if (problems.length > 0 || !out) {
      await session.release();
      throw new InputError({
        code: 'malformed',
        message:
          `the model does not have the signature of a sentence-transformers ${kind} export: ${problems.join('; ')}.\n` +
          `  expected: inputs input_ids, attention_mask[, token_type_ids]: int64 [batch, sequence]; output ${want.what}\n` +
          `  found:    inputs ${inputs.map(describe).join(', ')}; outputs ${outputs.map(describe).join(', ')}`,
        file: modelPath,
        hint:
          kind === 'bi-encoder'
            ? 'Export the transformer without its pooling head (optimum-cli export onnx --task feature-extraction).'
            : 'Export a cross-encoder with one relevance logit (optimum-cli export onnx --task text-classification).',
      });
    }
    const hidden = kind === 'bi-encoder' && out.isTensor && typeof out.shape[2] === 'number' ? out.shape[2] : undefined;
    return new EncoderSession(modelPath, session, kind, out.name, names.includes('token_type_ids'), hidden);
  }

  /** Runs one padded batch; onnxruntime computes on its own threads, so the caller can tokenize meanwhile. */
  async run(batch: TokenBatch): Promise<Output> {
    const { Tensor } = ort();
    const dims = [batch.batch, batch.seqLen];
    const feeds: Record<string, TensorT> = {
      input_ids: new Tensor('int64', batch.inputIds, dims),
      attention_mask: new Tensor('int64', batch.attentionMask, dims),
    };
    if (this.usesTokenTypes) feeds.token_type_ids = new Tensor('int64', batch.tokenTypeIds, dims);
    let result: Session.OnnxValueMapType;
    try {
      result = await this.session.run(feeds, [this.outputName]);
    } catch (e) {
      // The model's own limits (a sequence longer than its position embeddings) surface here, as a message of its kernels.
      throw new InputError({
        code: 'malformed',
        message: `onnxruntime could not run the model on ${batch.batch} texts of ${batch.seqLen} tokens: ${(e as Error).message}`,
        file: this.modelPath,
        hint: "A sequence longer than the model's position embeddings fails this way: set maxLength (irw-model.json) to at most the model's limit (config.json max_position_embeddings).",
      });
    }
    const t = result[this.outputName];
    return { data: t.data as Float32Array, dims: t.dims };
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}

function describe(v: Session.ValueMetadata): string {
  if (!v.isTensor) return `${v.name} (not a tensor)`;
  const shape = v.shape.length ? `[${v.shape.join(', ')}]` : '[?]';
  return `${v.name}: ${v.type} ${shape}`;
}
