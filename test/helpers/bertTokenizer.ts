/**
 * The bert-base-uncased WordPiece tokenizer folder the neural tests use, from what the repository holds:
 * test/data/bert-base-uncased (vocab.txt and the two small configs, Apache-2.0, see its README) plus the
 * tokenizer.json that the Hugging Face tokenizers library writes for them, generated here from vocab.txt.
 * tokenizer.test.ts checks the generated file against the real one where ../shared/tokenizers has it.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const BERT_DATA = join(__dirname, '..', 'data', 'bert-base-uncased');
const FILES = ['vocab.txt', 'tokenizer_config.json', 'special_tokens_map.json'];

const SPECIAL = [['[PAD]', 0], ['[UNK]', 100], ['[CLS]', 101], ['[SEP]', 102], ['[MASK]', 103]] as const;

/** tokenizer.json of all-MiniLM-L6-v2 (bert-base-uncased WordPiece), as an object, for this vocabulary. */
export function bertTokenizerJson(vocab: readonly string[]): object {
  return {
    version: '1.0',
    truncation: { direction: 'Right', max_length: 128, strategy: 'LongestFirst', stride: 0 },
    padding: { strategy: { Fixed: 128 }, direction: 'Right', pad_to_multiple_of: null, pad_id: 0, pad_type_id: 0, pad_token: '[PAD]' },
    added_tokens: SPECIAL.map(([content, id]) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [101], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [102], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(vocab.map((token, id) => [token, id])),
    },
  };
}

/** vocab.txt's tokens, one a line, by id. */
export function readVocab(path: string): string[] {
  return readFileSync(path, 'utf8').replace(/\n$/, '').split('\n');
}

let folder: string | undefined;

/**
 * A folder with vocab.txt, tokenizer.json, tokenizer_config.json and special_tokens_map.json: written once per
 * vocabulary into the temporary directory (built beside it and renamed into place, so test files running in
 * parallel never see half of it).
 */
export function bertTokenizerDir(): string {
  if (folder) return folder;
  const vocabText = readFileSync(join(BERT_DATA, 'vocab.txt'));
  const dir = join(tmpdir(), `irw-bert-base-uncased-${createHash('sha256').update(vocabText).digest('hex').slice(0, 12)}`);
  if (!existsSync(dir)) {
    const tmp = mkdtempSync(`${dir}-`);
    for (const f of FILES) copyFileSync(join(BERT_DATA, f), join(tmp, f));
    writeFileSync(join(tmp, 'tokenizer.json'), JSON.stringify(bertTokenizerJson(readVocab(join(BERT_DATA, 'vocab.txt'))), null, 2));
    try {
      renameSync(tmp, dir);
    } catch {
      rmSync(tmp, { recursive: true, force: true }); // another process put its copy there first
    }
  }
  return (folder = dir);
}
