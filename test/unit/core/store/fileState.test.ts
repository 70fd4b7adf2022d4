// checkFile takes a hash computed elsewhere (a run parser worker) only for the file as it is now.
import assert from 'node:assert/strict';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openDatabase } from '../../../../src/core/store/database';
import { checkFile, hashedBy, sha256File } from '../../../../src/core/store/fileState';

test("a worker's hash is used when its stamp is the file's, else the file is hashed here", async () => {
  const { db } = await openDatabase(undefined);
  const path = join(mkdtempSync(join(tmpdir(), 'irw-filestate-')), 'run.trec');
  writeFileSync(path, '1 Q0 d1 1 2.5 t\n');
  const st = statSync(path);
  hashedBy(path, `${st.size}:${st.mtimeMs}`, 'from-the-worker');
  assert.equal((await checkFile(db, path))!.state.hash, 'from-the-worker');
  hashedBy(path, 'an-older-stamp', 'from-the-worker');
  assert.equal((await checkFile(db, path))!.state.hash, await sha256File(path));
  // Taken once: the next check hashes again.
  hashedBy(path, `${st.size}:${st.mtimeMs}`, 'from-the-worker');
  await checkFile(db, path);
  assert.equal((await checkFile(db, path))!.state.hash, await sha256File(path));
});
