/**
 * "Did you mean": the candidates nearest to a mistyped word (a measure, command, option or dataset name), by
 * edit distance ignoring case; none when even the nearest is too far to be a typo of it.
 */
export function nearest(word: string, candidates: Iterable<string>): string[] {
  const w = word.toLowerCase();
  let best = Infinity;
  let out: string[] = [];
  for (const c of new Set(candidates)) {
    const d = editDistance(w, c.toLowerCase());
    if (d < best) [best, out] = [d, [c]];
    else if (d === best) out.push(c);
  }
  return best <= Math.max(2, Math.floor(word.length / 3)) ? out : [];
}

/** ": did you mean 'x' or 'y'?" for a message, or '' when nothing is near. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const near = nearest(word, candidates);
  return near.length ? `: did you mean ${near.map((n) => `'${n}'`).join(' or ')}?` : '';
}

export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}
