import type { Tokenizer } from '@huggingface/tokenizers' with { 'resolution-mode': 'import' };
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../../formats/errors';

/**
 * Tokenization for transformer encoders, on top of Hugging Face's tokenizers.js (the WordPiece / BPE / Unigram
 * algorithms, normalizers and templates are the library's). What this module adds is what that library leaves
 * out: truncation to the model's maximum length (the Rust library's LongestFirst rule, so pairs are cut as
 * sentence-transformers cuts them), token_type_ids from the template, and padding a batch into the int64
 * tensors an ONNX encoder takes.
 */

// The package is an ES module with a CommonJS build; its types are declared for the ESM entry only.
type TokenizersModule = typeof import('@huggingface/tokenizers', { with: { 'resolution-mode': 'import' } });
let tokenizersModule: TokenizersModule | undefined;
/** Loaded on first use, so a BM25 run or an evaluation does not load it at start-up. */
function tokenizers(): TokenizersModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (tokenizersModule ??= require('@huggingface/tokenizers') as TokenizersModule);
}

/** A padded batch, row-major [batch, seqLen], ready to become ONNX int64 tensors. */
export interface TokenBatch {
  batch: number;
  seqLen: number;
  inputIds: BigInt64Array;
  attentionMask: BigInt64Array;
  tokenTypeIds: BigInt64Array;
  /** Unpadded length of each row (the attention mask is 1 on exactly the first lengths[r] positions). */
  lengths: Int32Array;
}

/** One encoded text (or pair) before padding. */
export interface Encoded {
  ids: number[];
  typeIds: number[];
}

export class TextTokenizer {
  private readonly unkId: number;
  private readonly padId: number;
  private readonly specialsSingle: number;
  private readonly specialsPair: number;

  constructor(
    private readonly tk: Tokenizer,
    /** Longest sequence, special tokens included (sentence-transformers' max_seq_length). */
    readonly maxLength: number,
    padToken: string,
    unkToken: string,
  ) {
    this.padId = tk.token_to_id(padToken) ?? 0;
    this.unkId = tk.token_to_id(unkToken) ?? this.padId;
    this.specialsSingle = this.template([], null).ids.length;
    this.specialsPair = this.template([], []).ids.length;
  }

  /** Special tokens around one text, or around a pair: the length must leave room for at least one token of text. */
  specials(pairs: boolean): number {
    return pairs ? this.specialsPair : this.specialsSingle;
  }

  /** Word pieces of `text` without special tokens, as ids. */
  pieces(text: string): number[] {
    const tokens = this.tk.tokenize(text);
    const ids = new Array<number>(tokens.length);
    for (let i = 0; i < tokens.length; i++) ids[i] = this.tk.token_to_id(tokens[i]) ?? this.unkId;
    return ids;
  }

  /** `[CLS] a [SEP]` or `[CLS] a [SEP] b [SEP]` (whatever the model's template says), truncated to maxLength. */
  encode(text: string, pair?: string): Encoded {
    return this.encodePieces(this.pieces(text), pair === undefined ? undefined : this.pieces(pair));
  }

  /** As encode(), from word pieces already computed (a re-ranker tokenizes each query and document once). */
  encodePieces(a: number[], b?: number[]): Encoded {
    if (b === undefined) {
      const room = this.maxLength - this.specialsSingle;
      return this.template(a.length > room ? a.slice(0, room) : a, null);
    }
    const [n1, n2] = longestFirst(a.length, b.length, this.maxLength - this.specialsPair);
    return this.template(n1 < a.length ? a.slice(0, n1) : a, n2 < b.length ? b.slice(0, n2) : b);
  }

  /** Encodes and pads to the longest member of the batch (dynamic padding, as sentence-transformers does). */
  encodeBatch(texts: readonly string[], pairs?: readonly string[]): TokenBatch {
    return pad(
      texts.map((t, i) => this.encode(t, pairs?.[i])),
      this.padId,
    );
  }

  /** encodeBatch() from word pieces. */
  encodePiecesBatch(a: readonly number[][], b: readonly number[][]): TokenBatch {
    return pad(
      a.map((x, i) => this.encodePieces(x, b[i])),
      this.padId,
    );
  }

  private template(a: number[], b: number[] | null): Encoded {
    const pp = this.tk.post_processor;
    if (!pp) {
      const ids = b ? a.concat(b) : a;
      return { ids, typeIds: ids.map((_, i) => (i < a.length ? 0 : 1)) };
    }
    // The library's templates work on token strings; ids travel through as placeholders and specials come
    // back as strings, which are looked up in the vocabulary.
    const out = pp.post_process(a as unknown as string[], b as unknown as string[] | null, true);
    const tokens = out.tokens as unknown as (string | number)[];
    const ids = tokens.map((t) => (typeof t === 'number' ? t : (this.tk.token_to_id(t) ?? this.unkId)));
    const typeIds = out.token_type_ids ?? ids.map(() => 0);
    return { ids, typeIds };
  }
}

/**
 * How many pieces of each text of a pair to keep so that n1 + n2 <= room: the shorter one is kept whole when
 * it fits in half the room; otherwise both get half (the first the floor). The rule of the Rust tokenizers'
 * LongestFirst strategy, which sentence-transformers' cross-encoders use.
 */
export function longestFirst(len1: number, len2: number, room: number): [number, number] {
  if (len1 + len2 <= room) return [len1, len2];
  const swap = len1 > len2;
  let n1 = swap ? len2 : len1;
  let n2 = n1 > room ? n1 : Math.max(n1, room - n1);
  if (n1 + n2 > room) {
    n1 = Math.floor(room / 2);
    n2 = n1 + (room % 2);
  }
  const short = Math.min(n1, swap ? len2 : len1);
  const long = Math.min(n2, swap ? len1 : len2);
  return swap ? [long, short] : [short, long];
}

export function pad(encoded: readonly Encoded[], padId: number): TokenBatch {
  const batch = encoded.length;
  let seqLen = 1;
  for (const e of encoded) if (e.ids.length > seqLen) seqLen = e.ids.length;
  const n = batch * seqLen;
  // The int64 tensors are filled through 32-bit views of their low words (ids are small and non-negative;
  // the high words stay 0): no BigInt is made per token.
  const ids = new Int32Array(2 * n);
  const mask = new Int32Array(2 * n);
  const types = new Int32Array(2 * n);
  const lengths = new Int32Array(batch);
  const lo = LITTLE_ENDIAN ? 0 : 1;
  if (padId !== 0) for (let i = 0; i < n; i++) ids[2 * i + lo] = padId;
  for (let r = 0; r < batch; r++) {
    const e = encoded[r];
    const base = 2 * r * seqLen + lo;
    lengths[r] = e.ids.length;
    for (let j = 0; j < e.ids.length; j++) {
      ids[base + 2 * j] = e.ids[j];
      mask[base + 2 * j] = 1;
      types[base + 2 * j] = e.typeIds[j];
    }
  }
  return {
    batch,
    seqLen,
    inputIds: new BigInt64Array(ids.buffer),
    attentionMask: new BigInt64Array(mask.buffer),
    tokenTypeIds: new BigInt64Array(types.buffer),
    lengths,
  };
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

interface TokenizerConfig {
  do_lower_case?: boolean;
  strip_accents?: boolean | null;
  tokenize_chinese_chars?: boolean;
  model_max_length?: number;
  pad_token?: string;
  unk_token?: string;
  cls_token?: string;
  sep_token?: string;
  [key: string]: unknown;
}

/**
 * Loads the tokenizer of a model folder: tokenizer.json when present (any model type tokenizers.js knows),
 * else a BERT WordPiece tokenizer assembled from vocab.txt and tokenizer_config.json (lowercasing as
 * do_lower_case says, default true as in BertTokenizer). A `maxLength` that leaves no room for text beside
 * the special tokens (of one text, or of a pair with `pairs`) is refused naming `lengthSource`.
 */
export function loadTokenizer(dir: string, maxLength: number, pairs = false, lengthSource = 'maxLength'): TextTokenizer {
  const configPath = join(dir, 'tokenizer_config.json');
  const config: TokenizerConfig = existsSync(configPath) ? readJson(configPath) : {};
  const jsonPath = join(dir, 'tokenizer.json');
  const vocabPath = join(dir, 'vocab.txt');
  let spec: Record<string, unknown>;
  if (existsSync(jsonPath)) spec = readJson(jsonPath);
  else if (existsSync(vocabPath)) spec = wordPieceSpec(vocabPath, config);
  else {
    throw new InputError({
      code: 'unreadable',
      message: 'no tokenizer: the model folder has neither tokenizer.json nor vocab.txt',
      file: dir,
      hint: "Copy the model's tokenizer.json (or its vocab.txt and tokenizer_config.json) into the folder.",
    });
  }
  const tk = new (tokenizers().Tokenizer)(spec, config);
  const tokenizer = new TextTokenizer(tk, maxLength, config.pad_token ?? '[PAD]', config.unk_token ?? '[UNK]');
  const specials = tokenizer.specials(pairs);
  if (maxLength <= specials) {
    throw new InputError({
      code: 'malformed',
      message: `maxLength ${maxLength} (${lengthSource}) leaves no room for text: the tokenizer adds ${specials} special tokens to ${pairs ? 'a query-document pair' : 'each text'}`,
      file: dir,
      hint: `Set maxLength above ${specials} (sentence-transformers models use 128 to 512).`,
    });
  }
  return tokenizer;
}

function wordPieceSpec(vocabPath: string, config: TokenizerConfig): Record<string, unknown> {
  const lines = readFileSync(vocabPath, 'utf8').split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  const vocab: Record<string, number> = {};
  lines.forEach((token, id) => {
    if (!(token in vocab)) vocab[token] = id;
  });
  const special = (name: string, fallback: string): { content: string; id: number } => {
    const content = (config[name] as string | undefined) ?? fallback;
    const id = vocab[content];
    if (id === undefined) {
      throw new InputError({
        code: 'malformed',
        message: `special token ${content} (${name}) is not in the vocabulary`,
        file: vocabPath,
        hint: 'Use the vocab.txt that belongs to the model, or add tokenizer.json to the folder.',
      });
    }
    return { content, id };
  };
  const cls = special('cls_token', '[CLS]');
  const sep = special('sep_token', '[SEP]');
  const unk = special('unk_token', '[UNK]');
  const specials = [special('pad_token', '[PAD]'), unk, cls, sep];
  if ('[MASK]' in vocab) specials.push({ content: '[MASK]', id: vocab['[MASK]'] });
  const lowercase = config.do_lower_case ?? true;
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: specials.map((s) => ({
      ...s,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: config.tokenize_chinese_chars ?? true,
      strip_accents: config.strip_accents ?? null,
      lowercase,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [
        { SpecialToken: { id: cls.content, type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: sep.content, type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: cls.content, type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: sep.content, type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: sep.content, type_id: 1 } },
      ],
      special_tokens: {
        [cls.content]: { id: cls.content, ids: [cls.id], tokens: [cls.content] },
        [sep.content]: { id: sep.content, ids: [sep.id], tokens: [sep.content] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: unk.content,
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab,
    },
  };
}

function readJson<T>(path: string): T {
  const text = readFileSync(path, 'utf8');
  try {
    return JSON.parse(text) as T;
  } catch (e) {
    throw new InputError({
      code: 'malformed',
      message: `not valid JSON: ${(e as Error).message}`,
      file: path,
      hint: 'Replace the file with the original from the model repository.',
    });
  }
}
