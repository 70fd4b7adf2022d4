import { createHash } from 'node:crypto';
import { FAMILIES } from '../../../../../src/core/eval';
import type { PrefsQrels } from '../../../../../src/core/eval/prefs';
import { compareBytes } from '../../../../../src/core/formats/idTable';
import { JG_OPTION_SETS, OPTION_SETS, PREFS_FILE_OPTION_SETS, PREFS_OPTION_SETS, PARAM_MEASURES, PARAM_MEASURES_10, ZSCORES } from './generate';

/** trec_eval's all_trec nickname (measures.c), per version. */
const ALL_TREC_9 = [
  'runid', 'num_q', 'num_ret', 'num_rel', 'num_rel_ret', 'map', 'gm_map', 'Rprec', 'bpref', 'recip_rank',
  'iprec_at_recall', 'P', 'relstring', 'recall', 'infAP', 'gm_bpref', 'utility', '11pt_avg', 'ndcg', 'relative_P',
  'Rprec_mult', 'success', 'map_cut', 'ndcg_cut', 'ndcg_rel', 'Rndcg', 'binG', 'G', 'set_P', 'set_recall',
  'set_relative_P', 'set_map', 'set_F', 'num_nonrel_judged_ret',
];
const ALL_TREC_10 = [...ALL_TREC_9, 'unj', 'rbp', 'rbp_resid'];
/**
 * Measures outside all_trec compared too. yaap only against 9.0.8: in 10.0, rbp reads its uninitialised
 * min and max from the stack, where yaap (computed just before it) leaves other values.
 */
const EXTRA_9 = ['yaap'];
const EXTRA_10: string[] = [];

/** 9 and 10: every measure with qrels, against trec_eval 9.0.8 and 10.0; jg and prefs: -R qrels_jg and -R qrels_prefs against 9.0.8. */
export type SuiteName = 9 | 10 | 'jg' | 'prefs' | 'prefsfile';

export interface Suite {
  name: SuiteName;
  version: 9 | 10;
  /** Number of generated cases (seeds 0..cases-1), each evaluated under every option set. */
  cases: number;
  optionSets: readonly (readonly string[])[];
  /** -m arguments, parameterised ones first (trec_eval keeps the first parameters given for a measure). */
  measures: string[];
  /** Families whose lines are compared: all_trec's measures and a few more. */
  families: Set<string>;
}

const JG_MEASURES = ['P_avgjg.1,2,3,10', 'Rprec_mult_avgjg.0.5,1,1.5', 'map_avgjg'];

export function suite(name: SuiteName): Suite {
  if (name === 'jg') {
    return {
      name,
      version: 9,
      cases: Number(process.env.IRW_DIFF_CASES ?? 2000),
      optionSets: JG_OPTION_SETS,
      measures: JG_MEASURES,
      families: new Set(['map_avgjg', 'P_avgjg', 'Rprec_mult_avgjg']),
    };
  }
  if (name === 'prefs' || name === 'prefsfile') {
    return {
      name,
      version: 9,
      cases: Number(process.env.IRW_DIFF_CASES ?? 2000),
      optionSets: name === 'prefs' ? PREFS_OPTION_SETS : PREFS_FILE_OPTION_SETS,
      measures: ['all_prefs'],
      families: new Set(['runid', 'num_q', ...FAMILIES.filter((f) => f.reads === 'prefs').map((f) => f.name)]),
    };
  }
  const version = name;
  const compared = version === 9 ? [...ALL_TREC_9, ...EXTRA_9] : [...ALL_TREC_10, ...EXTRA_10];
  const ours = FAMILIES.filter((f) => f.origin !== 'irw' && compared.includes(f.name)).map((f) => f.name);
  return {
    name,
    version,
    cases: Number(process.env.IRW_DIFF_CASES ?? (version === 9 ? 5000 : 1000)),
    optionSets: OPTION_SETS,
    measures: [...PARAM_MEASURES, ...(version === 10 ? PARAM_MEASURES_10 : []), ...ours],
    families: new Set(ours),
  };
}

/** The family an output line's name belongs to (P_5 -> P, map_cut_5 -> map_cut), or undefined. */
function familyOf(name: string, families: Set<string>): string | undefined {
  let best: string | undefined;
  for (const f of families) {
    if ((name === f || name.startsWith(`${f}_`)) && (!best || f.length > best.length)) best = f;
  }
  return best;
}

/** trec_eval's output restricted to the compared families (-Z's names have a Z before the measure's). */
export function restrict(output: Buffer, families: Set<string>): Buffer {
  const lines = output.toString('latin1').split('\n');
  const nameOf = (l: string) => l.slice(0, l.indexOf(' ') < 0 ? l.indexOf('\t') : Math.min(l.indexOf(' '), l.indexOf('\t')));
  const compared = (name: string) => familyOf(name, families) !== undefined || (name.startsWith('Z') && familyOf(name.slice(1), families) !== undefined);
  return Buffer.from(lines.filter((l) => l && compared(nameOf(l))).map((l) => `${l}\n`).join(''), 'latin1');
}

/** What is stored per comparison: a digest of the whole (-q) output, and the summary values for diagnosis. */
export interface Expected {
  digest: string;
  summary: string;
}

export function expectedOf(output: Buffer): Expected {
  const text = output.toString('latin1');
  const summary = text.split('\n').filter((l) => l.split('\t')[1] === 'all').map((l) => l.split('\t')[2]).join(' ');
  return { digest: createHash('sha256').update(output).digest('base64').slice(0, 16), summary };
}

export function expectedFile(name: SuiteName): string {
  return `${__dirname}/trec_eval${name}.expected.json.gz`;
}

/** An option set with the case's z-scores file in place of ZSCORES. */
export function withFiles(opts: readonly string[], zscoresPath: string): string[] {
  return opts.map((o) => (o === ZSCORES ? zscoresPath : o));
}

/**
 * Where trec_eval's prefs_avgjg_Rnonrel(_ret) reads memory it never wrote: a group whose non-relevant
 * documents span several grades (0 and negative) takes the first R ranks from its last class and reads on,
 * past the query's own ranks when that class is near the end (prefs.ts, RankPool). Such cases are skipped.
 */
export function prefsUndefined(qrels: PrefsQrels): boolean {
  for (const qid of qrels.queryIds()) {
    // Only groups without sub-groups (equivalence classes) take space in trec_eval's rank array.
    const all = qrels.judgements(qid)!;
    const single = (jg: string) => new Set(all.filter((j) => j.jg === jg).map((j) => j.jsg)).size === 1;
    const js = all.filter((j) => single(j.jg)).sort((a, b) => compareBytes(a.jg, b.jg) || b.relLevel - a.relLevel);
    let at = 0;
    for (let s = 0; s < js.length; ) {
      let e = s;
      while (e < js.length && js[e].jg === js[s].jg) e++;
      const group = js.slice(s, e);
      const rel = group.filter((j) => j.relLevel > 0).length;
      const nonrel = group.length - rel;
      const lowest = group[group.length - 1].relLevel;
      const lastStart = at + group.filter((j) => j.relLevel !== lowest).length;
      if (rel < nonrel && lastStart + rel > js.length) return true;
      at += group.length;
      s = e;
    }
  }
  return false;
}
