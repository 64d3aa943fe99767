import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations.js';

export type Db = Database.Database;

/**
 * Opens (creating if needed) the service database at `path` (`:memory:` allowed), in WAL
 * mode with foreign keys on, and applies pending migrations.
 * Throws the driver's error when the file cannot be opened or a migration fails.
 */
export function openDatabase(path: string): Db {
  const db = new Database(path);
  if (path !== ':memory:') db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
}

/** Applies the migrations not yet recorded in `PRAGMA user_version`; returns how many ran. */
export function migrate(db: Db): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new Error(`database schema version ${current} is newer than this lic (${MIGRATIONS.length}); upgrade lic`);
  }
  let ran = 0;
  for (let v = current; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!);
      db.pragma(`user_version = ${v + 1}`);
    })();
    ran++;
  }
  return ran;
}

/** Milliseconds since the epoch → RFC 3339 UTC with `Z` (contract §2); NULL → ''. */
export function isoOrEmpty(ms: number | null | undefined): string {
  return ms == null ? '' : new Date(ms).toISOString();
}
