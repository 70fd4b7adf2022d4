import * as vscode from 'vscode';
import { AnnotationQueue } from '../../core/analysis/annotationQueue';
import type { AnnotationState, QueueOrder } from '../../protocol/webview';
import { ViewChannel } from '../webview/channel';
import { viewHtml, webviewOptions } from '../webview/html';
import type { AnalysisWorkbench, OpenSplit, SplitView } from './workbench';

export const ANNOTATE_VIEW_ID = 'irWorkbench.annotate';

/**
 * The hole-annotation sidebar (a webview view in the IR Workbench container): one (query, document) pair at
 * a time from a depth-k pool, blind to the runs that retrieved it. Keyboard first (in the webview). Each
 * grade is durable (the store appends and fsyncs) before the view moves on; every open view of the split
 * then shows the new scores.
 */
export class AnnotateView implements vscode.WebviewViewProvider, SplitView {
  private channel: ViewChannel<'annotate'> | undefined;
  private split: OpenSplit | undefined;
  private queue: AnnotationQueue | undefined;
  /** The pool being judged and its order (impact: re-ordered after each judgement, with a meter). */
  private pooled: { runs: string[]; depth: number; order: QueueOrder } = { runs: [], depth: 10, order: 'blind' };

  constructor(private readonly wb: AnalysisWorkbench) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    view.webview.options = webviewOptions(this.wb.context.extensionUri);
    view.webview.html = viewHtml(view.webview, this.wb.context.extensionUri, 'annotate', 'Judge Holes');
    this.channel?.dispose();
    this.channel = new ViewChannel<'annotate'>(view.webview, {
      judge: ({ grade }) => this.judgeCurrent(grade),
      move: ({ by }) => {
        this.queue?.move(by);
        this.refresh();
        return null;
      },
      undo: () => this.undo(),
      setOrder: async ({ order }) => {
        const { split } = this.need();
        await this.start(split, this.pooled.runs, this.pooled.depth, order === 'impact' ? 'impact' : 'blind');
        return null;
      },
    }, () => this.refresh());
    view.onDidDispose(() => {
      this.channel?.dispose();
      this.channel = undefined;
    });
    this.refresh();
  }

  /** Starts judging the pool of `runs` at `depth` for the split, and shows the view. */
  async start(split: OpenSplit, runs: string[], depth: number, order: QueueOrder = 'blind'): Promise<AnnotationState> {
    if (this.split && this.split !== split) this.split.views.delete(this);
    this.split = split;
    split.views.add(this);
    this.pooled = { runs, depth, order };
    const impact = order === 'impact' ? split.session.impactQueue(runs, depth) : null;
    this.queue = new AnnotationQueue(impact?.items ?? split.session.pool(runs, depth, split.session.userJudged()));
    // Start at the first pair still unjudged.
    const first = this.queue.items.findIndex((p) => split.session.grade(p.queryId, p.docId) === null);
    this.queue.move(first < 0 ? 0 : first);
    await vscode.commands.executeCommand(`${ANNOTATE_VIEW_ID}.focus`);
    this.refresh();
    return this.state();
  }

  refresh(): void {
    this.channel?.send('state', this.state());
  }

  state(): AnnotationState {
    const split = this.split;
    const queue = this.queue;
    if (!split || !queue) {
      return {
        dataset: '', split: '', grades: [], index: 0, total: 0, judged: 0, item: null, scores: [],
        message: 'Nothing to judge yet: open IR Workbench: Show Holes and press "Judge in the sidebar", or run IR Workbench: Judge Holes.',
      };
    }
    const s = split.session;
    const cur = queue.current;
    const doc = cur ? s.corpus.read(cur.docId) : null;
    return {
      dataset: s.datasetName,
      split: s.split,
      grades: s.gradeScale(),
      index: queue.index,
      total: queue.items.length,
      judged: s.judgementCount,
      item: cur
        ? {
            queryId: cur.queryId,
            queryText: s.queries.get(cur.queryId)?.text ?? '',
            docId: cur.docId,
            title: doc?.title ?? '',
            text: doc?.text ?? '(this document is not in corpus.jsonl)',
            grade: s.grade(cur.queryId, cur.docId),
          }
        : null,
      scores: s.annotatedScores(),
      message: queue.items.length === 0 ? 'The pool is empty: every top-ranked document of the pooled runs is judged.' : null,
      order: this.pooled.order,
      meter: this.pooled.order === 'impact' ? s.impactMeter(this.pooled.runs, this.pooled.depth) : null,
    };
  }

  async judgeCurrent(grade: number): Promise<null> {
    const { split, queue } = this.need();
    const cur = queue.current;
    if (!cur) throw new Error('nothing to judge');
    if (!split.session.gradeScale().includes(grade)) throw new Error(`grade ${grade} is not on this dataset's scale (${split.session.gradeScale().join(', ')})`);
    const before = split.session.grade(cur.queryId, cur.docId);
    await this.wb.judge(split, cur.queryId, cur.docId, grade);
    queue.recorded(before);
    if (this.pooled.order === 'impact') queue.reorder(split.session.impactQueue(this.pooled.runs, this.pooled.depth)?.items ?? []);
    this.refresh();
    return null;
  }

  private async undo(): Promise<null> {
    const { split, queue } = this.need();
    const r = queue.undoRecording();
    if (!r) throw new Error('nothing to undo');
    await this.wb.judge(split, r.queryId, r.docId, r.grade);
    queue.undone();
    this.refresh();
    return null;
  }

  private need(): { split: OpenSplit; queue: AnnotationQueue } {
    if (!this.split || !this.queue) throw new Error('no judging queue: open the Holes panel first');
    return { split: this.split, queue: this.queue };
  }
}
