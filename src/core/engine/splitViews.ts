import type { AnalysisSession } from '../split/state';
import type { PairState, SplitInfo, EngineRequests } from './protocol';
import { splitKey, type SplitModels } from './splits';

/** How long background work (significance, ranges) runs before letting requests in. */
const SLICE_MS = 5;
/** After a request the background steps hold back this long: the requests that follow a judgement come together. */
const QUIET_MS = 50;

type Args<K extends keyof EngineRequests> = EngineRequests[K]['args'];
type Result<K extends keyof EngineRequests> = EngineRequests[K]['result'];

/**
 * The engine's answers to the views: each request names an open split by key and gets a model computed from
 * the one AnalysisSession of that split. Significance is computed in slices between other requests (a
 * judgement is never kept waiting behind seconds of resampling); `onChanged` tells the host when it is there.
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
    const s = this.models.session(datasetDir, split);
    return s && this.info(s);
  }

  open(a: Args<'openSplit'>): SplitInfo {
    const s = this.models.session(a.datasetDir, a.split);
    if (!s) throw new Error(`${a.datasetDir} (${a.split}) is not an indexed dataset split: run IR Workbench: Re-index Workspace first.`);
    for (const f of a.extraRuns) this.models.addExtraRun(a.datasetDir, a.split, f);
    return this.info(s);
  }

  info(s: AnalysisSession): SplitInfo {
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
    const s = this.session(a.key);
    const model = s.results(a.baseline, { skipped: this.models.skipped(s.datasetDir, s.split) }, { pending: true });
    const baseline = model.baseline || undefined;
    if (model.significancePending || s.trustPending(baseline)) {
      this.background(a.key, s, function* () {
        if (baseline !== undefined) yield* s.significanceSteps(baseline);
        yield* s.trustSteps(baseline);
      });
    }
    return model;
  }

  diff(a: Args<'diff'>): Result<'diff'> {
    const s = this.session(a.key);
    this.need(s, a.a, a.b);
    const pair = [[a.a, a.b]] as const;
    const model = s.diff(a.a, a.b, { pending: true });
    if (s.trustPending(undefined, pair) || model.rbo === undefined) {
      this.background(a.key, s, function* () {
        yield* s.similaritySteps(a.a, a.b);
        yield* s.trustSteps(undefined, pair);
      });
    }
    return model;
  }

  queryDetail(a: Args<'queryDetail'>): Promise<Result<'queryDetail'>> {
    const s = this.session(a.key);
    this.need(s, a.a, a.b);
    return s.queryDetail(a.a, a.b, a.queryId, Math.max(1, Math.min(1000, a.depth)));
  }

  holes(a: Args<'holes'>): Result<'holes'> {
    const s = this.session(a.key);
    const runs = a.runs.filter((k) => s.hasRun(k));
    const pool = s.userPoolHead(runs, a.depth, a.listed);
    const order = a.order ?? 'blind';
    const impact = order === 'impact' ? s.impactQueue(runs, a.depth) : null;
    return {
      dataset: s.datasetName,
      split: s.split,
      depth: a.depth,
      rows: s.holeRows(),
      pooled: runs,
      poolSize: pool.size,
      remaining: pool.unjudged,
      grades: s.gradeScale(),
      order,
      meter: impact?.meter ?? null,
      queue: (impact?.items ?? pool.items).slice(0, a.listed).map((p) => ({ ...p, queryText: s.queries.get(p.queryId)?.text ?? '', grade: s.grade(p.queryId, p.docId) })),
    };
  }

  pool(a: Args<'pool'>): Result<'pool'> {
    const s = this.session(a.key);
    const runs = a.runs.filter((k) => s.hasRun(k));
    const items = (a.order === 'impact' ? s.impactQueue(runs, a.depth)?.items : undefined) ?? s.userPool(runs, a.depth);
    const first = items.findIndex((p) => s.grade(p.queryId, p.docId) === null);
    return { items, firstUnjudged: first < 0 ? 0 : first };
  }

  async pair(a: Args<'pair'>): Promise<PairState> {
    const s = this.session(a.key);
    let item: PairState['item'] = null;
    const found = { query: false, doc: false };
    if (a.queryId !== undefined && a.docId !== undefined) {
      const doc = await s.corpus.read(a.docId);
      found.query = s.queries.has(a.queryId);
      found.doc = doc !== null;
      item = {
        queryText: s.queries.get(a.queryId)?.text ?? '',
        title: doc?.title ?? '',
        text: doc?.text ?? '(this document is not in the corpus)',
        grade: s.grade(a.queryId, a.docId),
      };
    }
    const meter = a.impact ? s.impactMeter(a.impact.runs, a.impact.depth) : null;
    return { judged: s.judgementCount, grades: s.gradeScale(), item, found, scores: s.annotatedScores(), meter };
  }

  runSummary(a: Args<'runSummary'>): Result<'runSummary'> {
    const s = this.session(a.key);
    this.need(s, a.run);
    return { tag: s.run(a.run).tag, judgements: s.judgementCount, ...s.summary(a.run) };
  }

  private session(key: string): AnalysisSession {
    const [dir, split] = key.split('\t');
    const s = split === undefined ? undefined : this.models.session(dir, split);
    if (!s) throw new Error(`the split ${key.replace('\t', ' ')} is not open: open it again (its dataset may be gone from the index)`);
    return s;
  }

  private need(s: AnalysisSession, ...keys: string[]): void {
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
  private background(key: string, s: AnalysisSession, steps: () => Iterator<void>): Promise<void> {
    const running = this.stepping.get(key);
    if (running) return running;
    const work = (async () => {
      const it = steps();
      for (let done = false; !done; ) {
        // A slice of at most SLICE_MS, then the event loop: a judgement waits for one slice at most.
        const until = performance.now() + SLICE_MS;
        while (!(done = it.next().done === true) && performance.now() < until);
        // Held back while requests come (a judgement, then every open view asking for its model), then resumed.
        for (let wait = 0; !done; ) {
          await new Promise((r) => (wait > 0 ? setTimeout(r, wait) : setImmediate(r)));
          wait = this.lastRequest + QUIET_MS - performance.now();
          if (wait <= 0) break;
        }
      }
    })().finally(() => {
      this.stepping.delete(key);
      this.onChanged(key, this.info(s));
    });
    this.stepping.set(key, work);
    return work;
  }
}
