import type { EvalResult } from './evaluate';
import { formatFixed } from './printf';

/** %6.4f: at least 6 characters wide (only "-nan" and "inf" are shorter). */
function float(x: number, positiveNaN = false): string {
  return formatFixed(x, 4, positiveNaN).padStart(6);
}

function line(name: string, qid: string, value: string, z = ''): string {
  return `${z}${name.padEnd(22)}\t${qid}\t${value}\n`;
}

/** The text trec_eval prints for a result: per-query blocks (with -q), then the summary ("all"; not with -n). */
export function formatTrecEval(result: EvalResult, perQuery: boolean, summary = true): string {
  const out: string[] = [];
  const cols = result.columns;
  // -Z: names get a Z prefix and counts are averaged z-scores, printed with decimals.
  const z = result.zscored ? 'Z' : '';
  const value = (c: number, v: number, at: number) => (cols[c].family.integer && !z ? String(Math.trunc(v)) : float(v, result.positiveNaN.has(at)));
  if (perQuery) {
    for (let qi = 0; qi < result.queries.length; qi++) {
      if (result.missing[qi] && !result.trecEval10Layout) continue;
      const qid = result.queries[qi];
      for (let c = 0; c < cols.length; c++) {
        if (!cols[c].family.perQuery) continue;
        const v = result.values[qi * cols.length + c];
        if (cols[c].family.text) out.push(line(cols[c].name, qid, `'${result.texts.get(qi * cols.length + c) ?? ''}'`));
        else out.push(line(cols[c].name, qid, value(c, v, qi * cols.length + c), z));
      }
    }
  }
  if (!summary) return out.join('');
  for (const m of result.measures) {
    if (m.family.name === 'runid') out.push(line('runid', 'all', result.runId));
    else if (m.family.name === 'num_q') out.push(line('num_q', 'all', z ? float(result.numQ) : String(result.numQ), z));
  }
  for (let c = 0; c < cols.length; c++) {
    if (cols[c].family.text) continue; // trec_eval prints text measures per query only
    const v = result.summary[c];
    out.push(line(cols[c].name, 'all', value(c, v, -1 - c), z));
  }
  return out.join('');
}
