import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { InputError } from '../../../../../src/core/formats/errors';
import { CorpusTexts } from '../../../../../src/core/retrieval/dense/corpusTexts';
import { readCorpusTexts } from '../../../../../src/core/retrieval/dense/dataset';
import { DATASETS, needsShared } from '../../../support/paths';

const tmp = mkdtempSync(join(tmpdir(), 'irw-corpus-texts-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

describe('dense: corpus texts read back by block', () => {
  it('any block of NFCorpus gives the texts a whole read gives (CRLF, blank lines and non-ASCII included)', { skip: needsShared('datasets/nfcorpus') }, async () => {
    const lines = readFileSync(join(DATASETS, 'nfcorpus', 'corpus.jsonl'), 'utf8').split('\n').slice(0, 300);
    lines.splice(5, 0, '');
    lines[7] += '\r';
    lines[9] = lines[9].replace('"text": "', '"text": "naïve — 検索 ');
    writeFileSync(join(tmp, 'corpus.jsonl'), lines.join('\n'));
    const whole = await readCorpusTexts(tmp);
    const corpus = await CorpusTexts.scan(tmp);
    assert.deepEqual(corpus.ids, whole.ids);
    for (const [from, to] of [[0, 300], [0, 1], [5, 10], [299, 300], [17, 250], [3, 3]]) assert.deepEqual(corpus.texts(from, to), whole.texts.slice(from, to), `${from}..${to}`);
    assert.match(whole.texts[8], /naïve — 検索/);
  });

  it('a corpus changed between the scan and the read is an input error, not another document\'s text', async () => {
    writeFileSync(join(tmp, 'corpus.jsonl'), '{"_id": "a", "text": "first"}\n{"_id": "b", "text": "second"}\n');
    const corpus = await CorpusTexts.scan(tmp);
    writeFileSync(join(tmp, 'corpus.jsonl'), '{"_id": "b", "text": "second"}\n{"_id": "a", "text": "first"}\n');
    assert.throws(() => corpus.texts(0, 2), (e: unknown) => e instanceof InputError && /document "a" is no longer where it was/.test(e.message));
  });
});
