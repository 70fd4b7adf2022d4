import type { EvalResult } from './evaluate';
import { formatFixed } from './printf';

/** One line of trec_eval's output: a measure's value for a query, or for 'all' (the summary). */
export interface ResultRow {
  /** The measure's name, e.g. ndcg_cut_10. */
  measure: string;
  /** 'Z' before z-scores (-Z), as trec_eval prints it: outside the name's 22-character field. */
  prefix: '' | 'Z';
  query: string;
  /** runid's tag and text measures' strings; numbers otherwise (counts are integers unless z-scored). */
  value: number | string;
  kind: 'runid' | 'text' | 'count' | 'float';
  /** The value's index in result.values, or -1 - column for a summary (to look up result.positiveNaN); null for runid and num_q. */
  at: number | null;
}

/** The lines trec_eval prints for a result, in its order: per-query blocks (with -q), then the summary ("all"; not with -n). */
export function resultRows(result: EvalResult, perQuery: boolean, summary = true): ResultRow[] {
  const out: ResultRow[] = [];
  const cols = result.columns;
  // -Z: names get a Z prefix and counts are averaged z-scores, printed with decimals.
  const z: '' | 'Z' = result.zscored ? 'Z' : '';
  const kind = (c: number): ResultRow['kind'] => (cols[c].family.integer && !z ? 'count' : 'float');
  if (perQuery) {
    for (let qi = 0; qi < result.queries.length; qi++) {
      if (result.missing[qi] && !result.trecEval10Layout) continue;
      const query = result.queries[qi];
      for (let c = 0; c < cols.length; c++) {
        if (!cols[c].family.perQuery) continue;
        const at = qi * cols.length + c;
        if (cols[c].family.text) out.push({ measure: cols[c].name, prefix: '', query, value: result.texts.get(at) ?? '', kind: 'text', at });
        else out.push({ measure: cols[c].name, prefix: z, query, value: result.values[at], kind: kind(c), at });
      }
    }
  }
  if (!summary) return out;
  for (const m of result.measures) {
    if (m.family.name === 'runid') out.push({ measure: 'runid', prefix: '', query: 'all', value: result.runId, kind: 'runid', at: null });
    else if (m.family.name === 'num_q') out.push({ measure: 'num_q', prefix: z, query: 'all', value: result.numQ, kind: z ? 'float' : 'count', at: null });
  }
  for (let c = 0; c < cols.length; c++) {
    if (cols[c].family.text) continue; // trec_eval prints text measures per query only
    out.push({ measure: cols[c].name, prefix: z, query: 'all', value: result.summary[c], kind: kind(c), at: -1 - c });
  }
  return out;
}

/** %6.4f: at least 6 characters wide (only "-nan" and "inf" are shorter). */
function float(x: number, positiveNaN = false): string {
  return formatFixed(x, 4, positiveNaN).padStart(6);
}

/** A row as trec_eval prints it: `%s%-22s\t%s\t%s` (the prefix, the name). */
export function formatRow(result: EvalResult, r: ResultRow): string {
  const v = r.value;
  const text =
    r.kind === 'runid' ? String(v) : r.kind === 'text' ? `'${String(v)}'` : r.kind === 'count' ? String(Math.trunc(v as number)) : float(v as number, r.at !== null && result.positiveNaN.has(r.at));
  return `${r.prefix}${r.measure.padEnd(22)}\t${r.query}\t${text}\n`;
}

/** The text trec_eval prints for a result: per-query blocks (with -q), then the summary ("all"; not with -n). */
export function formatTrecEval(result: EvalResult, perQuery: boolean, summary = true): string {
  return resultRows(result, perQuery, summary)
    .map((r) => formatRow(result, r))
    .join('');
}
