/**
 * Generates small ONNX encoders with the exact input/output signatures of sentence-transformers exports, so
 * the dense and cross-encoder code runs end to end without downloadable weights:
 *
 * - bi-encoder: input_ids, attention_mask[, token_type_ids] (int64 [batch, sequence]) -> last_hidden_state
 *   (float [batch, sequence, hidden]);
 * - cross-encoder: the same inputs -> logits (float [batch, 1]).
 *
 * With `layers: 0` the network is a lookup that tests can recompute by hand: hidden state of token j is
 * W[id_j] + T[type_j], plus `padNoise` at padded positions (real encoders emit non-zero vectors there too, so
 * pooling that forgot the mask would be caught). With layers > 0 each layer is single-head self-attention
 * (masked) and a ReLU feed-forward block, each with a residual and LayerNormalization: a transformer of
 * MiniLM's shape, used by the benchmark so that inference costs what a real model's does.
 */
import { onnx } from 'onnx-proto';
import { mulberry32 } from '../../src/core/random';

export interface ModelSpec {
  vocab: number;
  hidden: number;
  layers?: number;
  ffn?: number;
  seed?: number;
  /** Declare token_type_ids (BERT/MiniLM exports do; DistilBERT exports do not). */
  tokenTypes?: boolean;
  /** Rename inputs/outputs to build models with wrong signatures. */
  inputNames?: [string, string, string];
  outputName?: string;
  /** Value added to every component of padded positions' hidden states. */
  padNoise?: number;
  /** Cross-encoders: logits per pair (declared as a symbolic dimension when not 1). */
  labels?: number;
  /**
   * A position-embedding table of this many rows (zeros: outputs are unchanged), so that a sequence longer than
   * the model's positions fails inside onnxruntime as a real encoder's does.
   */
  positions?: number;
}

export interface GeneratedModel {
  bytes: Uint8Array;
  /** Token embeddings [vocab, hidden] and type embeddings [2, hidden], for hand recomputation. */
  word: Float32Array;
  type: Float32Array;
  /** Cross-encoders only: logits = (sum over unpadded tokens of hidden state) . head */
  head?: Float32Array;
  hidden: number;
}

const F = onnx.TensorProto.DataType.FLOAT;
const I64 = onnx.TensorProto.DataType.INT64;

/** Deterministic uniform(-1, 1) numbers (mulberry32). */
export function rng(seed: number): () => number {
  const next = mulberry32(seed);
  return () => (next() / 4294967296) * 2 - 1;
}

function randomArray(n: number, scale: number, next: () => number): Float32Array {
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) a[i] = next() * scale;
  return a;
}

class GraphBuilder {
  nodes: onnx.INodeProto[] = [];
  inits: onnx.ITensorProto[] = [];
  private n = 0;

  weight(name: string, dims: number[], data: Float32Array): string {
    this.inits.push({
      name,
      dims,
      dataType: F,
      rawData: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
    });
    return name;
  }

  int0(name: string, value: number): string {
    this.inits.push({ name, dims: [], dataType: I64, int64Data: [value] });
    return name;
  }

  ints(name: string, values: number[]): string {
    this.inits.push({ name, dims: [values.length], dataType: I64, int64Data: values });
    return name;
  }

  scalar(name: string, value: number): string {
    this.inits.push({ name, dims: [], dataType: F, floatData: [value] });
    return name;
  }

  op(type: string, inputs: string[], attrs: onnx.IAttributeProto[] = [], output?: string): string {
    const out = output ?? `${type.toLowerCase()}_${this.n++}`;
    this.nodes.push({ opType: type, input: inputs, output: [out], attribute: attrs, name: out });
    return out;
  }
}

const intAttr = (name: string, i: number): onnx.IAttributeProto => ({ name, i, type: onnx.AttributeProto.AttributeType.INT });
const intsAttr = (name: string, ints: number[]): onnx.IAttributeProto => ({
  name,
  ints,
  type: onnx.AttributeProto.AttributeType.INTS,
});

function tensorType(elemType: number, dims: (string | number)[]): onnx.ITypeProto {
  return {
    tensorType: {
      elemType,
      shape: { dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })) },
    },
  };
}

/** Builds the shared trunk; returns [hidden-state name, float mask [b,s,1] name]. */
function trunk(g: GraphBuilder, spec: ModelSpec, names: [string, string, string], out: Omit<GeneratedModel, 'bytes'>): [string, string] {
  const { vocab, hidden: h } = spec;
  const next = rng(spec.seed ?? 1);
  out.word.set(randomArray(vocab * h, 1, next));
  out.type.set(randomArray(2 * h, 0.5, next));
  let x = g.op('Gather', [g.weight('word_embeddings', [vocab, h], out.word), names[0]], [intAttr('axis', 0)]);
  if (spec.tokenTypes !== false) {
    const t = g.op('Gather', [g.weight('type_embeddings', [2, h], out.type), names[2]], [intAttr('axis', 0)]);
    x = g.op('Add', [x, t]);
  }
  if (spec.positions) {
    const seqLen = g.op('Gather', [g.op('Shape', [names[0]]), g.int0('seq_axis', 1)], [intAttr('axis', 0)]);
    const ids = g.op('Range', [g.int0('zero64', 0), seqLen, g.int0('one64', 1)]);
    const table = g.weight('position_embeddings', [spec.positions, h], new Float32Array(spec.positions * h));
    x = g.op('Add', [x, g.op('Gather', [table, ids], [intAttr('axis', 0)])]);
  }
  const maskF = g.op('Cast', [names[1]], [intAttr('to', F)]);
  const mask3 = g.op('Unsqueeze', [maskF, g.ints('axis_last', [-1])]); // [b,s,1]
  const layers = spec.layers ?? 0;
  if (layers > 0) {
    const ffn = spec.ffn ?? 4 * h;
    // Additive attention bias: 0 where attended, -1e4 at padding, broadcast over query positions: [b,1,s].
    const maskRow = g.op('Unsqueeze', [maskF, g.ints('axis_1', [1])]);
    const bias = g.op('Mul', [g.op('Sub', [maskRow, g.scalar('one', 1)]), g.scalar('big', 10000)]);
    const gamma = g.weight('ln_gamma', [h], new Float32Array(h).fill(1));
    const beta = g.weight('ln_beta', [h], new Float32Array(h));
    const scale = g.scalar('inv_sqrt_h', 1 / Math.sqrt(h));
    const s = 1 / Math.sqrt(h);
    for (let l = 0; l < layers; l++) {
      const mm = (a: string, w: string) => g.op('MatMul', [a, w]);
      const q = mm(x, g.weight(`l${l}_q`, [h, h], randomArray(h * h, s, next)));
      const k = mm(x, g.weight(`l${l}_k`, [h, h], randomArray(h * h, s, next)));
      const v = mm(x, g.weight(`l${l}_v`, [h, h], randomArray(h * h, s, next)));
      const kt = g.op('Transpose', [k], [intsAttr('perm', [0, 2, 1])]);
      const scores = g.op('Add', [g.op('Mul', [mm(q, kt), scale]), bias]);
      const ctx = mm(g.op('Softmax', [scores], [intAttr('axis', -1)]), v);
      const att = mm(ctx, g.weight(`l${l}_o`, [h, h], randomArray(h * h, s, next)));
      x = g.op('LayerNormalization', [g.op('Add', [x, att]), gamma, beta], [intAttr('axis', -1)]);
      const up = g.op('Relu', [mm(x, g.weight(`l${l}_up`, [h, ffn], randomArray(h * ffn, s, next)))]);
      const down = mm(up, g.weight(`l${l}_down`, [ffn, h], randomArray(ffn * h, 1 / Math.sqrt(ffn), next)));
      x = g.op('LayerNormalization', [g.op('Add', [x, down]), gamma, beta], [intAttr('axis', -1)]);
    }
  }
  return [x, mask3];
}

function finish(g: GraphBuilder, spec: ModelSpec, names: [string, string, string], output: onnx.IValueInfoProto): Uint8Array {
  const inputs = [names[0], names[1], ...(spec.tokenTypes === false ? [] : [names[2]])].map((name) => ({
    name,
    type: tensorType(I64, ['batch_size', 'sequence_length']),
  }));
  const model = onnx.ModelProto.create({
    irVersion: 8,
    producerName: 'ir-workbench-test',
    opsetImport: [{ domain: '', version: 17 }],
    graph: { name: 'encoder', node: g.nodes, initializer: g.inits, input: inputs, output: [output] },
  });
  return onnx.ModelProto.encode(model).finish();
}

const DEFAULT_INPUTS: [string, string, string] = ['input_ids', 'attention_mask', 'token_type_ids'];

/** A bi-encoder: ... -> last_hidden_state [batch, sequence, hidden]. */
export function biEncoder(spec: ModelSpec): GeneratedModel {
  const g = new GraphBuilder();
  const names = spec.inputNames ?? DEFAULT_INPUTS;
  const out = { word: new Float32Array(spec.vocab * spec.hidden), type: new Float32Array(2 * spec.hidden), hidden: spec.hidden };
  const [x, mask3] = trunk(g, spec, names, out);
  // Padded positions get padNoise added to every component: hidden + (1 - mask) * noise.
  const notMask = g.op('Sub', [g.scalar('one_out', 1), mask3]);
  const noise = g.op('Mul', [notMask, g.scalar('pad_noise', spec.padNoise ?? 5)]);
  const outName = spec.outputName ?? 'last_hidden_state';
  g.op('Add', [x, noise], [], outName);
  const bytes = finish(g, spec, names, {
    name: outName,
    type: tensorType(F, ['batch_size', 'sequence_length', spec.hidden]),
  });
  return { bytes, ...out };
}

/** A cross-encoder: ... -> logits [batch, 1] = (masked sum of hidden states) . head. */
export function crossEncoder(spec: ModelSpec): GeneratedModel {
  const g = new GraphBuilder();
  const names = spec.inputNames ?? DEFAULT_INPUTS;
  const out = { word: new Float32Array(spec.vocab * spec.hidden), type: new Float32Array(2 * spec.hidden), hidden: spec.hidden };
  const [x, mask3] = trunk(g, spec, names, out);
  const labels = spec.labels ?? 1;
  const head = randomArray(spec.hidden * labels, 1, rng((spec.seed ?? 1) + 7919));
  const pooled = g.op('ReduceSum', [g.op('Mul', [x, mask3]), g.ints('axis_seq', [1])], [intAttr('keepdims', 0)]);
  const outName = spec.outputName ?? 'logits';
  g.op('MatMul', [pooled, g.weight('head', [spec.hidden, labels], head)], [], outName);
  const bytes = finish(g, spec, names, { name: outName, type: tensorType(F, ['batch_size', labels === 1 ? 1 : 'num_labels']) });
  return { bytes, ...out, head };
}
