import type { EvalResult } from './evaluate';

/**
 * printf("%.<digits>f") for doubles. JavaScript's toFixed rounds exact halves up, C rounds them to even; a
 * double x is exactly halfway at `digits` decimals only when x * 2^(digits+1) is an odd integer.
 */
export function formatFixed(x: number, digits: number, positiveNaN = false): string {
  // trec_eval's NaNs come from 0.0 / 0.0, which x86 makes negative: glibc prints "-nan".
  if (!Number.isFinite(x)) return Number.isNaN(x) ? (positiveNaN ? 'nan' : '-nan') : x > 0 ? 'inf' : '-inf';
  const t = Math.abs(x) * 2 ** (digits + 1);
  if (Number.isInteger(t) && t % 2 === 1 && t < 2 ** 53) {
    const scale = 10 ** digits;
    let n = Math.floor(Math.abs(x) * scale);
    if (n % 2 === 1) n++;
    const s = String(n).padStart(digits + 1, '0');
    const body = digits ? `${s.slice(0, s.length - digits)}.${s.slice(s.length - digits)}` : s;
    return x < 0 ? `-${body}` : body;
  }
  return x.toFixed(digits);
}

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
