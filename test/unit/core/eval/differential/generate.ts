/**
 * Seeded random qrels and runs for the differential test against trec_eval (differential.test.ts). Small
 * inputs that stress what trips evaluators: score ties and float32 near-ties, graded, zero and negative
 * judgements, queries in only one file, long and case-differing docnos, docnos that are not UTF-8, odd
 * whitespace (TAB, VT, FF) and number formats. Changing anything here changes every case: re-record (record.ts).
 */

import { uniform } from '../../../../../src/core/random';

export interface GeneratedCase {
  qrels: Buffer;
  run: Buffer;
  /** trec_eval -Z input for the case: means and deviations for some of its queries and measures. */
  zscores: Buffer;
  /** The qrels as a -R prefs file: column 2 the judgment group, each line in sub-group a or b, some in both. */
  prefs: Buffer;
}

export function generateCase(seed: number): GeneratedCase {
  const r = uniform(seed * 2654435761 + 1); // the project's seeded generator: the same seed gives the same case
  const int = (n: number) => Math.floor(r() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];

  const qidStyles = [(i: number) => `q${i}`, (i: number) => `Q${i}`, (i: number) => String(i), (i: number) => `${i}0`];
  const nq = 1 + int(4);
  const qids = [...new Set(Array.from({ length: nq + 1 }, () => pick(qidStyles)(1 + int(12))))];
  const ws = () => pick([' ', ' ', '\t', '  ', ' \t ', '\f', ' \v']);

  const docName = (i: number): Buffer => {
    switch (int(10)) {
      case 0:
        return Buffer.from(`D${i}`); // differs from d<i> only in case
      case 1:
        return Buffer.from(`doc-${'x'.repeat(60 + int(200))}-${i}`);
      case 2:
        return Buffer.concat([Buffer.from('d'), Buffer.from([0xe9 + (i % 3) * 0x0b]), Buffer.from(String(i))]); // not UTF-8
      case 3:
        return Buffer.from(`é${i}`);
      default:
        return Buffer.from(`d${i}`);
    }
  };

  const qrelsLines: Buffer[] = [];
  const prefsLines: Buffer[] = [];
  const rp = uniform(seed * 7919 + 11); // its own stream, so the qrels and runs stay as recorded
  const runLines: Buffer[] = [];
  const tag = pick(['run', 'tag1', 'R-x']);
  const baseScores = [1, 0.5, 0.3, 0.25, 2, 10, 0.1, 3.14159];
  for (const qid of qids) {
    const poolSize = 1 + int(14);
    const docs = [...new Map(Array.from({ length: poolSize }, () => docName(int(25))).map((b) => [b.toString('latin1'), b])).values()];
    const inQrels = r() < 0.85;
    const inRun = r() < 0.85 || !inQrels;
    if (inQrels) {
      let judged = false; // trec_eval fails ("Can't calculate measure") on a query whose grades are all negative
      docs.forEach((d, k) => {
        if (r() < 0.25 && (judged || k < docs.length - 1)) return;
        const grade = k === docs.length - 1 && !judged ? pick([0, 1, 2]) : pick([0, 0, 0, 1, 1, 2, 3, 4, -1]);
        if (grade >= 0) judged = true;
        const ws1 = ws(); // drawn in the order the recorded cases were generated with
        const jg = pick(['0', 'Q0', '1']);
        qrelsLines.push(Buffer.concat([Buffer.from(`${qid}${ws1}${jg}${ws()}`), d, Buffer.from(`${ws()}${grade}\n`)]));
        // One grade per document: sub-groups never contradict each other (trec_eval aborts on a cycle).
        const jsgs = rp() < 0.3 ? ['a', 'b'] : [rp() < 0.5 ? 'a' : 'b'];
        for (const jsg of jsgs) prefsLines.push(Buffer.concat([Buffer.from(`${qid} ${jg} ${jsg} `), d, Buffer.from(` ${grade}\n`)]));
      });
    }
    if (inRun) {
      const retrieved = [...docs];
      const extra = int(6);
      for (let k = 0; k < extra; k++) retrieved.push(Buffer.from(`u${int(40)}`)); // unjudged
      const unique = [...new Map(retrieved.map((b) => [b.toString('latin1'), b])).values()];
      let prev = pick(baseScores);
      unique.forEach((d, rank) => {
        let score: number;
        const how = int(6);
        if (how === 0) score = prev; // exact tie
        else if (how === 1) score = prev + prev * 2 ** -40; // differs as a double, ties as float32
        else if (how === 2) score = Math.round(r() * 20) / 4;
        else score = prev - r();
        prev = score;
        const text = formatScore(score, int(5));
        runLines.push(Buffer.concat([Buffer.from(`${qid}${ws()}Q0${ws()}`), d, Buffer.from(`${ws()}${rank + 1}${ws()}${text}${ws()}${tag}\n`)]));
      });
    }
  }
  if (runLines.length === 0) runLines.push(Buffer.from(`${qids[0]} Q0 d0 1 1 ${tag}\n`));
  if (qrelsLines.length === 0) qrelsLines.push(Buffer.from(`${qids[0]} 0 d0 1\n`));
  shuffleSome(runLines, r);
  if (prefsLines.length === 0) prefsLines.push(Buffer.from(`${qids[0]} 0 a d0 1\n`));
  return { qrels: Buffer.concat(qrelsLines), run: Buffer.concat(runLines), zscores: zscoresFor(seed, qids), prefs: Buffer.concat(prefsLines) };
}

/**
 * Some queries (not all: a missing one prints -1000000) with some measures each, deviations 0 included.
 * Each query ends with a measure that sorts last and the file with a query that sorts last: trec_eval's
 * binary search reads one entry past the end, which past the last one is garbage memory.
 */
function zscoresFor(seed: number, qids: string[]): Buffer {
  const r = uniform(seed * 40503 + 7);
  const names = ['num_ret', 'num_rel', 'map', 'P_1', 'P_5', 'bpref', 'ndcg', 'recip_rank', 'Rprec', 'set_F', 'yaap', 'ndcg_cut_3', 'gm_map'];
  const lines: string[] = [];
  for (const qid of [...qids, 'zzzz']) {
    if (r() < 0.2 && qid !== 'zzzz') continue;
    for (const name of names) {
      if (r() < 0.3) continue;
      const mean = Math.round(r() * 100) / 100;
      const stddev = r() < 0.2 ? 0 : Math.round(r() * 50) / 100;
      lines.push(`${qid}\t${name}\t${mean}\t${stddev}\n`);
    }
    lines.push(`${qid} zzz 0 1\n`);
  }
  return Buffer.from(lines.join(''));
}

/** Number formats trec_eval's atof reads: plain, exponent, leading '+', many digits. */
function formatScore(x: number, style: number): string {
  switch (style) {
    case 0:
      return x.toExponential(6);
    case 1:
      return x >= 0 ? `+${x}` : String(x);
    case 2:
      return x.toPrecision(17);
    default:
      return String(x);
  }
}

/** Runs are often but not always in score order; trec_eval sorts them anyway. */
function shuffleSome(lines: Buffer[], r: () => number): void {
  if (r() < 0.5) return;
  for (let i = lines.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [lines[i], lines[j]] = [lines[j], lines[i]];
  }
}

/** Stands for the case's z-scores file in an option set. */
export const ZSCORES = '<zscores>';

/** trec_eval command-line option sets each case is evaluated with (always with -q). */
export const OPTION_SETS: readonly (readonly string[])[] = [
  [],
  ['-c'],
  ['-l', '2'],
  ['-M', '3'],
  ['-c', '-M', '5', '-l', '2', '-N', '50'],
  ['-J'],
  ['-J', '-c', '-M', '4', '-n'],
  ['-Z', ZSCORES, '-c'],
];

/** Option sets of the preference suite (-R qrels_prefs: grades ordered within each judgment group). */
export const PREFS_OPTION_SETS: readonly (readonly string[])[] = [
  ['-R', 'qrels_prefs'],
  ['-R', 'qrels_prefs', '-c', '-M', '5'],
];

/** Option sets of the preference-file suite (-R prefs, with sub-groups). */
export const PREFS_FILE_OPTION_SETS: readonly (readonly string[])[] = [
  ['-R', 'prefs'],
  ['-R', 'prefs', '-c', '-M', '4'],
];

/** Option sets of the judgment-group suite: the second qrels column ('0', 'Q0', '1') names the group. */
export const JG_OPTION_SETS: readonly (readonly string[])[] = [
  ['-R', 'qrels_jg'],
  ['-R', 'qrels_jg', '-c', '-l', '2'],
  ['-R', 'qrels_jg', '-J', '-M', '4'],
];

/** Parameterised measures beside all_trec's defaults (trec_eval -m syntax). */
export const PARAM_MEASURES = ['P.1,2,3', 'ndcg_cut.1,3', 'ndcg.1=1,2=3,3=10', 'success.2', 'set_F.0.5', 'map_cut.2,4', 'recall.2,4', 'Rprec_mult.0.5,1.5', 'iprec_at_recall.0.25', '11pt_avg.0.2,0.5,0.8', 'utility.1,-1,2,0.5'];

/** trec_eval 10's parameterised measures: rbp's persistence, and gains that leave [0, 1] (rescaled). */
export const PARAM_MEASURES_10 = ['rbp.p=0.8,2=-1,3=5', 'rbp_resid.p=0.7'];
