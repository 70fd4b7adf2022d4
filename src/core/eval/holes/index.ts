export { compareUnderHoles, deltaColumns, deltaRows, meter, queryDelta, significanceOf, significanceUnderHoles, setDeltaRow, summarise, summariseColumns, type Comparison, type DeltaColumns, type QueryDelta, type SignificanceUnderHoles, type Verdict } from './comparison';
export { gradePrior, holeMoves, ImpactQueue, type HoleImpact, type Moves, type QueueOptions, type Side } from './impact';
export { DEFAULT_BUDGET, DELTA_BUDGET, queryInterval, runIntervals, type RunIntervals, type ScoreInterval } from './interval';
export { judgeHole, prepareHoles, prepareHolesSteps, type HoleQuery, type HoleSet, type PoolOptions, type RankedList } from './pool';
export { HoleScorer } from './scorer';
export { HoleEstimator, type EstimatorOptions, type HoleEstimate, type ValueScorer } from './estimate';
export { CELLS, RelevanceModel } from './relevance';
export { SampleQueue, type DesignEstimate, type SampledHole } from './sample';
export { estimateVerdict, verdictFromCdf, WITHIN, type EstimateVerdict } from './verdict';
