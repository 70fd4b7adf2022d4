export { evaluate, perQuery, summaryOf, type Column, type EvalOptions, type EvalResult } from './evaluate';
export { FAMILIES, MeasureSpecError, NICKNAMES, resolveMeasures, type Family, type ResolvedMeasure } from './registry';
export { formatFixed } from './printf';
export { formatRow, formatTrecEval, resultRows, type ResultRow } from './trecFormat';
