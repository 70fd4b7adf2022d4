import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { join } from 'node:path';
import fc from 'fast-check';
import { forEachCorpusDocSync } from '../../../../../src/core/formats/beir';
import { createAnalyzer, type Analyzer } from '../../../../../src/core/retrieval/analysis/analyzer';
import { IndexBuilder, type BlockLayout, type Bm25Index, type FieldsMode } from '../../../../../src/core/retrieval/bm25/index';
import { intToByte4 } from '../../../../../src/core/retrieval/bm25/smallFloat';

import { DATASETS, needsShared } from '../../../support/paths';

// Packed entries everywhere (the default); wide entries everywhere; packed blocks then wide ones, with blocks
// of a few entries so that documents cross from one layout to the other.
const LAYOUTS: (BlockLayout | undefined)[] = [undefined, { blockEntries: 5, packedTerms: 0 }, { blockEntries: 8, packedTerms: 40 }];

function build(an: Analyzer, docs: [string, string, string][], mode: FieldsMode, layout?: BlockLayout): Bm25Index {
  const b = new IndexBuilder(an, mode, layout);
  for (const [id, title, text] of docs) b.add(id, title, text);
  return b.finish();
}

/** The postings as a naive builder makes them: term -> [doc, tf] pairs in document order, and the norms. */
function naive(an: Analyzer, docs: [string, string, string][]) {
  const postings = new Map<string, [number, number][]>();
  const norms: number[] = [];
  docs.forEach(([, title, text], d) => {
    const terms = an.analyze(title ? `${title} ${text}` : text);
    norms.push(intToByte4(terms.length));
    const tf = new Map<string, number>();
    for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [t, n] of tf) postings.set(t, [...(postings.get(t) ?? []), [d, n]]);
  });
  return { postings, norms };
}

function postingsOf(index: Bm25Index) {
  const f = index.fieldIndexes[0];
  const out = new Map<string, [number, number][]>();
  f.terms.forEach((t, i) => {
    const list: [number, number][] = [];
    for (let p = f.offsets[i]; p < f.offsets[i + 1]; p++) list.push([f.docs[p], f.tfs[p]]);
    out.set(t, list);
  });
  return { postings: out, norms: Array.from(f.norms) };
}

describe('index builder: packed and wide forward blocks give the same index', () => {
  let an: Analyzer;
  before(async () => {
    an = await createAnalyzer();
  });

  it('property: random corpora, frequencies past 255 and 65,535 included, equal a naive build in every layout', () => {
    const word = fc.constantFrom('apple', 'pear', 'plum', 'fig', 'kiwi', 'lime', 'date', 'grape', 'melon', 'berry');
    const text = fc.oneof(
      fc.array(word, { maxLength: 12 }).map((ws) => ws.join(' ')),
      fc.tuple(word, fc.constantFrom(254, 255, 256, 300, 65_535, 65_536, 70_000)).map(([w, n]) => `${w} ${`${w} `.repeat(n - 1)}pear`),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('', 'fig', 'plum date'), text), { minLength: 1, maxLength: 12 }), (rows) => {
        const docs = rows.map(([title, body], i): [string, string, string] => [`d${i}`, title, body]);
        const expected = naive(an, docs);
        for (const layout of LAYOUTS) {
          const index = build(an, docs, 'flat', layout);
          assert.deepEqual(postingsOf(index), expected, JSON.stringify(layout));
          const widest = Math.max(0, ...[...expected.postings.values()].flat().map(([, tf]) => tf));
          assert.equal(index.fieldIndexes[0].tfs.BYTES_PER_ELEMENT, widest > 65_535 ? 4 : widest > 255 ? 2 : 1);
        }
      }),
      { numRuns: 40 },
    );
  });

  it('NFCorpus, flat and multifield: every layout builds the identical index', { skip: needsShared('datasets/nfcorpus') }, () => {
    const docs: [string, string, string][] = [];
    forEachCorpusDocSync(join(DATASETS, 'nfcorpus', 'corpus.jsonl'), (d) => docs.push([d.id, d.title, d.text]));
    for (const mode of ['flat', 'multifield'] as const) {
      const reference = build(an, docs, mode);
      for (const layout of [{ blockEntries: 1000, packedTerms: 0 }, { blockEntries: 4096, packedTerms: 20_000 }]) {
        assert.deepEqual(build(an, docs, mode, layout), reference, `${mode} ${JSON.stringify(layout)}`);
      }
    }
  });
});
