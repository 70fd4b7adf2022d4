/** Shared fixtures of the store tests: the real data in ../shared (or IRW_SHARED), and scratch workspaces copied from it. */
import { cpSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DATASETS, RUNS } from '../shared-data.cjs';

export { needsShared, SHARED } from '../shared-data.cjs';
export const SCIFACT = join(DATASETS, 'scifact');
export const SCIFACT_RUNS = join(RUNS, 'scifact');

/**
 * A writable workspace holding a copy of SciFact (corpus, queries, test qrels) and the named runs under
 * runs/scifact/, as a user's checkout would.
 */
export function scifactWorkspace(runs: readonly string[]): { root: string; dataset: string; runsDir: string } {
  const root = mkdtempSync(join(tmpdir(), 'irw-store-ws-'));
  const dataset = join(root, 'data', 'scifact');
  mkdirSync(join(dataset, 'qrels'), { recursive: true });
  for (const f of ['corpus.jsonl', 'queries.jsonl', 'qrels/test.tsv']) cpSync(join(SCIFACT, f), join(dataset, f));
  const runsDir = join(root, 'runs', 'scifact');
  mkdirSync(runsDir, { recursive: true });
  for (const r of runs) cpSync(join(SCIFACT_RUNS, r), join(runsDir, r));
  return { root, dataset, runsDir };
}

/** Golden trec_eval output as `measure<TAB>qid` -> value (qid `all` for the summary line). */
export function goldenValues(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const l of text.split('\n')) {
    const f = l.split(/\s+/);
    if (f.length >= 3) out.set(`${f[0]}\t${f[1]}`, Number(f[2]));
  }
  return out;
}
