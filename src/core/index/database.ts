import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import initSqlJs from 'sql.js';
import type { Database, SqlJsStatic } from 'sql.js';
import { writeFileAtomic } from '../durableFs';
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
 * Opens the store: the snapshot at `path` when there is a usable one, else an empty database; then applies
 * the migrations it lacks. A snapshot that cannot be used is only a cache miss: everything in it is rebuilt
 * from the files on the next indexing.
 */
export async function openDatabase(path: string | undefined): Promise<OpenedDatabase> {
  const SQL = await loadSqlJs();
  let discarded: string | undefined;
  if (path) {
    let bytes: Buffer | undefined;
    try {
      bytes = readFileSync(path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') discarded = `unreadable: ${(e as Error).message}`;
    }
    if (bytes) {
      try {
        const db = new SQL.Database(bytes);
        const version = userVersion(db);
        if (version > SCHEMA_VERSION) {
          db.close();
          discarded = `written by a newer IR Workbench (schema ${version} > ${SCHEMA_VERSION})`;
        } else {
          migrate(db);
          return { db };
        }
      } catch (e) {
        discarded = `corrupt: ${(e as Error).message}`;
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
 * Writes the whole database to `path` atomically. sql.js can only export the whole database, so callers
 * debounce this (see Snapshotter); judgements do not depend on it (they are durable in the annotation files).
 */
export function saveSnapshot(db: Database, path: string): number {
  const bytes = db.export();
  // export() resets sql.js's connection-level pragmas.
  db.run('PRAGMA foreign_keys = ON');
  writeFileAtomic(path, bytes);
  return bytes.length;
}

/**
 * Saves a snapshot at most once per `delayMs` after changes, and at once on flush(): the cost of persisting
 * is bounded by time, not by the number of judgements.
 */
export class Snapshotter {
  private timer: NodeJS.Timeout | undefined;
  private dirty = false;
  lastSize = 0;

  constructor(
    private readonly db: Database,
    private readonly path: string | undefined,
    private readonly delayMs: number,
  ) {}

  changed(): void {
    this.dirty = true;
    if (!this.path || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, this.delayMs);
    this.timer.unref?.();
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.dirty || !this.path) return;
    this.dirty = false;
    this.lastSize = saveSnapshot(this.db, this.path);
  }
}
