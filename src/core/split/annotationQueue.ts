/**
 * A judging queue over a fixed list of (query, document) pairs — a depth-k pool taken when judging starts,
 * so items do not shift while the judge works. Keeps the position and an undo history; recording is the
 * caller's (durable first, then `recorded`).
 */
export interface QueueItem {
  queryId: string;
  docId: string;
}

export interface Recording extends QueueItem {
  grade: number;
}

interface Done extends QueueItem {
  at: number;
  /** The effective grade before this judgement; null when the pair was unjudged. */
  before: number | null;
}

export class AnnotationQueue {
  index = 0;
  private readonly history: Done[] = [];
  private list: readonly QueueItem[];

  constructor(items: readonly QueueItem[]) {
    this.list = items;
  }

  get items(): readonly QueueItem[] {
    return this.list;
  }

  /**
   * For an order that changes with each judgement (impact): the items from the current one on become `next`,
   * less those already passed (kept, so moving back and undo still find them).
   */
  reorder(next: readonly QueueItem[]): void {
    const kept = this.list.slice(0, this.index);
    const passed = new Set(kept.map((i) => `${i.queryId}\t${i.docId}`));
    this.list = [...kept, ...next.filter((i) => !passed.has(`${i.queryId}\t${i.docId}`))];
    if (this.index >= this.list.length) this.index = Math.max(0, this.list.length - 1);
  }

  get current(): QueueItem | undefined {
    return this.items[this.index];
  }

  /** Moves by a whole number of items (clamped to the queue); anything else (NaN, 0.5, a string) is refused, the position kept. */
  move(by: number): void {
    if (!Number.isSafeInteger(by)) throw new RangeError(`cannot move the queue by ${JSON.stringify(by)}: give a whole number of items`);
    this.index = Math.max(0, Math.min(this.items.length - 1, this.index + by));
  }

  /**
   * Makes the pair at `index` current, and `item` that pair when given (what the Judge sidebar shows there):
   * should the order have changed under the sidebar, the item is moved there from later in the list, or
   * inserted; one already passed stays where it is and becomes current. Throws for an index not in the list.
   */
  place(index: number, item?: QueueItem): void {
    if (!Number.isInteger(index) || index < 0 || index >= this.list.length) {
      throw new RangeError(`there is no pair ${index + 1} in this queue of ${this.list.length}`);
    }
    const same = (i: QueueItem) => item !== undefined && i.queryId === item.queryId && i.docId === item.docId;
    const found = item === undefined ? index : this.list.findIndex(same);
    if (found >= 0 && found <= index) {
      this.index = found;
      return;
    }
    this.index = index;
    this.reorder([item!, ...this.list.slice(index).filter((i) => !same(i))]);
  }

  /** After `grade` for the current item is durable: remember what it replaced, go to the next item. */
  recorded(before: number | null): void {
    const item = this.current;
    if (!item) return;
    this.history.push({ ...item, at: this.index, before });
    if (this.index < this.items.length - 1) this.index++;
  }

  /**
   * What undoing the last judgement records: the grade it replaced, or -1 (trec_eval's "pooled but not
   * judged") where there was none, since an append-only file cannot take a line back. Undefined when
   * there is nothing to undo. The caller records it, then calls `undone`.
   */
  undoRecording(): Recording | undefined {
    const last = this.history[this.history.length - 1];
    return last && { queryId: last.queryId, docId: last.docId, grade: last.before ?? -1 };
  }

  /** After the undo's recording is durable: back to the undone item. */
  undone(): void {
    const last = this.history.pop();
    if (last) this.index = last.at;
  }
}
