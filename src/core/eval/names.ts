/**
 * The field's measure names (ir_measures' syntax: nDCG@10, R@100, P(rel=2)@10, RR@10, AP, Judged@10; ranx's
 * lower-case ones such as ndcg@10 and mrr@10; BEIR's R_cap@100 and Hole@10) as the registry's trec_eval
 * measures. One table: each name, the family it is without and with a cutoff, and the parameters it takes.
 *
 * A name trec_eval can print is printed with trec_eval's id (nDCG@10 is ndcg_cut_10, exactly as -m ndcg_cut.10);
 * one it cannot is printed as written, in ir_measures' canonical form: P(rel=2)@10 (precision at 10 counting
 * grade >= 2 as relevant, as trec_eval -l 2 -m P.10 computes it) and RR@10 (reciprocal rank within the top 10,
 * as trec_eval -M 10 -m recip_rank computes it) are evaluated beside the other measures, whatever -l and -M say.
 * Without rel=, a name counts as relevant what the evaluation does (-l, default 1: ir_measures' default).
 */
import { nearest } from '../nearest';

/** How a resolved measure sees the ranking, where it differs from the evaluation's (-l, -M). */
export interface MeasureView {
  /** Lowest grade counted as relevant (rel=N). */
  level?: number;
  /** Only the first `depth` documents of the ranking (RR@k). */
  depth?: number;
}

/** A field name as a registry measure. */
export interface FieldMeasure {
  /** The registry family (trec_eval's -m name). */
  family: string;
  /** Its parameter text in trec_eval's -m syntax ('10' for ndcg_cut.10), if any. */
  params?: string;
  view?: MeasureView;
  /** The name as printed when trec_eval has none for it (a view): ir_measures' canonical form. */
  label: string;
}

interface Entry {
  /** ir_measures' name; `aliases` are accepted too (case is ignored when nothing matches exactly). */
  name: string;
  aliases?: string[];
  /** The family without a cutoff (undefined: a cutoff is required). */
  whole?: string;
  /** The family taking the cutoff as its parameter (undefined: no cutoff), or 'depth' for a view of the top k. */
  cut?: string;
  /** rel=N: the lowest grade counted as relevant. */
  rel?: boolean;
  /** The family when rel= is given, where that changes what is counted (NumRet(rel=1) counts relevant ones). */
  withRel?: string;
  /** Other parameters: the value's trec_eval form, or the family it selects (a boolean). */
  other?: Record<string, (value: string) => { params?: string; family?: string }>;
  /** Where the cutoff is a recall level (IPrec@0.5), not a rank. */
  fraction?: boolean;
}

const number = (param: string) => (v: string) => {
  if (!Number.isFinite(Number(v)) || v.trim() === '') throw new Error(`${param}=${v} is not a number`);
  return { params: v };
};

/** The table. Semantics follow ir_measures' pytrec_eval provider (trec_eval itself), except where noted. */
const TABLE: Entry[] = [
  { name: 'nDCG', aliases: ['NDCG'], whole: 'ndcg', cut: 'ndcg_cut' },
  { name: 'P', aliases: ['Precision'], cut: 'P', rel: true },
  { name: 'R', aliases: ['Recall'], cut: 'recall', rel: true },
  { name: 'AP', aliases: ['MAP'], whole: 'map', cut: 'map_cut', rel: true },
  { name: 'RR', aliases: ['MRR'], whole: 'recip_rank', cut: 'depth', rel: true },
  { name: 'Rprec', aliases: ['RPrec', 'r-precision'], whole: 'Rprec', rel: true },
  { name: 'Bpref', aliases: ['BPref'], whole: 'bpref', rel: true },
  { name: 'infAP', whole: 'infAP', rel: true },
  { name: 'Success', aliases: ['hit_rate'], cut: 'success', rel: true },
  { name: 'IPrec', cut: 'iprec_at_recall', rel: true, fraction: true },
  // NumRet counts retrieved documents; with rel= only the relevant ones (ir_measures' NumRelRet).
  { name: 'NumRet', whole: 'num_ret', rel: true, withRel: 'num_rel_ret' },
  { name: 'NumRelRet', whole: 'num_rel_ret', rel: true },
  { name: 'NumRel', whole: 'num_rel', rel: true },
  { name: 'NumQ', whole: 'num_q' },
  { name: 'SetP', whole: 'set_P', rel: true, other: { relative: (v) => ({ family: bool(v) ? 'set_relative_P' : 'set_P' }) } },
  { name: 'SetRelP', whole: 'set_relative_P', rel: true },
  { name: 'SetR', whole: 'set_recall', rel: true },
  { name: 'SetF', whole: 'set_F', rel: true, other: { beta: number('beta') } },
  { name: 'SetAP', whole: 'set_map', rel: true },
  // Judged@k: the share of the top k judged for the query (irw's judged.k, over k as trec_eval 10's unj, and a
  // negative grade is not a judgement). ir_measures' own Judged divides by the ranking's length where it is
  // shorter than k and counts negative grades as judged; on rankings of k or more without negative grades they agree.
  { name: 'Judged', cut: 'judged' },
  // BEIR's names (its EvaluateRetrieval): capped recall and holes.
  { name: 'R_cap', cut: 'recall_cap', rel: true },
  { name: 'Hole', cut: 'hole' },
];

/** ir_measures' measures that have no counterpart here, with what to use instead where there is something. */
const UNSUPPORTED: Record<string, string> = {
  ERR: 'not computed by trec_eval or irw',
  nERR: 'not computed by trec_eval or irw',
  RBP: "ir_measures' RBP is binary; trec_eval 10's graded rank-biased precision is rbp.p=0.8 (irw eval --trec-eval 10)",
  alpha_nDCG: 'a diversity measure (needs subtopic qrels)',
  ERR_IA: 'a diversity measure (needs subtopic qrels)',
  nERR_IA: 'a diversity measure (needs subtopic qrels)',
  NRBP: 'a diversity measure (needs subtopic qrels)',
  nNRBP: 'a diversity measure (needs subtopic qrels)',
  AP_IA: 'a diversity measure (needs subtopic qrels)',
  P_IA: 'a diversity measure (needs subtopic qrels)',
  STREC: 'a diversity measure (needs subtopic qrels)',
  SDCG: 'not computed by trec_eval or irw',
  INST: 'not computed by trec_eval or irw',
  INSQ: 'not computed by trec_eval or irw',
  BPM: 'not computed by trec_eval or irw',
  Compat: 'not computed by trec_eval or irw',
  Accuracy: 'not computed by trec_eval or irw',
};

function bool(v: string): boolean {
  if (/^(true|1)$/i.test(v)) return true;
  if (/^(false|0)$/i.test(v)) return false;
  throw new Error(`'${v}' is not True or False`);
}

const EXACT = new Map<string, Entry>();
const FOLDED = new Map<string, Entry>();
for (const e of TABLE) {
  for (const n of [e.name, ...(e.aliases ?? [])]) {
    EXACT.set(n, e);
    FOLDED.set(n.toLowerCase(), e);
  }
}

/** Every name the table accepts (for "did you mean"). */
export const FIELD_NAMES: readonly string[] = TABLE.flatMap((e) => [e.name, ...(e.aliases ?? [])]);

const SYNTAX = /^([A-Za-z_][\w-]*)(?:\(([^()]*)\))?(?:@([^@()]+))?$/;

/** A measure name in the field's syntax that is not one: what is wrong, and what to write. */
export class FieldNameError extends Error {}

/**
 * `text` as a registry measure, or undefined when it is not in the field's syntax at all (then it is a
 * trec_eval name or a typo, for the registry to judge). Throws FieldNameError for a known name used wrongly
 * (P without a cutoff, an unknown parameter, a measure irw does not compute), saying what to write.
 */
export function fieldMeasure(text: string): FieldMeasure | undefined {
  const m = SYNTAX.exec(text.trim());
  if (!m) return undefined;
  const [, name, paramText, cutoffText] = m;
  const entry = EXACT.get(name) ?? FOLDED.get(name.toLowerCase());
  if (!entry) {
    if (Object.hasOwn(UNSUPPORTED, name)) throw new FieldNameError(`${text}: ir_measures' ${name} is ${UNSUPPORTED[name]}`);
    return undefined;
  }
  const params = new Map<string, string>();
  for (const pair of paramText ? paramText.split(',') : []) {
    const [key, value, extra] = pair.split('=').map((s) => s.trim().replace(/^(['"])(.*)\1$/, '$2'));
    if (!key || value === undefined || extra !== undefined) throw new FieldNameError(`${text}: malformed parameter '${pair.trim()}': expected name=value, e.g. ${entry.name}(rel=2)`);
    params.set(key, value);
  }
  let cutoff: string | undefined = cutoffText;
  if (params.has('cutoff')) {
    if (cutoff !== undefined) throw new FieldNameError(`${text}: the cutoff is given twice`);
    cutoff = params.get('cutoff');
    params.delete('cutoff');
  }
  const where = `${text}: ${entry.name}`;
  const view: MeasureView = {};
  const chosen = cutoff === undefined ? entry.whole : entry.cut;
  let familyParams: string | undefined;
  if (chosen === undefined) {
    throw new FieldNameError(cutoff === undefined ? `${where} needs a cutoff, e.g. ${entry.name}@${entry.fraction ? '0.5' : '10'}` : `${where} takes no cutoff: write ${entry.name}`);
  }
  let family = chosen;
  if (cutoff !== undefined) {
    const c = Number(cutoff);
    const ok = entry.fraction ? c >= 0 && c <= 1 : Number.isInteger(c) && c > 0;
    if (!Number.isFinite(c) || !ok) throw new FieldNameError(`${where}'s cutoff '${cutoff}' must be ${entry.fraction ? 'a recall level from 0 to 1' : 'a positive integer'}`);
    if (family === 'depth') {
      family = entry.whole!;
      view.depth = c;
    } else familyParams = cutoff;
  }
  let canonical = '';
  for (const [key, value] of params) {
    if (key === 'rel' && entry.rel) {
      if (!/^-?\d+$/.test(value)) throw new FieldNameError(`${where}: rel=${value} is not an integer grade`);
      view.level = Number(value);
      family = entry.withRel ?? family;
    } else if (key === 'judged_only' || key === 'dcg') {
      const plain = key === 'dcg' ? value === 'log2' : !bool(value);
      if (!plain) {
        throw new FieldNameError(key === 'dcg' ? `${where}(dcg=${value}): only trec_eval's log2 discount with linear gains is computed` : `${where}(judged_only=True): give -J (trec_eval's judged-only flag) to evaluate every measure on judged documents only`);
      }
      continue;
    } else if (entry.other && Object.hasOwn(entry.other, key)) {
      try {
        const o = entry.other[key](value);
        family = o.family ?? family;
        familyParams = o.params ?? familyParams;
      } catch (e) {
        throw new FieldNameError(`${where}: ${(e as Error).message}`);
      }
    } else {
      const known = ['rel', ...Object.keys(entry.other ?? {})].filter((k) => k !== 'rel' || entry.rel);
      const near = nearest(key, known);
      throw new FieldNameError(`${where} has no parameter '${key}'${near.length ? `: did you mean '${near[0]}'?` : ''}${known.length ? ` (it takes ${known.join(', ')})` : ' (it takes none)'}`);
    }
    canonical += `${canonical ? ',' : ''}${key}=${value}`;
  }
  const label = `${entry.name}${canonical ? `(${canonical})` : ''}${cutoff !== undefined ? `@${cutoff}` : ''}`;
  return { family, params: familyParams, view: view.level === undefined && view.depth === undefined ? undefined : view, label };
}

/** The nearest field names to a mistyped one, with its cutoff: 'nDGC@10' -> ['nDCG@10']. */
export function nearestFieldNames(text: string): string[] {
  const m = SYNTAX.exec(text.trim());
  if (!m || (m[2] === undefined && m[3] === undefined)) return [];
  const rest = text.trim().slice(m[1].length);
  const near = nearest(m[1], [...FIELD_NAMES, ...Object.keys(UNSUPPORTED)]).filter((n) => !Object.hasOwn(UNSUPPORTED, n));
  return [...new Set(near.map((n) => EXACT.get(n)!.name))].map((n) => `${n}${rest}`);
}
