import { InputError } from '../../formats/errors';
import { runBatched, type BatchOptions, type EncodeHooks } from '../dense/encoder';
import { readModelFolder, type ModelFolder } from '../dense/modelFolder';
import { EncoderSession, type SessionOptions } from '../dense/session';
import { loadTokenizer, type TextTokenizer } from '../dense/tokenizer';

/**
 * A cross-encoder: scores (query, document) pairs jointly, `[CLS] query [SEP] document [SEP]` truncated
 * longest-first to the model's maximum length, as sentence-transformers' CrossEncoder does. The score is the
 * raw relevance logit (a sigmoid on top would not change any ranking).
 */
export class CrossEncoder {
  private constructor(
    readonly folder: ModelFolder,
    private readonly tokenizer: TextTokenizer,
    private readonly session: EncoderSession,
  ) {}

  static async open(dir: string, opts: SessionOptions = {}): Promise<CrossEncoder> {
    const folder = readModelFolder(dir, 'cross-encoder');
    const tokenizer = loadTokenizer(folder.dir, folder.config.maxLength, true, folder.sources.maxLength);
    const session = await EncoderSession.open(folder.modelPath, 'cross-encoder', opts);
    return new CrossEncoder(folder, tokenizer, session);
  }

  /**
   * One score per pair (queries[pairQ[i]], docs[pairD[i]]). Each query and document is tokenized once, however
   * many pairs it is in.
   */
  async score(
    queries: readonly string[],
    docs: readonly string[],
    pairQ: Int32Array,
    pairD: Int32Array,
    opts: BatchOptions,
    hooks: EncodeHooks = {},
  ): Promise<Float32Array> {
    const scores = new Float32Array(pairQ.length);
    const qPieces: number[][] = [];
    const dPieces: number[][] = [];
    const q = (i: number) => (qPieces[i] ??= this.tokenizer.pieces(queries[i]));
    const d = (i: number) => (dPieces[i] ??= this.tokenizer.pieces(docs[i]));
    await runBatched(
      pairQ.length,
      (i) => queries[pairQ[i]].length + docs[pairD[i]].length,
      opts,
      hooks,
      (rows) =>
        this.tokenizer.encodePiecesBatch(
          Array.from(rows, (i) => q(pairQ[i])),
          Array.from(rows, (i) => d(pairD[i])),
        ),
      this.session,
      (out, batch, rows) => {
        if (out.dims.length !== 2 || out.dims[0] !== batch.batch || out.dims[1] !== 1) {
          throw new InputError({
            code: 'malformed',
            message: `the model returned logits of shape [${out.dims.join(', ')}], not [${batch.batch}, 1]: it is not a one-logit re-ranker`,
            file: this.folder.modelPath,
            hint: 'Use a cross-encoder exported with a single relevance logit (e.g. cross-encoder/ms-marco-MiniLM-L-6-v2).',
          });
        }
        for (let r = 0; r < batch.batch; r++) scores[rows[r]] = out.data[r];
      },
    );
    return scores;
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}
