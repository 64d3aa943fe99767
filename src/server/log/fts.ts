/**
 * `Message.Contains("…")` from each partition's trigram full-text index (FTS5, `trigram
 * case_sensitive 1`): a phrase of the needle's trigrams matches exactly the messages that
 * contain it, case and all, as the query language's byte-exact Contains does (instr). Needles
 * of fewer than 3 characters have no trigram, and FTS5's query text can't hold a NUL: those
 * are scanned as before. Entries are indexed in batches shortly after they are written
 * (indexLogBatch): one entry's index write costs more than the entry itself, in bulk a tenth
 * of that. Until then they are "the tail" of their partition (id > fts_upto), which queries
 * scan, so every answer is exact at any time. Design and figures: ./README.md.
 */
import { cachedStatement, type Db } from '../db.js';
import type { FieldSpec } from '../query/index.js';
import { PART, ftsTable, logParts, partBounds, partTable } from './parts.js';

/** Entries the background indexer adds per transaction (about 15 µs each in bulk): the longest it holds other requests up. */
export const INDEX_BATCH = 2000;
/** The background indexer waits this long after a write, so a burst of writes is indexed in one batch. */
const INDEX_DELAY_MS = 20;

/** FTS5 phrase query of `needle`: a double-quoted string (quotes doubled), which the trigram tokenizer splits into its trigrams. */
export const phraseOf = (needle: string): string => `"${needle.replaceAll('"', '""')}"`;

/** True when the trigram index can answer Contains(needle): 3 or more characters (code points), no NUL. */
export function indexable(needle: string): boolean {
  if (needle.includes('\0')) return false;
  let n = 0;
  for (const _ of needle) if (++n >= 3) return true;
  return false;
}

/** `fts_upto` of partition k in SQL: entries above it are not in its index yet. */
const uptoSql = `(SELECT fts_upto FROM log_parts WHERE part = ${PART})`;

/**
 * SQL (written for any partition: PART) of `l.id` among the entries of the partition whose
 * message contains the needle: the index's matches and the tail's. Params: phrase, needle.
 */
export const CONTAINS_IN = `l.id IN (SELECT rowid FROM log_p${PART}_fts WHERE log_p${PART}_fts MATCH ? UNION ALL SELECT id FROM log_p${PART} WHERE id > ${uptoSql} AND instr(message, ?) > 0)`;

/**
 * Indexes up to `max` entries not yet in their partition's index, oldest partitions first, in
 * one transaction; returns how many. Entries are indexed in id order, so a partition's
 * indexed entries are exactly those with id <= fts_upto.
 */
export function indexLogBatch(db: Db, max = INDEX_BATCH): number {
  let done = 0;
  db.transaction(() => {
    const parts = cachedStatement(db, 'SELECT part, fts_upto FROM log_parts ORDER BY part').raw().all() as [number, number][];
    for (const [k, upto] of parts) {
      if (done >= max) break;
      const t = partTable(k);
      const to = cachedStatement(db, `SELECT max(id) FROM (SELECT id FROM ${t} WHERE id > ? ORDER BY id LIMIT ?)`)
        .pluck()
        .get(upto, max - done) as number | null;
      if (to === null) continue;
      done += cachedStatement(db, `INSERT INTO ${ftsTable(k)} (rowid, message) SELECT id, message FROM ${t} WHERE id > ? AND id <= ?`).run(
        upto,
        to,
      ).changes;
      cachedStatement(db, 'UPDATE log_parts SET fts_upto = ? WHERE part = ?').run(to, k);
    }
  }).immediate();
  return done;
}

/** Indexes every entry not yet indexed, in batches of `batch`; returns how many (bulk loads, tests). */
export function indexLog(db: Db, batch = 50_000): number {
  let n = 0;
  for (let got = batch; got === batch; n += got) got = indexLogBatch(db, batch);
  return n;
}

const pending = new WeakSet<Db>();

/**
 * Indexes what is not indexed yet in the background, INDEX_BATCH entries per turn of the
 * event loop, starting INDEX_DELAY_MS from now. Never throws: an error (another connection
 * holding the write lock) is retried a second later; a closed database stops it.
 */
export function scheduleIndexing(db: Db, delay = INDEX_DELAY_MS): void {
  if (pending.has(db)) return;
  pending.add(db);
  setTimeout(() => {
    pending.delete(db);
    if (!db.open) return;
    let done: number;
    try {
      done = indexLogBatch(db);
    } catch {
      scheduleIndexing(db, 1000);
      return;
    }
    if (done === INDEX_BATCH) scheduleIndexing(db, 0);
  }, delay).unref();
}

/** Results of fewMatches, per database: needle and limit → answer, while the partitions are the same. */
const probes = new WeakMap<Db, { parts: number[]; hits: Map<string, boolean> }>();

/**
 * True when at most `limit` indexed entries of partitions `parts` contain `needle` (≥ 3
 * characters): each partition's index asked for at most what is left of the limit, newest
 * first, so a common needle costs about `limit` index entries, not all its matches. An
 * estimate for choosing a plan (the tails are not counted); cached while the partitions are
 * the same.
 */
export function fewMatches(db: Db, parts: readonly number[], needle: string, limit: number): boolean {
  const all = logParts(db);
  let c = probes.get(db);
  if (!c || c.parts !== all) probes.set(db, (c = { parts: all, hits: new Map() }));
  const key = `${limit}\n${parts.join(',')}\n${needle}`;
  const hit = c.hits.get(key);
  if (hit !== undefined) return hit;
  let n = 0;
  for (let i = parts.length - 1; i >= 0 && n <= limit; i--) {
    const f = ftsTable(parts[i]!);
    n += cachedStatement(db, `SELECT count(*) FROM (SELECT 1 FROM ${f} WHERE ${f} MATCH ? LIMIT ?)`)
      .pluck()
      .get(phraseOf(needle), limit - n + 1) as number;
  }
  if (c.hits.size >= 256) c.hits.delete(c.hits.keys().next().value!);
  c.hits.set(key, n <= limit);
  return n <= limit;
}

/**
 * The compile hook of `Message.Contains(needle)` for a page of `rows` (take + skip) from
 * partitions `parts`: the index's SQL (CONTAINS_IN) when the needle is indexable and matches
 * few entries, so the page is found from its matches; otherwise undefined (the default
 * substring test), so the page is found by reading the log in the page's order until it is
 * full, which is cheaper for a needle that matches often. Few: the break-even of the two,
 * about √(rows × entries ÷ 4) matches (measured: ~2 µs per match against ~0.5 µs per entry
 * read); for a total alone (rows 0), a tenth of the log.
 */
export function containsHook(db: Db, parts: readonly number[], rows: number) {
  return (field: FieldSpec, needle: string): { sql: string; params: string[] } | undefined => {
    if (field.name !== 'message' || !indexable(needle) || parts.length === 0) return undefined;
    const entries = cachedStatement(db, 'SELECT entries FROM log_stats').pluck().get() as number;
    const limit = rows === 0 ? Math.ceil(entries / 10) : Math.max(1000, Math.ceil(Math.sqrt((rows * entries) / 4)));
    if (!fewMatches(db, parts, needle, limit)) return undefined;
    return { sql: CONTAINS_IN, params: [phraseOf(needle), needle] };
  };
}

/**
 * Exact number of entries of partition k whose message contains `needle` (indexable): the
 * index's count and the tail's. O(matches), no entry read but the tail's.
 */
function containsCount(db: Db, k: number, needle: string): number {
  const f = ftsTable(k);
  return cachedStatement(
    db,
    `SELECT (SELECT count(*) FROM ${f} WHERE ${f} MATCH ?) + (SELECT count(*) FROM ${partTable(k)} WHERE id > (SELECT fts_upto FROM log_parts WHERE part = ${k}) AND instr(message, ?) > 0)`,
  )
    .pluck()
    .get(phraseOf(needle), needle) as number;
}

/**
 * The total of `Message.Contains(needle)` alone over [start, end): partitions wholly inside
 * the range counted from their index (containsCount); those only partly inside by `partial`
 * (a count of the request's SQL in that partition).
 */
export function containsTotal(
  db: Db,
  parts: readonly number[],
  range: { start?: number; end?: number },
  needle: string,
  partial: (k: number) => number,
): number {
  let n = 0;
  for (const k of parts) {
    const b = partBounds(db, k);
    if (b === null) continue;
    const inside = (range.start === undefined || b[0] >= range.start) && (range.end === undefined || b[1] < range.end);
    n += inside ? containsCount(db, k, needle) : partial(k);
  }
  return n;
}
