/**
 * The known names nearest to a mistyped one (case ignored), for "did you mean" messages: those at the smallest
 * edit distance, when it is small for the name's length (at most 2, or a third of its characters); else none.
 */
export function nearestNames(name: string, known: readonly string[]): string[] {
  const scored = known.map((k) => ({ k, d: editDistance(name.toLowerCase(), k.toLowerCase()) }));
  const best = Math.min(...scored.map((x) => x.d));
  return best <= Math.max(2, Math.floor(name.length / 3)) ? scored.filter((x) => x.d === best).map((x) => x.k) : [];
}

/** ": did you mean 'a' or 'b'?" for the nearest names, or '' when none is near. */
export function didYouMean(name: string, known: readonly string[]): string {
  const near = nearestNames(name, known);
  return near.length ? `: did you mean ${near.map((n) => `'${n}'`).join(' or ')}?` : '';
}

/** Levenshtein distance (insertions, deletions, substitutions). */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}
