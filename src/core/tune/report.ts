import type { TuneReport } from './tune';

/** A tuning report as text (irw tune, the editor's output channel). */
const f4 = (x: number) => x.toFixed(4);
const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(4)}`;

export function overfitWarning(r: TuneReport): string {
  return `the gain on the tuning folds (${signed(r.cv.tuningGain)}) lies above the held-out gain's 95% interval [${signed(r.cv.ci.lo)}, ${signed(r.cv.ci.hi)}]: the grid fits the tuning queries' noise; trust the held-out gain`;
}

/** The cross-validation table and summary. */
export function renderTune(r: TuneReport): string {
  const cv = r.cv;
  const rows = [
    ['fold', 'queries', 'chosen on the other folds', 'tuning', 'default', 'held-out', 'default', 'gain'],
    ...cv.folds.map((f, i) => [String(i + 1), String(f.queries.length), r.settings[f.chosen], f4(f.tuning), f4(f.tuningDefault), f4(f.heldOut), f4(f.heldOutDefault), signed(f.heldOut - f.heldOutDefault)]),
  ];
  const widths = rows[0].map((_, j) => Math.max(...rows.map((row) => row[j].length)));
  const table = rows.map((row) => row.map((c, j) => (j === 2 ? c.padEnd(widths[j]) : c.padStart(widths[j]))).join('  ')).join('\n');
  const lines = [
    `tuning ${r.kind === 'bm25' ? 'BM25' : 'fusion'} on ${r.measure}, split ${r.split} (${cv.queries} queries, qrels ${r.qrels.path}, ${r.qrels.judgements} judgements): ${r.settings.length} settings, ${r.options.folds}-fold cross-validation over queries (seed ${r.options.seed})`,
    `default: ${r.settings[r.defaultIndex]}`,
    '',
    table,
    '',
    `held-out gain over the default: ${signed(cv.heldOutGain)}, 95% CI [${signed(cv.ci.lo)}, ${signed(cv.ci.hi)}] (paired bootstrap, ${r.options.resamples} resamples), ${cv.test} p ${cv.p.toFixed(4)}`,
    `gain on the tuning folds: ${signed(cv.tuningGain)}${cv.overfit ? ' (above the held-out interval: overfitting)' : ' (within the held-out interval)'}`,
    `chosen on all queries: ${r.settings[cv.chosenOnAll]}: ${f4(cv.allScore)} vs default ${f4(cv.allDefault)} (on the queries it was chosen on: not a held-out figure)`,
    r.tuned ? `tuned run: ${r.tuned.out} (tag ${r.tuned.tag})${r.onTestSplit ? `; tuned on the ${r.split} split, as its sidecar records` : ''}` : 'no run written (--out FILE writes the tuned run)',
    `time: ${(r.millis.total / 1000).toFixed(1)} s (prepare ${(r.millis.prepare / 1000).toFixed(1)}, grid ${(r.millis.grid / 1000).toFixed(1)}, cross-validation ${(r.millis.cv / 1000).toFixed(1)}, write ${(r.millis.write / 1000).toFixed(1)})`,
  ];
  return `${lines.join('\n')}\n`;
}
