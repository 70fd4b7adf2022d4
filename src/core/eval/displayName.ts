/**
 * One name per measure wherever a person reads figures (panels, tree, tooltips, notifications): nDCG@10, P@10,
 * Hole@10, as papers and BEIR print them. trec_eval's value names (ndcg_cut_10, P_10) stay in what mirrors
 * trec_eval's own output (irw eval, the Output channel's trec_eval lines, CSV columns).
 */
const CUT: [RegExp, string][] = [
  [/^ndcg_cut_(\d+)$/, 'nDCG@'],
  [/^P_(\d+)$/, 'P@'],
  [/^recall_(\d+)$/, 'R@'],
  [/^recall_cap_(\d+)$/, 'R_cap@'],
  [/^map_cut_(\d+)$/, 'MAP@'],
  [/^recip_rank_(\d+)$/, 'MRR@'],
  [/^judged_(\d+)$/, 'Judged@'],
  [/^hole_(\d+)$/, 'Hole@'],
  [/^unj_(\d+)$/, 'Unjudged@'],
  [/^success_(\d+)$/, 'Success@'],
];
const PLAIN: Record<string, string> = { ndcg: 'nDCG', map: 'MAP', recip_rank: 'MRR', Rprec: 'R-Prec' };

/** The display name of a trec_eval value name (e.g. ndcg_cut_10 -> nDCG@10); other names as they are. */
export function displayName(value: string): string {
  for (const [re, prefix] of CUT) {
    const m = re.exec(value);
    if (m) return `${prefix}${m[1]}`;
  }
  return PLAIN[value] ?? value;
}
