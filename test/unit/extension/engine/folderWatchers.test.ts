// Node's watchers on dataset folders (real inotify watchers on a temporary folder): a runs folder made after its
// dataset was first watched, or made again, is watched from the next update on, every watcher started asks for
// one more pass (a file written before it subscribed gives no event), and an update that starts none asks for nothing,
// nor does one that starts a failed watcher again (a watcher's failure is its `error` event, sent here by the test).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { DatasetFolderWatchers } from '../../../../src/extension/engine/folderWatchers';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const reads = { dataset: (n: string) => n === 'corpus.jsonl', qrels: (n: string) => n.endsWith('.tsv'), run: (n: string) => n.endsWith('.trec') };

let root: string;
let seen: string[];
let passes: number;
let w: DatasetFolderWatchers;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'irw-watch-'));
  mkdirSync(join(root, 'ds'));
  seen = [];
  passes = 0;
  w = new DatasetFolderWatchers(reads, (folder, name) => seen.push(join(folder, name).slice(root.length + 1)), () => passes++);
});
afterEach(() => {
  w.dispose();
  rmSync(root, { recursive: true, force: true });
});

/** Waits (up to 3 s) until `what` was seen. */
async function waitSeen(what: string): Promise<void> {
  for (let i = 0; i < 60 && !seen.includes(what); i++) await sleep(50);
  assert.ok(seen.includes(what), `${what} seen (saw ${JSON.stringify(seen)})`);
}

test('a runs folder made after its dataset was watched is watched from the next update, and that asks for a pass', async () => {
  const ds = join(root, 'ds');
  w.update([ds], 'runs');
  assert.equal(passes, 1, 'the dataset folder watched: one more pass');
  mkdirSync(join(ds, 'runs'));
  await waitSeen(join('ds', 'runs'));
  w.update([ds], 'runs');
  assert.equal(passes, 2, 'runs/ watched now: one more pass for what was written into it before');
  writeFileSync(join(ds, 'runs', 'bm25.trec'), '1 Q0 d1 1 1.0 x\n');
  await waitSeen(join('ds', 'runs', 'bm25.trec'));
  writeFileSync(join(ds, 'runs', 'notes.txt'), 'not a run\n');
  await sleep(300);
  assert.ok(!seen.includes(join('ds', 'runs', 'notes.txt')), 'names the index does not read give no event');
});

test('a runs folder removed and made again (a script rebuilding it) is watched again from the next update', async () => {
  const ds = join(root, 'ds');
  mkdirSync(join(ds, 'runs'));
  w.update([ds], 'runs');
  rmSync(join(ds, 'runs'), { recursive: true });
  mkdirSync(join(ds, 'runs'));
  // The update comes after the pass the dataset folder's event starts.
  await waitSeen(join('ds', 'runs'));
  w.update([ds], 'runs');
  assert.equal(passes, 2, 'the new folder watched: one more pass');
  writeFileSync(join(ds, 'runs', 'bm25.trec'), '1 Q0 d1 1 1.0 x\n');
  await waitSeen(join('ds', 'runs', 'bm25.trec'));
});

test('an update that starts no watcher asks for no pass (the pass it asked for does not ask for another)', () => {
  const ds = join(root, 'ds');
  mkdirSync(join(ds, 'qrels'));
  mkdirSync(join(ds, 'runs'));
  w.update([ds], 'runs');
  assert.equal(passes, 1);
  w.update([ds], 'runs');
  w.update([ds], 'runs');
  assert.equal(passes, 1);
});

test('a dataset gone from the list is no longer watched; a new runs folder name is watched instead of the old', async () => {
  const ds = join(root, 'ds');
  mkdirSync(join(ds, 'runs'));
  mkdirSync(join(ds, 'mine'));
  w.update([ds], 'runs');
  w.update([ds], 'mine');
  assert.equal(passes, 2, 'the datasets watchers started again for the new runs folder');
  writeFileSync(join(ds, 'mine', 'a.trec'), '1 Q0 d1 1 1.0 x\n');
  await waitSeen(join('ds', 'mine', 'a.trec'));
  writeFileSync(join(ds, 'runs', 'b.trec'), '1 Q0 d1 1 1.0 x\n');
  w.update([], 'mine');
  writeFileSync(join(ds, 'corpus.jsonl'), '{}\n');
  writeFileSync(join(ds, 'mine', 'c.trec'), '1 Q0 d1 1 1.0 x\n');
  await sleep(300);
  assert.deepEqual(seen.filter((s) => /b\.trec|c\.trec|corpus/.test(s)), [], 'no event from the old runs folder, nor after the dataset left the list');
});

test('a watcher that fails each time it starts is started again at each update, without asking for a pass each time', async () => {
  const ds = join(root, 'ds');
  mkdirSync(join(ds, 'qrels'));
  mkdirSync(join(ds, 'runs'));
  const runs = join(ds, 'runs');
  let runsStarts = 0;
  // node:fs's watch, except that the runs folder's watchers fail just after they start (an `error` event).
  const failing = (folder: string, listener: (event: string, name: string | Buffer | null) => void) => {
    const watcher = watch(folder, listener);
    if (folder === runs) {
      runsStarts++;
      setImmediate(() => watcher.emit('error', new Error('EPERM')));
    }
    return watcher;
  };
  const own = new DatasetFolderWatchers(reads, () => undefined, () => passes++, failing);
  try {
    own.update([ds], 'runs');
    assert.equal(passes, 1, 'the folders watched: one more pass');
    for (let i = 0; i < 3; i++) {
      await sleep(20);
      own.update([ds], 'runs');
    }
    assert.equal(runsStarts, 4, 'the failed watcher is started again at each update');
    assert.equal(passes, 1, 'starting it again asks for no pass (each pass would end in an update that starts it again)');
    // Gone while failed and made again: a new folder, whose watcher's start asks for a pass as any first one does.
    await sleep(20);
    rmSync(runs, { recursive: true });
    own.update([ds], 'runs');
    mkdirSync(runs);
    own.update([ds], 'runs');
    assert.equal(passes, 2, 'the runs folder made again: one more pass');
  } finally {
    own.dispose();
  }
});

test('a runs folder removed and made again after its watcher failed is a new folder: its watcher asks for a pass', async () => {
  const ds = join(root, 'ds');
  const runs = join(ds, 'runs');
  mkdirSync(runs);
  let fail: (() => void) | undefined;
  // node:fs's watch, with a way to fail the runs folder's watcher (as Windows fails a removed folder's).
  const failing = (folder: string, listener: (event: string, name: string | Buffer | null) => void) => {
    const watcher = watch(folder, listener);
    if (folder === runs) fail = () => watcher.emit('error', new Error('EPERM'));
    return watcher;
  };
  const own = new DatasetFolderWatchers(reads, (folder, name) => seen.push(join(folder, name).slice(root.length + 1)), () => passes++, failing);
  try {
    own.update([ds], 'runs');
    assert.equal(passes, 1);
    rmSync(runs, { recursive: true });
    fail?.();
    mkdirSync(runs);
    await waitSeen(join('ds', 'runs'));
    await sleep(50);
    own.update([ds], 'runs');
    assert.equal(passes, 2, 'the new runs folder watched: one more pass for what was written into it before');
  } finally {
    own.dispose();
  }
});
