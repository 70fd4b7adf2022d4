import * as vscode from 'vscode';
import { AnnotationQueue } from '../../core/split/annotationQueue';
import type { AnnotationState, ParamsOf, QueueOrder } from '../../protocol/webview';
import { ViewChannel } from '../webview/channel';
import { viewHtml, webviewOptions } from '../webview/html';
import { explainPair } from './explainHandlers';
import type { AnalysisWorkbench, OpenSplit, SplitChange, SplitView } from './workbench';

export const ANNOTATE_VIEW_ID = 'irWorkbench.annotate';

/** Pairs sent ahead of the one shown: the sidebar shows the next at a keypress, with no round trip. */
const AHEAD = 16;

/** Where the judging session is kept across window reloads (workspace state). */
const SESSION_KEY = 'irWorkbench.judging.session';

/** What a reload restores: the split, the pool and its order, and the pair shown. */
interface Session {
  datasetDir: string;
  split: string;
  runs: string[];
  depth: number;
  order: QueueOrder;
  index: number;
  pair?: { queryId: string; docId: string };
}

/**
 * The hole-annotation sidebar (a webview view in the IR Workbench container): one (query, document) pair at
 * a time from a depth-k pool, blind to the runs that retrieved it. Keyboard first (in the webview). The
 * sidebar holds the pairs ahead and names in every request the pair it shows, so a grade is always for the
 * pair on screen when its key was pressed (never "the current one" as the host last knew it); requests are
 * handled one at a time, in the order sent. Each grade is durable (the engine appends and fsyncs) before it
 * is confirmed; every open view of the split then shows the new scores. The session (split, pool, order and
 * the pair shown) is kept in the workspace state and restored after a window reload.
 */
export class AnnotateView implements vscode.WebviewViewProvider, SplitView {
  private channel: ViewChannel<'annotate'> | undefined;
  private split: OpenSplit | undefined;
  private queue: AnnotationQueue | undefined;
  /** Which queue the sidebar's requests must name: a new pool, order or split is a new queue. */
  private queueId = 0;
  /** The pool being judged and its order (impact, sample: re-ordered after each judgement, with a meter). */
  private pooled: { runs: string[]; depth: number; order: QueueOrder } = { runs: [], depth: 10, order: 'blind' };
  /** Moves of the position the host made by itself (see AnnotationState.jump). */
  private jumps = 0;
  /** The sidebar's requests, one after the other in the order sent. */
  private serial: Promise<unknown> = Promise.resolve();
  /** What the sidebar was last sent (queue, position, judgements): a refresh that would send the same is skipped. */
  private sent: { queue: number; index: number; version: number } | undefined;
  /** The session being restored after a reload, while it is. */
  private restoring: Promise<void> | undefined;
  /**
   * A grade is being recorded: the split's refresh (which the judgement itself sets off) is held until it is,
   * since in impact order the next pair is only known once the queue is re-ordered; sent early, the sidebar
   * would show the next pair of the order before the grade.
   */
  private recording = false;

  constructor(private readonly wb: AnalysisWorkbench) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    view.webview.options = webviewOptions(this.wb.context.extensionUri);
    view.webview.html = viewHtml(view.webview, this.wb.context.extensionUri, 'annotate', 'Judge Holes');
    this.channel?.dispose();
    this.channel = new ViewChannel<'annotate'>(view.webview, {
      judge: (p) => this.one(() => this.judgeShown(p)),
      show: (p) => this.one(() => this.show(p)),
      undo: (p) => this.one(() => this.undo(p.queue)),
      setOrder: ({ order }) => this.one(async () => {
        const { split } = this.need();
        await this.start(split, this.pooled.runs, this.pooled.depth, order === 'impact' || order === 'sample' ? order : 'blind');
        return null;
      }),
      explain: (p) => explainPair(this.wb, this.need().split, p),
    }, () => void this.resend(), this.wb.held);
    view.onDidDispose(() => {
      this.channel?.dispose();
      this.channel = undefined;
    });
    if (!this.queue && !this.restoring) {
      this.restoring = this.restore().finally(() => {
        this.restoring = undefined;
        void this.resend();
      });
    }
    void this.resend();
  }

  /** Starts judging the pool of `runs` at `depth` for the split, and shows the view. */
  async start(split: OpenSplit, runs: string[], depth: number, order: QueueOrder = 'blind', at?: Pick<Session, 'index' | 'pair'>): Promise<AnnotationState> {
    if (this.split && this.split !== split) this.wb.detach(this.split, this);
    this.split = split;
    this.wb.attach(split, this);
    this.pooled = { runs, depth, order };
    const { items, firstUnjudged } = await this.wb.ask('pool', { key: split.key, runs, depth, order });
    this.queue = new AnnotationQueue(items);
    this.queueId++;
    const found = at?.pair ? items.findIndex((p) => p.queryId === at.pair!.queryId && p.docId === at.pair!.docId) : -1;
    this.queue.move(found >= 0 ? found : at ? Math.min(at.index, items.length - 1) : firstUnjudged);
    this.save();
    if (!at) await vscode.commands.executeCommand(`${ANNOTATE_VIEW_ID}.focus`);
    void this.resend();
    return this.state();
  }

  /**
   * The split's figures changed: the sidebar gets them, unless only figures it does not show were computed
   * (significance, ranges: the judgements and the pair shown are as they were).
   */
  async refresh(change?: SplitChange): Promise<void> {
    if (this.recording) return;
    const sent = this.sent;
    if (change === 'computed' && sent && this.split && sent.queue === this.queueId && sent.index === this.queue?.index && sent.version === this.split.version) return;
    await this.resend();
  }

  /** Sends the sidebar its state now (resolved once sent). */
  private resend(): Promise<void> {
    const channel = this.channel;
    if (!channel) return Promise.resolve();
    return this.state().then(
      (s) => {
        this.sent = s.queue === undefined ? undefined : { queue: s.queue, index: s.index, version: s.qrels?.version ?? -1 };
        channel.send('state', s);
      },
      (e: Error) => void vscode.window.showErrorMessage(`IR Workbench: ${e.message}`),
    );
  }

  /** The sidebar's state: the queue's position (kept here), the pair shown and those after it, and the split's figures (from the engine). */
  async state(): Promise<AnnotationState> {
    const split = this.split;
    const queue = this.queue;
    if (!split || !queue) {
      return {
        dataset: '', split: '', grades: [], index: 0, total: 0, judged: 0, item: null, scores: [],
        message: this.restoring && !this.queue
          ? 'Restoring your judging session…'
          : 'Nothing to judge yet: open IR Workbench: Show Holes and press "Judge in the sidebar", or run IR Workbench: Judge Holes.',
      };
    }
    const queueId = this.queueId;
    const cur = queue.current;
    const index = queue.index;
    const ahead = queue.items.slice(index + 1, index + 1 + AHEAD).map(({ queryId, docId }) => ({ queryId, docId }));
    const impact = this.pooled.order !== 'blind' ? { runs: this.pooled.runs, depth: this.pooled.depth, order: this.pooled.order } : undefined;
    const pair = await this.wb.ask('pair', { key: split.key, ...(cur ? { queryId: cur.queryId, docId: cur.docId } : {}), impact, ahead });
    return {
      dataset: split.datasetName,
      split: split.split,
      grades: pair.grades,
      index,
      total: queue.items.length,
      judged: pair.judged,
      item: cur && pair.item ? { queryId: cur.queryId, docId: cur.docId, ...pair.item } : null,
      scores: pair.scores,
      message: queue.items.length === 0 ? 'The pool is empty: every top-ranked document of the pooled runs is judged.' : null,
      order: this.pooled.order,
      meter: pair.meter,
      qrels: pair.qrels,
      queue: queueId,
      jump: this.jumps,
      ahead: pair.ahead,
      references: pair.references,
    };
  }

  /**
   * Grades the pair the sidebar shows: `grade` for (queryId, docId), which the sidebar showed at `index` of
   * queue `queue`. That pair is graded, or nothing is (a request of an older queue is refused, with why). The
   * grade -1 is "unsure": recorded as pooled but not judged, with the note saying so.
   */
  private async judgeShown(p: ParamsOf<'annotate', 'judge'>): Promise<null> {
    const { split, queue } = this.need(p.queue);
    if (!split.grades.includes(p.grade) && p.grade !== -1) throw new Error(`grade ${p.grade} is not on this dataset's scale (${split.grades.join(', ')})`);
    queue.place(p.index, { queryId: p.queryId, docId: p.docId });
    const note = p.grade === -1 ? `unsure${p.note ? `: ${p.note}` : ''}` : p.note || undefined;
    await this.recordCurrent(p.grade, note);
    return null;
  }

  /** Grades the pair the sidebar shows now (the digit keys as a command: keybindings, tasks, tests). */
  async judgeCurrent(grade: number): Promise<null> {
    return this.one(async () => {
      const { split } = this.need();
      if (!split.grades.includes(grade)) throw new Error(`grade ${grade} is not on this dataset's scale (${split.grades.join(', ')})`);
      this.jumps++; // the host moves the sidebar: recordCurrent sends the state once the grade is recorded
      await this.recordCurrent(grade);
      return null;
    });
  }

  /** Records `grade` for the current pair, durably, then moves on (the impact and sampling orders are re-ordered first). */
  private async recordCurrent(grade: number, note?: string): Promise<void> {
    const { split, queue } = this.need();
    const cur = queue.current;
    if (!cur) throw new Error('nothing to judge');
    this.recording = true;
    try {
      const before = await this.wb.judge(split, cur.queryId, cur.docId, grade, note);
      queue.recorded(before === null || before < 0 ? null : before);
      this.save();
      if (this.pooled.order !== 'blind') {
        // What decides the comparison changes with each grade: the rest of the queue is re-ordered before the
        // sidebar is sent the next pair (it shows none meanwhile, and takes no grade).
        const { items } = await this.wb.ask('pool', { key: split.key, runs: this.pooled.runs, depth: this.pooled.depth, order: this.pooled.order });
        queue.reorder(items);
      }
    } finally {
      this.recording = false;
      void this.resend();
    }
  }

  /** The sidebar moved to the pair at `index` (n, s, p): kept, and it gets that pair and the ones after it. */
  private async show(p: ParamsOf<'annotate', 'show'>): Promise<null> {
    const { queue } = this.need(p.queue);
    queue.place(p.index, p.queryId !== undefined && p.docId !== undefined ? { queryId: p.queryId, docId: p.docId } : undefined);
    this.save();
    void this.resend();
    return null;
  }

  private async undo(queueId: number): Promise<{ index: number }> {
    const { split, queue } = this.need(queueId);
    const r = queue.undoRecording();
    if (!r) throw new Error('nothing to undo');
    await this.wb.judge(split, r.queryId, r.docId, r.grade);
    queue.undone();
    this.save();
    return { index: queue.index };
  }

  /** Runs the sidebar's requests one at a time, in the order they came (a grade's move before the next grade). */
  private one<T>(f: () => Promise<T>): Promise<T> {
    const next = this.serial.then(f, f);
    this.serial = next.catch(() => undefined);
    return next;
  }

  private need(queueId?: number): { split: OpenSplit; queue: AnnotationQueue } {
    if (!this.split || !this.queue) throw new Error('no judging queue: open the Holes panel first');
    if (queueId !== undefined && queueId !== this.queueId) {
      throw new Error('not recorded: the judging queue changed (another pool, order or split) before this reached it; the sidebar now shows the new queue');
    }
    return { split: this.split, queue: this.queue };
  }

  private save(): void {
    if (!this.split || !this.queue) return;
    const cur = this.queue.current;
    const session: Session = {
      datasetDir: this.split.datasetDir,
      split: this.split.split,
      ...this.pooled,
      index: this.queue.index,
      ...(cur ? { pair: { queryId: cur.queryId, docId: cur.docId } } : {}),
    };
    void this.wb.context.workspaceState.update(SESSION_KEY, session);
  }

  /** The session of before a window reload, if there was one: the same split, pool, order and pair. */
  private async restore(): Promise<void> {
    const s = this.wb.context.workspaceState.get<Session>(SESSION_KEY);
    if (!s || typeof s.datasetDir !== 'string' || typeof s.split !== 'string' || !Array.isArray(s.runs)) return;
    try {
      const split = await this.wb.open(s.datasetDir, s.split);
      if (this.queue) return; // a queue was started meanwhile
      const runs = s.runs.filter((k) => split.runs.some((r) => r.key === k));
      if (runs.length === 0) return;
      await this.start(split, runs, s.depth === 5 || s.depth === 20 ? s.depth : 10, s.order === 'impact' || s.order === 'sample' ? s.order : 'blind', { index: Number.isInteger(s.index) ? s.index : 0, pair: s.pair });
    } catch (e) {
      void vscode.window.showWarningMessage(`IR Workbench: the judging session of ${s.datasetDir} (${s.split}) could not be restored: ${(e as Error).message}`);
    }
  }
}
