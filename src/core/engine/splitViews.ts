import { diffEstimateNeeds, diffModel, diffNeeds } from '../split/diff';
import { estimatePending, estimateSteps } from '../split/estimates';
import { holesModel, withTitles } from '../split/holes';
import { judgingQueue, pairState, type PairState } from '../split/judging';
import { queryDeltas } from '../split/queryDeltas';
import { queryDetail } from '../split/queryDetail';
import { DEFAULT_TESTING, estimateNeeds, resultsModel, resultsNeeds, significancePending, significanceSteps } from '../split/results';
import { similaritySteps } from '../split/similarity';
import type { SplitState } from '../split/state';
import { trustPending, trustSteps } from '../split/underHoles';
import type { SplitInfo, EngineRequests } from './protocol';
import { splitKey, type SplitModels } from './splits';
import { runInSlices } from './slices';
import { trace } from './trace';

/** How long background work (significance, ranges) runs before letting requests in. */
const SLICE_MS = 5;
/**
 * After a request the background steps hold back this long: the requests that follow a judgement come together,
 * and the views draw their first frames before tests and estimates take the core (bench:judging, paired rounds
 * at load 11-13: every view p50 1,232 -> 646 and 557 -> 409 ms against 50 ms; the tests come ~0.2 s later).
 */
const QUIET_MS = 250;

type Args<K extends keyof EngineRequests> = EngineRequests[K]['args'];
type Result<K extends keyof EngineRequests> = EngineRequests[K]['result'];

/**
 * The engine's answers to the views: each request names an open split by key and gets the model its view
 * derives from the split's one state (src/core/split). What is slow to compute (tests, ranges under the
 * holes, similarity) runs in slices between other requests (a judgement is never kept waiting behind seconds
 * of resampling); `onChanged` tells the host when it is there.
 */
export class SplitViews {
  private readonly stepping = new Map<string, Promise<void>>();
  private lastRequest = -Infinity;

  constructor(
    private readonly models: SplitModels,
    private readonly onChanged: (key: string, info: SplitInfo) => void,
  ) {}

  /** What the host keeps of a split, after a change (undefined when the dataset is gone from the index). */
  infoOf(datasetDir: string, split: string): SplitInfo | undefined {
    const s = this.models.state(datasetDir, split);
    return s && this.info(s);
  }

  open(a: Args<'openSplit'>): SplitInfo {
    const s = this.models.state(a.datasetDir, a.split);
    if (!s) throw new Error(`${a.datasetDir} (${a.split}) is not an indexed dataset split: run IR Workbench: Re-index Workspace first.`);
    for (const f of a.extraRuns) this.models.addExtraRun(a.datasetDir, a.split, f);
    // Kept until the host's next list of what its views show (a panel of it is about to open).
    this.models.pin([...this.models.keys(), splitKey(a.datasetDir, a.split)]);
    return this.info(s);
  }

  info(s: SplitState): SplitInfo {
    return {
      key: splitKey(s.datasetDir, s.split),
      datasetDir: s.datasetDir,
      datasetName: s.datasetName,
      split: s.split,
      runs: s.runRefs().sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0)),
      skipped: this.models.skipped(s.datasetDir, s.split),
      grades: s.gradeScale(),
      judgements: s.judgementCount,
      version: s.version,
    };
  }

  results(a: Args<'results'>): Result<'results'> {
    const s = this.state(a.key);
    const testing = { compare: a.compare ?? DEFAULT_TESTING.compare, correction: a.correction ?? DEFAULT_TESTING.correction };
    const model = resultsModel(s, a.baseline, { skipped: this.models.skipped(s.datasetDir, s.split) }, { pending: true, testing });
    const baseline = model.baseline || undefined;
    const needs = resultsNeeds(s, baseline, testing);
    const estimates = estimateNeeds(s, baseline, testing.compare);
    if ((baseline !== undefined && significancePending(s, baseline, testing)) || trustPending(s, needs) || estimatePending(s, estimates)) {
      this.background(a.key, s, function* () {
        if (baseline !== undefined) yield* significanceSteps(s, baseline, testing);
        yield* trustSteps(s, needs);
        yield* estimateSteps(s, estimates);
      });
    }
    return model;
  }

  queryDeltas(a: Args<'queryDeltas'>): Result<'queryDeltas'> {
    const s = this.state(a.key);
    this.need(s, a.a, a.b);
    return queryDeltas(s, a.a, a.b, a.measure);
  }

  diff(a: Args<'diff'>): Result<'diff'> {
    const s = this.state(a.key);
    this.need(s, a.a, a.b);
    const model = diffModel(s, a.a, a.b, { pending: true });
    const needs = diffNeeds(a.a, a.b);
    const estimates = diffEstimateNeeds(a.a, a.b);
    if (trustPending(s, needs) || model.rbo === undefined || estimatePending(s, estimates)) {
      this.background(a.key, s, function* () {
        yield* similaritySteps(s, a.a, a.b);
        yield* trustSteps(s, needs);
        yield* estimateSteps(s, estimates);
      });
    }
    return model;
  }

  queryDetail(a: Args<'queryDetail'>): Promise<Result<'queryDetail'>> {
    const s = this.state(a.key);
    this.need(s, a.a, a.b);
    return queryDetail(s, a.a, a.b, a.queryId, Math.max(1, Math.min(1000, a.depth)));
  }

  holes(a: Args<'holes'>): Promise<Result<'holes'>> {
    const s = this.state(a.key);
    return withTitles(s, holesModel(s, a));
  }

  pool(a: Args<'pool'>): Result<'pool'> {
    const s = this.state(a.key);
    return judgingQueue(s, a.runs.filter((k) => s.hasRun(k)), a.depth, a.order);
  }

  pair(a: Args<'pair'>, notes?: (datasetDir: string, split: string, pairs: readonly { queryId: string; docId: string }[]) => (string | undefined)[]): Promise<PairState> {
    const s = this.state(a.key);
    return pairState(s, a, notes && ((pairs) => notes(s.datasetDir, s.split, pairs)));
  }

  runSummary(a: Args<'runSummary'>): Result<'runSummary'> {
    const s = this.state(a.key);
    this.need(s, a.run);
    return { tag: s.run(a.run).tag, judgements: s.judgementCount, ...s.summary(a.run) };
  }

  private state(key: string): SplitState {
    const [dir, split] = key.split('\t');
    const s = split === undefined ? undefined : this.models.state(dir, split);
    if (!s) throw new Error(`the split ${key.replace('\t', ' ')} is not open: open it again (its dataset may be gone from the index)`);
    return s;
  }

  private need(s: SplitState, ...keys: string[]): void {
    for (const k of keys) if (!s.hasRun(k)) throw new Error(`no run ${k} in ${s.datasetName} (${s.split})`);
  }

  /** The engine got a request: the background steps wait until none came for QUIET_MS. */
  touch(): void {
    this.lastRequest = performance.now();
  }

  /**
   * Runs a split's slow steps (significance, ranges under the holes) one slice at a time, yielding between
   * slices so judgements are answered meanwhile, then says the split changed (its views ask again and get what
   * was computed). One job per split at a time: a view that still misses something starts the next.
   */
  private background(key: string, s: SplitState, steps: () => Iterator<void>): Promise<void> {
    const running = this.stepping.get(key);
    if (running) return running;
    const at = Date.now();
    // Held back while requests come (a judgement, then every open view asking for its model).
    const work = runInSlices(steps(), SLICE_MS, () => this.lastRequest + QUIET_MS - performance.now()).then((computing) => {
      trace('background', at, computing);
    }).finally(() => {
      this.stepping.delete(key);
      this.onChanged(key, this.info(s));
    });
    this.stepping.set(key, work);
    return work;
  }
}
