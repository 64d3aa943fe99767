/**
 * The log in time partitions: one table per UTC day of writing (`log_p<k>`), each with its
 * own indexes, count triggers and trigram full-text index (`log_p<k>_fts`), so that a purge
 * by date drops whole partitions (SQLite frees a table's pages without visiting its rows one
 * by one) instead of deleting entries row by row. `log` is a view over all partitions, with
 * INSTEAD OF triggers, so SQL written against the old table keeps working; the service's
 * own reads are written per partition (armsSql) and its writes go through the view.
 * Design and figures: ./README.md.
 */
import { cachedStatement, type Db } from '../db.js';

const DAY = 86_400_000;
/** A compound SELECT of more arms than this is nested: SQLite refuses more than 500 terms in one. */
const ARMS_PER_COMPOUND = 200;
/** Our own triggers on the view; any other trigger on it is someone else's and is kept. */
const VIEW_TRIGGERS = new Set(['log_view_insert', 'log_view_update', 'log_view_delete']);
/** The columns of a log entry, in table order. */
export const LOG_COLUMNS = 'id, time_stamp, level, message, message_template, exception, properties';

/** Partition k's table, and its full-text index (an FTS5 table). */
export const partTable = (k: number): string => `log_p${k}`;
export const ftsTable = (k: number): string => `log_p${k}_fts`;
/** Stands for the partition number in SQL written once for every partition (see armWhere). */
export const PART = '{{part}}';

/** The UTC day number of a time in ms (days since 1970-01-01, negative before). */
export const dayOf = (ms: number): number => Math.floor(ms / DAY);

/** `where` (SQL written for any partition, naming it by PART) for partition k. */
export const armWhere = (where: string, k: number): string => (where.includes(PART) ? where.replaceAll(PART, String(k)) : where);

/**
 * `where` with each `?` made a named parameter (`@b0`, `@b1`, …) and the object that binds
 * them: SQL repeated in every arm of a compound SELECT then binds its parameters once, so a
 * statement's parameters don't grow with the partitions (SQLite allows 32,766 in one; a
 * filter of 55 terms over 600 partitions was over). Only our own SQL holds a `?`: text from a
 * request is always a parameter (contract §5).
 */
export function bindOnce(where: string, params: readonly unknown[]): { where: string; named: Record<string, unknown> } {
  let i = 0;
  const named: Record<string, unknown> = {};
  const sql = where.replace(/\?/g, () => {
    if (i >= params.length) throw new Error('bindOnce: more ? than params');
    named[`b${i}`] = params[i];
    return `@b${i++}`;
  });
  if (i !== params.length) throw new Error('bindOnce: more params than ?');
  return { where: sql, named };
}

/** The hour of a time stamp column, floored (SQLite's / truncates toward zero), with integer arithmetic only. */
const hourOf = (col: string) => `${col} / 3600000 - (${col} % 3600000 < 0)`;

/**
 * The triggers of partition k: the exact counts (log_stats, log_counts by hour, level and
 * partition), the partition's bounds (log_parts lo and hi of the time stamps, id_lo and id_hi
 * of the ids: widened by every write, never narrowed, so no entry is outside them) and
 * version, and the full-text index of entries up to the
 * partition's `fts_upto` (the rest is indexed in batches by ./fts.ts). Migration 5 wrote
 * those of partition 1 out in full; a test checks they are the same.
 */
export function partitionTriggers(k: number): string {
  const t = partTable(k);
  const f = ftsTable(k);
  const upto = `(SELECT fts_upto FROM log_parts WHERE part = ${k})`;
  const bounds = `UPDATE log_parts SET lo = min(coalesce(lo, NEW.time_stamp), NEW.time_stamp), hi = max(coalesce(hi, NEW.time_stamp), NEW.time_stamp),
      id_lo = min(coalesce(id_lo, NEW.id), NEW.id), id_hi = max(coalesce(id_hi, NEW.id), NEW.id), version = version + 1 WHERE part = ${k};`;
  return `
  CREATE TRIGGER ${t}_insert AFTER INSERT ON ${t} BEGIN
    UPDATE log_stats SET entries = entries + 1, version = version + 1, last_id = max(last_id, NEW.id);
    INSERT INTO log_counts (hour, level, part, entries) VALUES (${hourOf('NEW.time_stamp')}, NEW.level, ${k}, 1)
      ON CONFLICT (hour, level, part) DO UPDATE SET entries = entries + 1;
    ${bounds}
    INSERT INTO ${f} (rowid, message) SELECT NEW.id, NEW.message WHERE NEW.id <= ${upto};
  END;
  CREATE TRIGGER ${t}_delete AFTER DELETE ON ${t} BEGIN
    UPDATE log_stats SET entries = entries - 1, version = version + 1;
    UPDATE log_counts SET entries = entries - 1
      WHERE hour = ${hourOf('OLD.time_stamp')} AND level = OLD.level AND part = ${k};
    UPDATE log_parts SET version = version + 1 WHERE part = ${k};
    DELETE FROM ${f} WHERE rowid = (SELECT OLD.id WHERE OLD.id <= ${upto});
  END;
  CREATE TRIGGER ${t}_update AFTER UPDATE ON ${t} BEGIN
    UPDATE log_stats SET version = version + 1, last_id = max(last_id, NEW.id);
    UPDATE log_counts SET entries = entries - 1
      WHERE hour = ${hourOf('OLD.time_stamp')} AND level = OLD.level AND part = ${k};
    INSERT INTO log_counts (hour, level, part, entries) VALUES (${hourOf('NEW.time_stamp')}, NEW.level, ${k}, 1)
      ON CONFLICT (hour, level, part) DO UPDATE SET entries = entries + 1;
    ${bounds}
    DELETE FROM ${f} WHERE rowid = (SELECT OLD.id WHERE OLD.id <= ${upto});
    INSERT INTO ${f} (rowid, message) SELECT NEW.id, NEW.message WHERE NEW.id <= ${upto};
  END;`;
}

/** The full-text index of partition k: trigrams, case kept (Contains is case-sensitive), no copy of the text. */
export function ftsDdl(k: number): string {
  return `CREATE VIRTUAL TABLE ${ftsTable(k)} USING fts5(message, content='', contentless_delete=1, tokenize='trigram case_sensitive 1');`;
}

/** Table, indexes, full-text index and triggers of a new partition k (partition 1 is the table of before, renamed). */
function partitionDdl(k: number): string {
  const t = partTable(k);
  return `
  CREATE TABLE ${t} (
    id               INTEGER PRIMARY KEY,
    time_stamp       INTEGER NOT NULL,
    level            TEXT NOT NULL,
    message          TEXT NOT NULL DEFAULT '',
    message_template TEXT NOT NULL DEFAULT '',
    exception        TEXT NOT NULL DEFAULT '',
    properties       TEXT NOT NULL DEFAULT ''
  );
  CREATE INDEX ${t}_time ON ${t} (time_stamp, id);
  CREATE INDEX ${t}_level_time ON ${t} (level, time_stamp, id);
  CREATE INDEX ${t}_level ON ${t} (level);
  ${ftsDdl(k)}
  ${partitionTriggers(k)}`;
}

/**
 * The view `log` over partitions `parts` (ascending; the last is the head, which receives
 * new entries) and its INSTEAD OF triggers: an insert goes to the head with the next id
 * (above every id ever issued) unless it names one; an update or delete goes to the
 * partition holding the entry.
 */
export function viewDdl(parts: readonly number[]): string {
  const head = partTable(parts[parts.length - 1]!);
  const chunks: string[] = [];
  for (let i = 0; i < parts.length; i += ARMS_PER_COMPOUND) {
    chunks.push(
      parts
        .slice(i, i + ARMS_PER_COMPOUND)
        .map((k) => `SELECT ${LOG_COLUMNS} FROM ${partTable(k)}`)
        .join(' UNION ALL '),
    );
  }
  const body = chunks.length === 1 ? chunks[0] : chunks.map((c) => `SELECT * FROM (${c})`).join(' UNION ALL ');
  const each = (sql: (t: string) => string) => parts.map((k) => sql(partTable(k))).join('\n    ');
  return `
  CREATE VIEW log AS ${body};
  CREATE TRIGGER log_view_insert INSTEAD OF INSERT ON log BEGIN
    INSERT INTO ${head} (${LOG_COLUMNS}) VALUES (coalesce(NEW.id, (SELECT last_id FROM log_stats) + 1), NEW.time_stamp, NEW.level,
      coalesce(NEW.message, ''), coalesce(NEW.message_template, ''), coalesce(NEW.exception, ''), coalesce(NEW.properties, ''));
  END;
  CREATE TRIGGER log_view_update INSTEAD OF UPDATE ON log BEGIN
    ${each(
      (t) =>
        `UPDATE ${t} SET id = NEW.id, time_stamp = NEW.time_stamp, level = NEW.level, message = NEW.message, message_template = NEW.message_template, exception = NEW.exception, properties = NEW.properties WHERE id = OLD.id;`,
    )}
  END;
  CREATE TRIGGER log_view_delete INSTEAD OF DELETE ON log BEGIN
    ${each((t) => `DELETE FROM ${t} WHERE id = OLD.id;`)}
  END;`;
}

/** Partition numbers, ascending, per database and schema version (any DDL moves it on). */
const partsCache = new WeakMap<Db, { schema: number; parts: number[] }>();
/** PRAGMA schema_version: moves on every change of the schema (a partition added, taken out). */
export const schemaVersion = (db: Db): number => cachedStatement(db, 'PRAGMA schema_version').pluck().get() as number;

/** The partitions of the log, oldest first; the last is the head. */
export function logParts(db: Db): number[] {
  const schema = schemaVersion(db);
  const hit = partsCache.get(db);
  if (hit && hit.schema === schema) return hit.parts;
  const parts = cachedStatement(db, 'SELECT part FROM log_parts ORDER BY part').pluck().all() as number[];
  partsCache.set(db, { schema, parts });
  return parts;
}

/** Foreign triggers: triggers on the view `log` other than ours (their SQL, to make them again). */
function foreignViewTriggers(db: Db): string[] {
  const rows = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'log'").all() as {
    name: string;
    sql: string;
  }[];
  return rows.filter((r) => !VIEW_TRIGGERS.has(r.name)).map((r) => r.sql);
}

/** True when someone else's trigger is on the view `log` (a purge must then delete through the view, so that it fires). */
export function hasForeignTriggers(db: Db): boolean {
  return foreignViewTriggers(db).length > 0;
}

/** Makes the view and its triggers again over the partitions in log_parts, keeping other triggers on the view. In the caller's transaction. */
export function rebuildView(db: Db): void {
  const keep = foreignViewTriggers(db);
  const parts = db.prepare('SELECT part FROM log_parts ORDER BY part').pluck().all() as number[];
  db.exec(`DROP VIEW IF EXISTS log; ${viewDdl(parts)}`);
  for (const sql of keep) db.exec(sql);
}

/** Adds partition k, opened for UTC day `opened` (null: adopts the day of its first write), as the new head. In the caller's transaction. */
export function addPartition(db: Db, k: number, opened: number | null): void {
  db.exec(partitionDdl(k));
  // its entries will all have ids above the last one issued: none is in its full-text index yet
  db.prepare('INSERT INTO log_parts (part, opened, fts_upto) VALUES (?, ?, (SELECT last_id FROM log_stats))').run(k, opened);
  rebuildView(db);
}

/**
 * The head partition for an entry written at `t` (ms): a write on a later UTC day than the
 * head was opened for starts a new partition (unless the head is still empty, which then
 * takes that day). Entries dated before the head's day (late or clock skew) go to the head.
 * Call inside the write's transaction.
 */
export function rotateFor(db: Db, t: number): void {
  const head = cachedStatement(db, 'SELECT part, opened FROM log_parts ORDER BY part DESC LIMIT 1').get() as {
    part: number;
    opened: number | null;
  };
  const day = dayOf(t);
  if (head.opened !== null && day <= head.opened) return;
  const empty =
    cachedStatement(db, `SELECT NOT EXISTS (SELECT 1 FROM ${partTable(head.part)})`)
      .pluck()
      .get() === 1;
  if (head.opened === null || empty) {
    cachedStatement(db, 'UPDATE log_parts SET opened = ? WHERE part = ?').run(day, head.part);
    return;
  }
  addPartition(db, head.part + 1, day);
}

/** What log_parts says of a partition: bounds of its time stamps and of its ids (null: nothing ever written to it), and its version. */
export interface PartInfo {
  bounds: [number, number] | null;
  ids: [number, number] | null;
  version: number;
}

/** log_parts, per database and log version (log_stats.version moves on every write). */
const partsInfo_ = new WeakMap<Db, { version: number; schema: number; info: Map<number, PartInfo> }>();

/** Bounds and version of every partition, read once per log version. */
export function partsInfo(db: Db): Map<number, PartInfo> {
  const version = cachedStatement(db, 'SELECT version FROM log_stats').pluck().get() as number;
  const schema = schemaVersion(db);
  let c = partsInfo_.get(db);
  if (!c || c.version !== version || c.schema !== schema) {
    const rows = cachedStatement(db, 'SELECT part, lo, hi, id_lo, id_hi, version FROM log_parts').raw().all() as [
      number,
      number | null,
      number | null,
      number | null,
      number | null,
      number,
    ][];
    c = {
      version,
      schema,
      info: new Map(
        rows.map(([p, lo, hi, ilo, ihi, v]) => [
          p,
          { bounds: lo === null ? null : [lo, hi!], ids: ilo === null ? null : [ilo, ihi!], version: v },
        ]),
      ),
    };
    partsInfo_.set(db, c);
  }
  return c.info;
}

/**
 * Bounds [lo, hi] of partition k's time stamps (null when nothing was ever written to it): no
 * entry of it is outside them, though deletes may have left them wider than its entries.
 * Kept by its triggers in log_parts; cached while the log is unchanged.
 */
export function partBounds(db: Db, k: number): [number, number] | null {
  return partsInfo(db).get(k)?.bounds ?? null;
}

/** Params → cache-key text; non-finite numbers spelt out (JSON would make them null). A param is never an object, so objects can mark what is not a param. */
export function paramsKey(params: readonly unknown[]): string {
  return JSON.stringify(params.map((p) => (typeof p === 'number' && !Number.isFinite(p) ? { n: String(p) } : p)));
}

/** Counts per partition, per database: a query's key → partition → [its version then, the count]. Map order is recency (LRU). */
const partCounts = new WeakMap<Db, Map<string, Map<number, [number, number]>>>();
const PART_COUNTS_CACHED = 256;

/**
 * Σ over partitions `parts` of `count(k)`, each count reused while its partition is unchanged
 * (its version in log_parts): after a write only the partition written to is counted again, whatever the
 * size of the rest of the log. `key` names what is counted; `count` gets the partitions to
 * count and returns their counts.
 */
export function sumPerPart(db: Db, key: string, parts: readonly number[], count: (ks: number[]) => Map<number, number>): number {
  let cache = partCounts.get(db);
  if (!cache) partCounts.set(db, (cache = new Map()));
  let hit = cache.get(key);
  cache.delete(key);
  cache.set(key, (hit ??= new Map()));
  if (cache.size > PART_COUNTS_CACHED) cache.delete(cache.keys().next().value!);
  const info = partsInfo(db);
  const versionOf = (k: number) => info.get(k)?.version ?? -1;
  const stale = parts.filter((k) => hit.get(k)?.[0] !== versionOf(k));
  if (stale.length > 0) for (const [k, n] of count(stale)) hit.set(k, [versionOf(k), n]);
  let total = 0;
  for (const k of parts) total += hit.get(k)![1];
  return total;
}

/** The partitions holding entries in [start, end) (either side open), oldest first. */
export function partsIn(db: Db, range: { start?: number; end?: number }): number[] {
  const info = partsInfo(db);
  return logParts(db).filter((k) => {
    const b = info.get(k)?.bounds;
    if (!b) return false;
    return (range.start === undefined || b[1] >= range.start) && (range.end === undefined || b[0] < range.end);
  });
}

/** The partitions of `parts` that may hold an entry with lo <= id <= hi (from their bounds). */
export function idsIn(db: Db, parts: readonly number[], lo: number, hi: number): number[] {
  const info = partsInfo(db);
  return parts.filter((k) => {
    const b = info.get(k)?.ids;
    return !!b && b[1] >= lo && b[0] <= hi;
  });
}

/**
 * `parts` in the order of their entries by `key` (ascending, or descending when `desc`) when
 * no two overlap on it (from their bounds), so a page in that order is read one partition
 * after another; else undefined (entries written late, or by another writer with an old
 * time, make partitions overlap in time).
 */
export function inKeyOrder(db: Db, parts: readonly number[], key: 'id' | 'timeStamp', desc: boolean): number[] | undefined {
  const info = partsInfo(db);
  const ranged = parts.map((k) => ({ k, r: key === 'id' ? info.get(k)?.ids : info.get(k)?.bounds }));
  if (ranged.some((x) => !x.r)) return undefined;
  ranged.sort((a, b) => a.r![0] - b.r![0]);
  for (let i = 1; i < ranged.length; i++) if (ranged[i]!.r![0] <= ranged[i - 1]!.r![1]) return undefined;
  const ks = ranged.map((x) => x.k);
  return desc ? ks.reverse() : ks;
}

/** The partitions of `parts` whose entries all lie in [start, end) (from their bounds). */
export function wholeIn(db: Db, parts: readonly number[], range: { start?: number; end?: number }): number[] {
  const info = partsInfo(db);
  return parts.filter((k) => {
    const b = info.get(k)?.bounds;
    return !!b && (range.start === undefined || b[0] >= range.start) && (range.end === undefined || b[1] < range.end);
  });
}

/**
 * One compound SELECT of `arm(k)` over partitions `parts` (UNION ALL, nested by
 * ARMS_PER_COMPOUND), then `tail` (ORDER BY … LIMIT …). The arms' params are `params`
 * repeated per arm. SQLite merges sorted arms (each read in index order) without sorting
 * the whole.
 */
export function compound(parts: readonly number[], arm: (k: number) => string, tail = ''): string {
  const chunks: string[] = [];
  for (let i = 0; i < parts.length; i += ARMS_PER_COMPOUND)
    chunks.push(
      parts
        .slice(i, i + ARMS_PER_COMPOUND)
        .map(arm)
        .join(' UNION ALL '),
    );
  return (chunks.length === 1 ? chunks[0]! : chunks.map((c) => `SELECT * FROM (${c})`).join(' UNION ALL ')) + tail;
}

/**
 * count(*) of the entries matching `where` (over `l`, PART for the partition) in partitions
 * `parts`: the partitions changed since they were last counted (sumPerPart) in one compound
 * SELECT.
 */
export function countIn(db: Db, parts: readonly number[], where: string, params: readonly unknown[]): number {
  if (parts.length === 0) return 0;
  return sumPerPart(db, `count\n${where}\n${paramsKey(params)}`, parts, (ks) => {
    const b = bindOnce(where, params);
    const sql = compound(ks, (k) => `SELECT ${k}, count(*) FROM ${partTable(k)} l WHERE ${armWhere(b.where, k)}`);
    const rows = cachedStatement(db, sql).raw().all(b.named) as [number, number][];
    return new Map(rows);
  });
}
