import { hashBytes, type DocIds } from '../formats/idTable';
import { encodeIdInto, IdTable } from '../formats/idTable';
import type { Qrels, QueryJudgements } from '../formats/qrels';
import { NONPOOL, UNJUDGED } from './relevance';

/**
 * One query's judgements as a small hash table keyed by UTF-8 bytes, so each retrieved document is looked up
 * by its bytes in the run (no string per retrieved document). Reused from query to query.
 */
export class JudgementTable {
  // Keys' bytes one after another in one reused buffer (no Buffer per judged document and query).
  private bytes = Buffer.allocUnsafe(1 << 16);
  private starts = new Int32Array(65);
  private hashes = new Int32Array(64);
  private values = new Int32Array(64);
  private slots = new Int32Array(128);
  private mask = 127;

  load(j: QueryJudgements): void {
    const n = j.docs.length;
    // Most ranked documents are not judged: a table at most 1/8 full answers them on the first probe, without
    // the unpredictable branch of a half-full table (evaluate on the bench:eval files: ~350 -> ~245 ms).
    let size = 128;
    while (size < n * 8) size <<= 1;
    if (size !== this.slots.length) {
      this.slots = new Int32Array(size);
      this.mask = size - 1;
    } else this.slots.fill(0);
    if (this.hashes.length < n) {
      this.hashes = new Int32Array(n);
      this.values = new Int32Array(n);
      this.starts = new Int32Array(n + 1);
    }
    let at = 0;
    for (let k = 0; k < n; k++) {
      const doc = j.docs[k];
      // UTF-8 takes at most 3 bytes per UTF-16 code unit (an escaped byte takes 1).
      if (at + 3 * doc.length > this.bytes.length) {
        const grown = Buffer.allocUnsafe(Math.max(2 * this.bytes.length, at + 3 * doc.length));
        this.bytes.copy(grown, 0, 0, at);
        this.bytes = grown;
      }
      const end = encodeIdInto(doc, this.bytes, at);
      const h = hashBytes(this.bytes, at, end);
      this.starts[k] = at;
      at = end;
      this.hashes[k] = h;
      // trec_eval: a negative grade means in the pool but unjudged.
      this.values[k] = j.grades[k] >= 0 ? j.grades[k] : UNJUDGED;
      let slot = h & this.mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & this.mask;
      this.slots[slot] = k + 1;
    }
    this.starts[n] = at;
  }

  /** The relevance value of arena entry `id`: its grade, UNJUDGED, or NONPOOL if not in the qrels. */
  lookup(docs: DocIds, id: number): number {
    const h = docs.hash(id);
    let slot = h & this.mask;
    for (;;) {
      const v = this.slots[slot];
      if (v === 0) return NONPOOL;
      const k = v - 1;
      if (this.hashes[k] === h && docs.equalsBytes(id, this.bytes, this.starts[k], this.starts[k + 1])) return this.values[k];
      slot = (slot + 1) & this.mask;
    }
  }
}

/** Documents judged (grade >= 0) for some query: BEIR's "annotated corpus", for hole.k. */
export function judgedDocsTable(qrels: Qrels): IdTable {
  const t = new IdTable(1024);
  for (const qid of qrels.queryIds()) {
    const j = qrels.judgements(qid)!;
    j.docs.forEach((d, k) => j.grades[k] >= 0 && t.internString(d));
  }
  return t;
}
