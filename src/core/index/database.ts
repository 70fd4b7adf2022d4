import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import initSqlJs from 'sql.js';
import type { Database, SqlJsStatic } from 'sql.js';
import { CheckedReader, writeChecked } from '../formats/checkedFile';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations';

let sqlJs: Promise<SqlJsStatic> | undefined;

/** Loads sql.js's WASM build once per thread, from the installed package (no network, no bundling). */
export function loadSqlJs(): Promise<SqlJsStatic> {
  sqlJs ??= initSqlJs({ locateFile: (file: string) => join(dirname(require.resolve('sql.js')), file) });
  return sqlJs;
}

export interface OpenedDatabase {
  db: Database;
  /** Why an existing snapshot was not used (unreadable, corrupt, newer schema), if it was not. */
  discarded?: string;
}

/**
 * The snapshot file: this magic, the SQLite database sql.js exported, and the SHA-256 of both (a checked
 * file): any damage anywhere in it, even in a page SQLite would only trip over later, is seen before use.
 */
const SNAPSHOT_MAGIC = Buffer.from('IRWSNAP1', 'latin1');

/**
 * Opens the store: the snapshot at `path` when there is a usable one, else an empty database; then applies
 * the migrations it lacks. A snapshot that cannot be used, however damaged, is only a cache miss: everything
 * in it is rebuilt from the files on the next indexing.
 */
export async function openDatabase(path: string | undefined): Promise<OpenedDatabase> {
  const SQL = await loadSqlJs();
  let discarded: string | undefined;
  if (path) {
    const r = CheckedReader.open(path, SNAPSHOT_MAGIC);
    if (r === 'absent') {
      if (existsSync(path)) discarded = 'unreadable';
    } else if (r === 'corrupt') {
      discarded = 'damaged, or written by an older IR Workbench';
    } else {
      let bytes: Buffer | undefined;
      try {
        bytes = r.read(r.bodyBytes - r.position);
      } catch (e) {
        discarded = `unreadable: ${(e as Error).message}`;
      }
      if (bytes && !r.verify()) discarded = 'damaged (its checksum does not match)';
      r.close();
      if (bytes && !discarded) {
        let db: Database | undefined;
        try {
          db = new SQL.Database(bytes);
          const version = userVersion(db);
          if (version > SCHEMA_VERSION) discarded = `written by a newer IR Workbench (schema ${version} > ${SCHEMA_VERSION})`;
          else {
            migrate(db);
            return { db };
          }
        } catch (e) {
          discarded = `unusable: ${(e as Error).message}`;
        }
        db?.close();
      }
    }
  }
  const db = new SQL.Database();
  migrate(db);
  return discarded ? { db, discarded } : { db };
}

function userVersion(db: Database): number {
  return Number(db.exec('PRAGMA user_version')[0].values[0][0]);
}

/** Applies migrations past the database's user_version, each in its own transaction. */
export function migrate(db: Database): void {
  db.run('PRAGMA foreign_keys = ON');
  for (let v = userVersion(db); v < SCHEMA_VERSION; v++) {
    db.run('BEGIN');
    try {
      db.run(MIGRATIONS[v]);
      db.run(`PRAGMA user_version = ${v + 1}`);
      db.run('COMMIT');
    } catch (e) {
      db.run('ROLLBACK');
      throw e;
    }
  }
}

/**
 * Writes the whole database to `path` atomically (a checked file, see openDatabase). sql.js can only export the
 * whole database, so callers debounce this (see Snapshotter); judgements do not depend on it (they are durable
 * in the annotation files).
 */
export function saveSnapshot(db: Database, path: string): number {
  const bytes = db.export();
  // export() resets sql.js's connection-level pragmas.
  db.run('PRAGMA foreign_keys = ON');
  writeChecked(path, [SNAPSHOT_MAGIC, bytes]);
  return bytes.length;
}

const MAX_RETRY_MS = 60_000;

/**
 * Saves a snapshot at most once per `delayMs` after changes, and at once on flush(): the cost of persisting
 * is bounded by time, not by the number of judgements. The snapshot is a cache: a save that fails (disk full,
 * a folder in its place) is reported once through `onWarning`, retried later (backing off to a minute), and
 * never stops the engine; the previous snapshot stays as it was.
 */
export class Snapshotter {
  private timer: NodeJS.Timeout | undefined;
  private dirty = false;
  private failing = false;
  private retryMs: number;
  lastSize = 0;

  constructor(
    private readonly db: Database,
    private readonly path: string | undefined,
    private readonly delayMs: number,
    private readonly onWarning: (message: string) => void = () => undefined,
  ) {
    this.retryMs = delayMs;
  }

  changed(): void {
    this.dirty = true;
    this.schedule(this.delayMs);
  }

  /** Saves now if anything changed; throws (naming the file) when the save fails. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.dirty || !this.path) return;
    try {
      this.lastSize = saveSnapshot(this.db, this.path);
    } catch (e) {
      this.failed(e);
      throw e;
    }
    this.dirty = false;
    this.failing = false;
    this.retryMs = this.delayMs;
  }

  private schedule(ms: number): void {
    if (!this.path || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      try {
        this.flush();
      } catch {
        this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
        this.schedule(this.retryMs);
      }
    }, ms);
    this.timer.unref?.();
  }

  private failed(e: unknown): void {
    if (this.failing) return;
    this.failing = true;
    const why = (e as { format?: () => string }).format?.() ?? (e as Error).message;
    this.onWarning(
      `The index snapshot could not be saved: ${why}\nNothing is lost: judgements are in the annotation files, and the index is rebuilt from the files if needed. Saving is tried again.`,
    );
  }
}
