import * as vscode from 'vscode';
import { AnnotationQueue } from '../../core/split/annotationQueue';
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
  /** The impact or sampling order's re-ordering after a grade, while it is under way. */
  private reordering: Promise<void> | undefined;
  /** The pool being judged and its order (impact, sample: re-ordered after each judgement, with a meter). */
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
        await this.start(split, this.pooled.runs, this.pooled.depth, order === 'impact' || order === 'sample' ? order : 'blind');
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
    if (this.split && this.split !== split) this.wb.detach(this.split, this);
    this.split = split;
    this.wb.attach(split, this);
    this.pooled = { runs, depth, order };
    const { items, firstUnjudged } = await this.wb.ask('pool', { key: split.key, runs, depth, order });
    this.queue = new AnnotationQueue(items);
    this.queue.move(firstUnjudged);
    await vscode.commands.executeCommand(`${ANNOTATE_VIEW_ID}.focus`);
    this.refresh();
    return this.state();
  }

  refresh(): void {
    const channel = this.channel;
    if (!channel) return;
    void this.state().then(
      (s) => channel.send('state', s),
      (e: Error) => void vscode.window.showErrorMessage(`IR Workbench: ${e.message}`),
    );
  }

  /** The sidebar's state: the queue's position (kept here) and the pair's text, grade and the split's figures (from the engine). */
  async state(): Promise<AnnotationState> {
    await this.reordering;
    const split = this.split;
    const queue = this.queue;
    if (!split || !queue) {
      return {
        dataset: '', split: '', grades: [], index: 0, total: 0, judged: 0, item: null, scores: [],
        message: 'Nothing to judge yet: open IR Workbench: Show Holes and press "Judge in the sidebar", or run IR Workbench: Judge Holes.',
      };
    }
    const cur = queue.current;
    const index = queue.index;
    const impact = this.pooled.order !== 'blind' ? { runs: this.pooled.runs, depth: this.pooled.depth, order: this.pooled.order } : undefined;
    const pair = await this.wb.ask('pair', { key: split.key, ...(cur ?? {}), impact });
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
    };
  }

  /** Grades the current pair; the engine's update after it refreshes this view with the next pair. */
  async judgeCurrent(grade: number): Promise<null> {
    const { split, queue } = this.need();
    const cur = queue.current;
    if (!cur) throw new Error('nothing to judge');
    if (!split.grades.includes(grade)) throw new Error(`grade ${grade} is not on this dataset's scale (${split.grades.join(', ')})`);
    const before = await this.wb.judge(split, cur.queryId, cur.docId, grade);
    queue.recorded(before === null || before < 0 ? null : before);
    if (this.pooled.order !== 'blind') {
      // What decides the comparison (impact), or where the next draw falls (sample), changes with each grade:
      // the rest of the queue is re-ordered, and the state the engine's update asks for waits for that (it
      // never shows the pair the old order put next).
      this.reordering = this.wb
        .ask('pool', { key: split.key, runs: this.pooled.runs, depth: this.pooled.depth, order: this.pooled.order })
        .then(({ items }) => queue.reorder(items));
      await this.reordering;
    }
    return null;
  }

  private async undo(): Promise<null> {
    const { split, queue } = this.need();
    const r = queue.undoRecording();
    if (!r) throw new Error('nothing to undo');
    await this.wb.judge(split, r.queryId, r.docId, r.grade);
    queue.undone();
    return null;
  }

  private need(): { split: OpenSplit; queue: AnnotationQueue } {
    if (!this.split || !this.queue) throw new Error('no judging queue: open the Holes panel first');
    return { split: this.split, queue: this.queue };
  }
}
