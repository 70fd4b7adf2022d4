import { hashBytes, type DocIds } from '../formats/docArena';
import { encodeId, IdTable } from '../formats/idTable';
import type { Qrels, QueryJudgements } from '../formats/qrels';
import { NONPOOL, UNJUDGED } from './relevance';

/**
 * One query's judgements as a small hash table keyed by UTF-8 bytes, so each retrieved document is looked up
 * by its bytes in the run (no string per retrieved document). Reused from query to query.
 */
export class JudgementTable {
  private keys: Buffer[] = [];
  private hashes = new Int32Array(64);
  private values = new Int32Array(64);
  private slots = new Int32Array(128);
  private mask = 127;

  load(j: QueryJudgements): void {
    const n = j.docs.length;
    let size = 128;
    while (size < n * 2) size <<= 1;
    if (size !== this.slots.length) {
      this.slots = new Int32Array(size);
      this.mask = size - 1;
    } else this.slots.fill(0);
    if (this.hashes.length < n) {
      this.hashes = new Int32Array(n);
      this.values = new Int32Array(n);
    }
    this.keys.length = n;
    for (let k = 0; k < n; k++) {
      const key = encodeId(j.docs[k]);
      const h = hashBytes(key, 0, key.length);
      this.keys[k] = key;
      this.hashes[k] = h;
      // trec_eval: a negative grade means in the pool but unjudged.
      this.values[k] = j.grades[k] >= 0 ? j.grades[k] : UNJUDGED;
      let slot = h & this.mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & this.mask;
      this.slots[slot] = k + 1;
    }
  }

  /** The relevance value of arena entry `id`: its grade, UNJUDGED, or NONPOOL if not in the qrels. */
  lookup(docs: DocIds, id: number): number {
    const h = docs.hash(id);
    let slot = h & this.mask;
    for (;;) {
      const v = this.slots[slot];
      if (v === 0) return NONPOOL;
      const k = v - 1;
      if (this.hashes[k] === h) {
        const key = this.keys[k];
        if (docs.equalsBytes(id, key, 0, key.length)) return this.values[k];
      }
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
