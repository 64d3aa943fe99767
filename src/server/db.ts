import { chmodSync, closeSync, openSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations.js';
import { DAY } from '../time.js';

export type Db = Database.Database;

/**
 * Makes sure the database file exists with mode 0600 before SQLite opens it: SQLite
 * creates its -wal and -shm files with the permissions of the database file, so all
 * three stay readable by the owner only (key hashes, resource data). An existing file
 * open to others is narrowed to 0600. Throws the fs error when it cannot.
 */
function ownerOnlyFile(path: string): void {
  closeSync(openSync(path, 'a', 0o600));
  for (const f of [path, `${path}-wal`, `${path}-shm`]) {
    const mode = statSync(f, { throwIfNoEntry: false })?.mode;
    if (mode !== undefined && (mode & 0o077) !== 0) chmodSync(f, 0o600);
  }
}

/**
 * Opens (creating if needed) the service database at `path` (`:memory:` allowed), in WAL
 * mode with foreign keys on, and applies pending migrations. A file database and its
 * -wal/-shm are owner-only (0600).
 * Throws the driver's error when the file cannot be opened or a migration fails.
 */
export function openDatabase(path: string): Db {
  if (path !== ':memory:' && path !== '') ownerOnlyFile(path);
  const db = new Database(path);
  if (path !== ':memory:') db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
}

/**
 * What SQLite's `PRAGMA quick_check` finds wrong with the database (its first problem), or
 * undefined when nothing: pages damaged in the middle of a file would otherwise go unseen
 * until a request reads them (a 500). It reads every page once without checking indexes
 * against their tables (that is `integrity_check`, ~1.5× slower): 4.7-10 s for a file of
 * 351 MiB (1M log entries) measured on 2 busy cores, ~13-29 ms a MiB. SQLITE_CORRUPT from the
 * check itself is damage too (its message); other errors are thrown.
 */
export function damage(db: Db): string | undefined {
  try {
    const rows = db.pragma('quick_check(1)', { simple: false }) as { quick_check: string }[];
    const first = rows[0]?.quick_check;
    return first === undefined || first === 'ok' ? undefined : first;
  } catch (e) {
    // a damaged page met where SQLite reads rows rather than checks pages fails the statement itself
    if (String((e as { code?: unknown }).code).startsWith('SQLITE_CORRUPT')) return (e as Error).message;
    throw e;
  }
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

/** The UTC day last formatted: its first ms and its `YYYY-MM-DDT` (a page of the log is mostly one day). */
let day = { start: NaN, prefix: '' };
const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/**
 * Milliseconds since the epoch → RFC 3339 UTC with `Z`, exactly as Date#toISOString; NULL (not
 * set) → null, never "" (contract §2). The date part is reused within a day: a page of 1000
 * log entries spent a fifth of its time in toISOString (bench/serve.md).
 */
export function isoOrNull(ms: number | null | undefined): string | null {
  if (ms == null) return null;
  if (!(ms >= day.start && ms < day.start + DAY)) {
    if (!Number.isInteger(ms)) return new Date(ms).toISOString(); // NaN and fractions: as toISOString does (RangeError or rounding)
    const start = ms - (((ms % DAY) + DAY) % DAY);
    day = { start, prefix: new Date(start).toISOString().slice(0, -13) };
  }
  const t = ms - day.start;
  const msPart = t % 1000;
  const s = Math.floor(t / 1000);
  return `${day.prefix}${pad2(Math.floor(s / 3600))}:${pad2(Math.floor(s / 60) % 60)}:${pad2(s % 60)}.${msPart < 10 ? '00' : msPart < 100 ? '0' : ''}${msPart}Z`;
}

/** Statements per database by SQL text; bounded, since list SQL varies with the filter's shape. */
const statements = new WeakMap<Db, Map<string, Database.Statement>>();
const STATEMENT_CACHE_MAX = 500;

/**
 * The prepared statement for `sql` on `db`, prepared once and reused (SQL built by us
 * only: user text reaches SQL as bound parameters, never in `sql`). Callers set the
 * statement's mode (`pluck()`, `raw()`) on every use, since the statement is shared.
 */
export function cachedStatement(db: Db, sql: string): Database.Statement {
  let m = statements.get(db);
  if (!m) statements.set(db, (m = new Map()));
  let s = m.get(sql);
  if (!s) {
    if (m.size >= STATEMENT_CACHE_MAX) m.clear();
    m.set(sql, (s = db.prepare(sql)));
  }
  return s;
}
