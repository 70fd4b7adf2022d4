import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MAX_TOKEN_LENGTH, words } from '../../../../../src/core/retrieval/analysis/tokenizer';
import { ENGLISH_STOP_WORDS, createAnalyzer, stripPossessive, type Analyzer } from '../../../../../src/core/retrieval/analysis/analyzer';

describe('tokenizer (UAX#29 words, as Lucene StandardTokenizer)', () => {
  const cases: [string, string[]][] = [
    ['Hello, world!', ['Hello', 'world']],
    ['state-of-the-art COVID-19', ['state', 'of', 'the', 'art', 'COVID', '19']],
    ['p53 and IL-6 in 3T3 cells', ['p53', 'and', 'IL', '6', 'in', '3T3', 'cells']],
    ['3.14 1,000,000 and 2.5% (n=12)', ['3.14', '1,000,000', 'and', '2.5', 'n', '12']],
    ["don't O'Neil's rock'n'roll", ["don't", "O'Neil's", "rock'n'roll"]],
    ['the cell\u2019s wall', ['the', 'cell\u2019s', 'wall']],
    ['e.g. U.S.A. end.Next', ['e.g', 'U.S.A', 'end.Next']],
    ['a:b 10:30', ['a:b', '10', '30']],
    ["'quoted' ...dots... trailing' 'leading", ['quoted', 'dots', 'trailing', 'leading']],
    ['snake_case __init__ _', ['snake_case', '__init__']],
    ['naïve café Ærø straße', ['naïve', 'café', 'Ærø', 'straße']],
    ['cafe\u0301 co\u00adoperate', ['cafe\u0301', 'co\u00adoperate']],
    ['workers.\u200bworkers', ['workers', 'workers']],
    ['α-synuclein β2 Москва العربية', ['α', 'synuclein', 'β2', 'Москва', 'العربية']],
    ['中文文本 ひらがな カタカナ', ['中', '文', '文', '本', 'ひ', 'ら', 'が', 'な', 'カタカナ']],
    ['ภาษาไทย', ['ภาษาไทย']],
    ['emoji 😀 here 𝐀𝐁', ['emoji', 'here', '𝐀𝐁']],
    ['', []],
    ['  \t\n ', []],
  ];
  for (const [text, expected] of cases) {
    it(JSON.stringify(text), () => assert.deepEqual(words(text), expected));
  }

  it(`splits tokens longer than ${MAX_TOKEN_LENGTH} code units into pieces, as Lucene's maxTokenLength`, () => {
    const long = 'a'.repeat(600);
    assert.deepEqual(words(`x ${long} y`), ['x', 'a'.repeat(255), 'a'.repeat(255), 'a'.repeat(90), 'y']);
  });

  it('tokens are non-empty windows of the text that contain no whitespace (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (s) => {
        for (const w of words(s)) {
          assert.ok(w.length > 0 && w.length <= MAX_TOKEN_LENGTH);
          assert.ok(!/\s/.test(w));
          assert.ok(s.includes(w));
        }
      }),
    );
  });
});

describe('analyzer (possessive, lowercase, stopwords, Porter)', () => {
  let an: Analyzer;
  before(async () => {
    an = await createAnalyzer();
  });

  it("Lucene's 33 English stopwords", () => {
    assert.equal(ENGLISH_STOP_WORDS.size, 33);
    assert.deepEqual(an.analyze('The cat IS on the mat, and it was not there'), ['cat', 'mat']);
  });

  it('possessives go before lowercasing and stemming', () => {
    assert.equal(stripPossessive("John's"), 'John');
    assert.equal(stripPossessive('CELL\u2019S'), 'CELL');
    assert.equal(stripPossessive("its'"), "its'");
    // The tokenizer already drops a trailing apostrophe (plural possessive): patients' -> patients -> patient.
    assert.deepEqual(an.analyze("Alzheimer's patients' brains"), ['alzheim', 'patient', 'brain']);
  });

  // Outputs of Lucene's PorterStemmer (the C-version departures included: -logi -> -log, -bli -> -ble).
  // Checked offline: the `stemmer` package agrees with Lucene's PorterStemmer on 51,762 of the 51,763 distinct
  // words of SciFact and NFCorpus (the exception is the word "eed").
  const pairs: [string, string][] = [
    ['caresses', 'caress'], ['ponies', 'poni'], ['ties', 'ti'], ['cats', 'cat'], ['feed', 'feed'],
    ['agreed', 'agre'], ['plastered', 'plaster'], ['motoring', 'motor'], ['sing', 'sing'], ['conflated', 'conflat'],
    ['hopping', 'hop'], ['falling', 'fall'], ['hissing', 'hiss'], ['filing', 'file'], ['happy', 'happi'],
    ['sky', 'sky'], ['relational', 'relat'], ['conditional', 'condit'], ['digitizer', 'digit'],
    ['operator', 'oper'], ['hopefulness', 'hope'], ['sensibility', 'sensibl'], ['electrical', 'electr'],
    ['allowance', 'allow'], ['adjustment', 'adjust'], ['adoption', 'adopt'], ['effective', 'effect'],
    ['generalizations', 'gener'], ['oscillators', 'oscil'], ['archaeology', 'archaeolog'], ['possibly', 'possibl'],
    ['playing', 'plai'], ['yearly', 'yearli'], ['studies', 'studi'], ['proteins', 'protein'], ['us', 'us'],
  ];
  it('Porter stems as Lucene does on known pairs', () => {
    for (const [w, s] of pairs) assert.equal(an.term(w), s, w);
  });

  it('accented and non-Latin words are lowercased and kept', () => {
    assert.deepEqual(an.analyze('CAFÉ Москва ΑΒΓ'), ['café', 'москва', 'αβγ']);
  });

  it('numbers are kept as written; an empty text gives no terms', () => {
    assert.deepEqual(an.analyze('1,000 cases in 2019'), ['1,000', 'case', '2019']);
    assert.deepEqual(an.analyze(''), []);
  });

  it('term ids are stable and shared by equal analysed terms', () => {
    const ids = Array.from(an.ids.subarray(0, an.termIds('Running runs RUNNING')));
    assert.equal(ids.length, 3);
    assert.equal(ids[0], ids[2]);
    assert.equal(an.terms[ids[0]], 'run');
    assert.equal(an.terms[ids[1]], 'run');
  });

  it('the surface-form table gives the same terms as analysing each token afresh (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('Cell', "cell's", 'CELLS', 'the', 'a', 'Ünïcode', '42', 'x_y', 'run', 'running'), { maxLength: 30 }), (toks) => {
        const text = toks.join(' ');
        const expected = words(text).map((w) => an.term(w)).filter((t): t is string => t !== null);
        assert.deepEqual(an.analyze(text), expected);
      }),
    );
  });
});
