import { InputError } from '../formats/errors';
import { compareBytes, decodeId } from '../formats/idTable';
import { forEachLineSync, quotable, splitFields } from '../formats/lines';

/**
 * trec_eval -R qrels_prefs (get_qrels_prefs.c, form_prefs_counts.c): qrels read as preferences. Column 2 names
 * the judgment group (JG); within a group every document of a higher grade is preferred to every document of
 * a lower one (one sub-group: trec_eval's "equivalence class" path). Grades are read as C floats; a grade
 * > 0 is relevant. Counts per group of preferences fulfilled and possible, among retrieved documents ("ret"),
 * with exactly one retrieved ("imp"), and with neither ("notoccur"), feed the prefs_* measures.
 */
export interface PrefJudgement {
  jg: string;
  /** Judgment sub-group (-R prefs); '0' for qrels_prefs. */
  jsg: string;
  docno: string;
  relLevel: number;
}

export class PrefsQrels {
  constructor(private readonly byQuery: Map<string, PrefJudgement[]>) {}

  queryIds(): readonly string[] {
    return [...this.byQuery.keys()].sort(compareBytes);
  }

  judgements(qid: string): readonly PrefJudgement[] | undefined {
    return this.byQuery.get(qid);
  }
}

/** Reads qrels as preferences ("qid jg docid grade"; the grade may be fractional, as atof reads it). */
export function readQrelsPrefs(path: string): PrefsQrels {
  return readPrefLines(path, ['qid', 'judgment-group', 'docid', 'grade'], 'qrels_prefs', (id) => ({ jg: id(1), jsg: '0', docno: id(2) }));
}

/**
 * Reads trec_eval's preference format (-R prefs, get_prefs.c): "qid jg jsg docid rel_level". Within a
 * judgment sub-group (jsg) a higher rel_level is preferred; a group with several sub-groups combines their
 * preferences transitively.
 */
export function readPrefs(path: string): PrefsQrels {
  return readPrefLines(path, ['qid', 'judgment-group', 'sub-group', 'docid', 'rel_level'], 'prefs', (id) => ({ jg: id(1), jsg: id(2), docno: id(3) }));
}

/**
 * The two preference formats' one reader: `columns` names them (the first is the query id, the last the
 * level, a number as atof reads it, kept as a C float); `ids` picks the other fields by column index.
 */
function readPrefLines(
  path: string,
  columns: readonly string[],
  format: string,
  ids: (id: (column: number) => string) => Omit<PrefJudgement, 'relLevel'>,
): PrefsQrels {
  const byQuery = new Map<string, PrefJudgement[]>();
  const f: number[] = [];
  const n0 = columns.length;
  const level = columns[n0 - 1];
  forEachLineSync(path, (buf, start, end, lineNo) => {
    const n = splitFields(buf, start, end, f);
    if (n === 0 || buf[f[0]] === 35 /* # */) return;
    const bad = (message: string) =>
      new InputError({ code: n === n0 ? 'not-a-number' : 'malformed', message, file: path, line: lineNo, text: quotable(buf, start, end), hint: `A ${format} line is "${columns.join(' ')}".` });
    if (n !== n0) throw bad(`expected ${n0} columns (${columns.join(' ')}), found ${n}`);
    const t = buf.toString('latin1', f[2 * n0 - 2], f[2 * n0 - 1]);
    if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) throw bad(`${level} '${t}' is not a number`);
    const qid = decodeId(buf, f[0], f[1]);
    let list = byQuery.get(qid);
    if (!list) byQuery.set(qid, (list = []));
    list.push({ ...ids((c) => decodeId(buf, f[2 * c], f[2 * c + 1])), relLevel: Math.fround(Number(t)) });
  });
  return new PrefsQrels(byQuery);
}

export interface JudgmentGroupCounts {
  fulfilledRet: number;
  possibleRet: number;
  fulfilledImp: number;
  possibleImp: number;
  possibleNotOccur: number;
  numRel: number;
  numRelRet: number;
  numNonrel: number;
  numNonrelRet: number;
  /** Equivalence classes, highest grade first, each the docid ranks of its documents in ascending order (empty for a group with sub-groups). */
  classes: { relLevel: number; ranks: number[]; start: number }[];
  /** A group with sub-groups: prefers[i * numJudged + j] = 1 if docid rank i is preferred to j (transitively). */
  prefers?: Uint8Array;
  /** With prefers: each docid rank's rel_level in this group, -1 where the group does not judge it. */
  relArray?: Float32Array;
}

export interface QueryPrefs {
  groups: JudgmentGroupCounts[];
  /** Documents judged in any group; docid ranks 0..numJudgedRet-1 are the retrieved ones in rank order. */
  numJudged: number;
  numJudgedRet: number;
  /** counts[i * numJudged + j]: how many groups prefer docid rank i to j. */
  counts: Uint16Array;
  /**
   * trec_eval's rank array after this query: every class's ranks, group after group (classes[].start), then
   * what earlier queries left in the rest of the allocation (0 where nothing was written).
   */
  pool: number[];
}

/**
 * trec_eval keeps the rank array of form_prefs_counts from query to query and grows it (to its old size plus
 * the need, fresh) only when a query has more judgements than it holds; prefs_avgjg_Rnonrel can read past a
 * query's own ranks into what is left there. One per evaluation, fed the queries in trec_eval's order.
 */
export class RankPool {
  private values: number[] = [];

  place(ranks: readonly number[]): number[] {
    if (ranks.length > this.values.length) this.values = new Array<number>(this.values.length + ranks.length).fill(0);
    for (let i = 0; i < ranks.length; i++) this.values[i] = ranks[i];
    return this.values.slice();
  }
}

/**
 * form_prefs_counts for one query: `ranked` are the retrieved docnos in trec_eval's prefs order (score
 * descending, ties by docno ascending, cut at -M).
 */
export function prefsCounts(judgements: readonly PrefJudgement[], ranked: readonly string[], rankPool = new RankPool()): QueryPrefs {
  const judged = new Set(judgements.map((j) => j.docno));
  const rank = new Map<string, number>();
  for (const d of ranked) if (judged.has(d) && !rank.has(d)) rank.set(d, rank.size);
  const numJudgedRet = rank.size;
  // Judged documents not retrieved get the next ranks in docno order.
  for (const d of [...judged].sort(compareBytes)) if (!rank.has(d)) rank.set(d, rank.size);
  const numJudged = rank.size;
  const prefs = judgements
    .map((j) => ({ ...j, rank: rank.get(j.docno)! }))
    .sort((a, b) => compareBytes(a.jg, b.jg) || compareBytes(a.jsg, b.jsg) || (a.relLevel > b.relLevel ? -1 : a.relLevel < b.relLevel ? 1 : a.rank - b.rank));
  const counts = new Uint16Array(numJudged * numJudged);
  const groups: JudgmentGroupCounts[] = [];
  const pool: number[] = [];
  for (let s = 0; s < prefs.length; ) {
    let e = s;
    while (e < prefs.length && prefs[e].jg === prefs[s].jg) e++;
    if (prefs.slice(s, e).some((x) => x.jsg !== prefs[s].jsg)) {
      groups.push(countPreferenceArray(prefs.slice(s, e), numJudged, numJudgedRet, counts));
      s = e;
      continue;
    }
    const classes: JudgmentGroupCounts['classes'] = [];
    for (let i = s; i < e; i++) {
      const last = classes[classes.length - 1];
      if (!last || last.relLevel !== prefs[i].relLevel) classes.push({ relLevel: prefs[i].relLevel, ranks: [prefs[i].rank], start: pool.length });
      else last.ranks.push(prefs[i].rank);
      pool.push(prefs[i].rank);
    }
    groups.push(countGroup(classes, numJudged, numJudgedRet, counts, prefs[s].jg));
    s = e;
  }
  return { groups, numJudged, numJudgedRet, counts, pool: rankPool.place(pool) };
}

/** form_jg_pa + add_pa_pref_to_jg: a group with sub-groups, as a preference matrix closed transitively. */
function countPreferenceArray(prefs: readonly (PrefJudgement & { rank: number })[], nj: number, njr: number, counts: Uint16Array): JudgmentGroupCounts {
  const a = new Uint8Array(nj * nj);
  const rel = new Float32Array(nj).fill(-1);
  for (let i = 0; i < prefs.length; i++) {
    const r = rel[prefs[i].rank];
    if ((r > 0 && prefs[i].relLevel === 0) || (r === 0 && prefs[i].relLevel > 0)) {
      throw new InputError({ code: 'duplicate', message: `document '${prefs[i].docno}' has both 0 and non-0 rel_level in judgment group '${prefs[i].jg}'`, hint: 'A document is relevant or not within one judgment group.' });
    }
    rel[prefs[i].rank] = prefs[i].relLevel;
    let j = i + 1;
    while (j < prefs.length && prefs[j].jsg === prefs[i].jsg && prefs[j].relLevel === prefs[i].relLevel) j++;
    for (; j < prefs.length && prefs[j].jsg === prefs[i].jsg; j++) a[prefs[i].rank * nj + prefs[j].rank] = 1;
  }
  // Transitive closure (trec_eval squares the matrix until it stops changing: the same closure).
  for (let k = 0; k < nj; k++) for (let i = 0; i < nj; i++) if (a[i * nj + k]) for (let j = 0; j < nj; j++) if (a[k * nj + j]) a[i * nj + j] = 1;
  for (let i = 0; i < nj; i++) a[i * nj + i] = 0;
  for (let i = 0; i < nj; i++) {
    for (let j = i + 1; j < nj; j++) {
      if (a[i * nj + j] && a[j * nj + i]) {
        throw new InputError({ code: 'duplicate', message: `the preferences of judgment group '${prefs[0].jg}' contradict each other (a cycle)`, hint: 'Put inconsistent preferences in different judgment groups.' });
      }
    }
  }
  const g: JudgmentGroupCounts = {
    fulfilledRet: 0, possibleRet: 0, fulfilledImp: 0, possibleImp: 0, possibleNotOccur: 0, numRel: 0, numRelRet: 0, numNonrel: 0, numNonrelRet: 0,
    classes: [], prefers: a, relArray: rel,
  };
  for (let i = 0; i < nj; i++) {
    if (rel[i] > 0) {
      g.numRel++;
      if (i < njr) g.numRelRet++;
    } else if (rel[i] === 0) {
      g.numNonrel++;
      if (i < njr) g.numNonrelRet++;
    }
  }
  for (let i = 0; i < nj; i++) {
    for (let j = 0; j < nj; j++) {
      if (!a[i * nj + j]) continue;
      counts[i * nj + j]++;
      if (i < njr) {
        if (j < i) g.possibleRet++;
        else if (j < njr) g.fulfilledRet++;
        else g.fulfilledImp++;
      } else if (j < njr) g.possibleImp++;
      else g.possibleNotOccur++;
    }
  }
  g.possibleRet += g.fulfilledRet;
  g.possibleImp += g.fulfilledImp;
  return g;
}

/** add_ec_pref_to_jg: every document of a higher class is preferred to every document of a lower one. */
function countGroup(classes: JudgmentGroupCounts['classes'], numJudged: number, njr: number, counts: Uint16Array, jg: string): JudgmentGroupCounts {
  const g: JudgmentGroupCounts = {
    fulfilledRet: 0, possibleRet: 0, fulfilledImp: 0, possibleImp: 0, possibleNotOccur: 0, numRel: 0, numRelRet: 0, numNonrel: 0, numNonrelRet: 0, classes,
  };
  for (let c1 = 0; c1 < classes.length; c1++) {
    const r1 = classes[c1].ranks;
    let ret = 0;
    while (ret < r1.length && r1[ret] < njr) ret++;
    if (classes[c1].relLevel > 0) {
      g.numRelRet += ret;
      g.numRel += r1.length;
    } else {
      g.numNonrelRet += ret;
      g.numNonrel += r1.length;
    }
    for (let c2 = c1 + 1; c2 < classes.length; c2++) {
      for (const a of r1) {
        for (const b of classes[c2].ranks) {
          counts[a * numJudged + b]++;
          if (a === b) {
            throw new InputError({
              code: 'duplicate',
              message: `a document has two different grades in judgment group '${jg}'`,
              hint: 'With -R qrels_prefs each document may be judged once per judgment group (column 2).',
            });
          }
          if (a < b) {
            if (b < njr) g.fulfilledRet++;
            else if (a < njr) g.fulfilledImp++;
            else g.possibleNotOccur++;
          } else if (a < njr) g.possibleRet++;
          else if (b < njr) g.possibleImp++;
          else g.possibleNotOccur++;
        }
      }
    }
  }
  g.possibleRet += g.fulfilledRet;
  g.possibleImp += g.fulfilledImp;
  return g;
}
