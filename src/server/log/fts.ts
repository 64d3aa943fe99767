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
import { PART, compound, ftsTable, logParts, partTable, sumPerPart, wholeIn } from './parts.js';

/** Entries the background indexer adds per transaction (about 15 µs each in bulk): the longest it holds other requests up. */
const INDEX_BATCH = 2000;
/** The background indexer waits this long after a write, so the writes of a while are indexed in one batch (a batch has a cost of its own). */
const INDEX_DELAY_MS = 250;

/** FTS5 phrase query of `needle`: a double-quoted string (quotes doubled), which the trigram tokenizer splits into its trigrams. */
const phraseOf = (needle: string): string => `"${needle.replaceAll('"', '""')}"`;

/** True when the trigram index can answer Contains(needle): 3 or more characters (code points), no NUL. */
export function indexable(needle: string): boolean {
  if (needle.includes('\0')) return false;
  let n = 0;
  for (const _ of needle) if (++n >= 3) return true;
  return false;
}

/** `fts_upto` of partition k in SQL: entries above it are not in its index yet. */
const uptoSql = `(SELECT fts_upto FROM log_parts WHERE part = ${PART})`;

/** What a needle is searched for in the index: a phrase, and whether its matches are exactly the needle's (else they are checked with instr). */
interface Search {
  phrase: string;
  exact: boolean;
}

/**
 * SQL (written for any partition: PART) of `l.id` among the entries of the partition whose
 * message contains the needle: the index's matches and the tail's. Params: `searchParams`.
 */
function containsSql(s: Search): string {
  const matches = `l.id IN (SELECT rowid FROM log_p${PART}_fts WHERE log_p${PART}_fts MATCH ? UNION ALL SELECT id FROM log_p${PART} WHERE id > ${uptoSql} AND instr(message, ?) > 0)`;
  return s.exact ? matches : `(${matches} AND instr(l.message, ?) > 0)`;
}
const searchParams = (s: Search, needle: string) => (s.exact ? [s.phrase, needle] : [s.phrase, needle, needle]);

/** Entries of a trigram in the reference partition, counted up to just over the common share: per database while the partitions are the same. */
const trigramCounts = new WeakMap<Db, { parts: number[]; counts: Map<string, number> }>();
/** A trigram in more than this share of the reference partition's entries is common. */
const COMMON_SHARE = 0.05;
/** The most trigrams of a run searched in place of the needle's phrase. */
const MAX_RUN = 6;

/**
 * What to search the index for, for `needle` (indexable): its own phrase, unless one of its
 * trigrams is common; then the longest run of its other trigrams (at most MAX_RUN, the rarest
 * such run), whose matches are checked with instr. A phrase query reads about every index
 * entry of each of its trigrams: `WS-1234` in the bench's log reads `WS-`, which is in most
 * messages (several times the cost of `-1234` and its 3 candidates; bench/results.md has the
 * query's figures). The
 * trigrams are counted in the newest partition but the head (the head may be new), up to
 * COMMON_SHARE of its entries. Without a common trigram the phrase is the needle's own, whose
 * count needs no entry read.
 */
function searchFor(db: Db, needle: string): Search {
  const chars = [...needle];
  const parts = logParts(db);
  let c = trigramCounts.get(db);
  if (!c || c.parts !== parts) trigramCounts.set(db, (c = { parts, counts: new Map() }));
  const ref = parts.length > 1 ? parts[parts.length - 2]! : parts[0]!;
  const entries = cachedStatement(db, 'SELECT coalesce(sum(entries), 0) FROM log_counts WHERE part = ?').pluck().get(ref) as number;
  const limit = Math.ceil(entries * COMMON_SHARE);
  const countOf = (tri: string) => {
    let n = c.counts.get(tri);
    if (n === undefined) {
      const f = ftsTable(ref);
      n = cachedStatement(db, `SELECT count(*) FROM (SELECT 1 FROM ${f} WHERE ${f} MATCH ? LIMIT ?)`)
        .pluck()
        .get(phraseOf(tri), limit + 1) as number;
      if (c.counts.size >= 4096) c.counts.clear();
      c.counts.set(tri, n);
    }
    return n;
  };
  const counts = Array.from({ length: chars.length - 2 }, (_, i) => countOf(chars.slice(i, i + 3).join('')));
  const isCommon = (n: number) => n > limit;
  if (!counts.some(isCommon)) return { phrase: phraseOf(needle), exact: true };
  // runs of trigrams that are not common: the longest (capped), then the rarest
  let best: { i: number; j: number; rarest: number } | undefined;
  for (let i = 0; i < counts.length;) {
    if (isCommon(counts[i]!)) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < counts.length && !isCommon(counts[j + 1]!)) j++;
    // within a long run, the MAX_RUN trigrams with the rarest least count
    for (let a = i; a <= Math.max(i, j - MAX_RUN + 1); a++) {
      const b = Math.min(j, a + MAX_RUN - 1);
      const rarest = Math.min(...counts.slice(a, b + 1));
      if (!best || b - a > best.j - best.i || (b - a === best.j - best.i && rarest < best.rarest)) best = { i: a, j: b, rarest };
    }
    i = j + 1;
  }
  if (!best) return { phrase: phraseOf(needle), exact: true };
  return { phrase: phraseOf(chars.slice(best.i, best.j + 3).join('')), exact: false };
}

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
/** Databases whose indexing waits: another connection (the drop worker) holds the write lock in turns, and a writer here would wait for it with the event loop stopped. */
const held = new WeakMap<Db, number>();

/** Holds the background indexer of `db` while `work` runs (see held); resolves as `work` does. */
export async function holdIndexing<T>(db: Db, work: Promise<T>): Promise<T> {
  held.set(db, (held.get(db) ?? 0) + 1);
  try {
    return await work;
  } finally {
    held.set(db, held.get(db)! - 1);
  }
}

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
    if ((held.get(db) ?? 0) > 0) {
      scheduleIndexing(db, 500);
      return;
    }
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
 * True when at most `limit` indexed entries of partitions `parts` contain `needle` (searched
 * as searchFor says): each partition asked for at most what is left of the limit, newest
 * first, so a common needle costs about `limit` matches, not all of them. An estimate for
 * choosing a plan (the tails are not counted); cached while the partitions are the same.
 */
function fewMatches(db: Db, parts: readonly number[], needle: string, limit: number): boolean {
  const all = logParts(db);
  let c = probes.get(db);
  if (!c || c.parts !== all) probes.set(db, (c = { parts: all, hits: new Map() }));
  const key = `${limit}\n${parts.join(',')}\n${needle}`;
  const hit = c.hits.get(key);
  if (hit !== undefined) return hit;
  const search = searchFor(db, needle);
  let n = 0;
  for (let i = parts.length - 1; i >= 0 && n <= limit; i--) {
    const k = parts[i]!;
    const f = ftsTable(k);
    // a trimmed phrase's candidates checked, so that what is counted are matches
    const sql = search.exact
      ? `SELECT count(*) FROM (SELECT 1 FROM ${f} WHERE ${f} MATCH ? LIMIT ?)`
      : `SELECT count(*) FROM (SELECT 1 FROM ${partTable(k)} l WHERE l.id IN (SELECT rowid FROM ${f} WHERE ${f} MATCH ?) AND instr(l.message, ?) > 0 LIMIT ?)`;
    n += cachedStatement(db, sql)
      .pluck()
      .get(...(search.exact ? [search.phrase] : [search.phrase, needle]), limit - n + 1) as number;
  }
  if (c.hits.size >= 256) c.hits.delete(c.hits.keys().next().value!);
  c.hits.set(key, n <= limit);
  return n <= limit;
}

/**
 * The compile hook of `Message.Contains(needle)` for a page of `rows` (take + skip) from
 * partitions `parts`: the index's SQL (containsSql) when the needle is indexable and matches
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
    const search = searchFor(db, needle);
    return { sql: containsSql(search), params: searchParams(search, needle) };
  };
}

/**
 * The total of `Message.Contains(needle)` alone over [start, end): partitions wholly inside
 * the range counted from their index (and their tails), those only partly inside by `partial`
 * (a count of the request's SQL in that partition). Each partition's count is reused while it
 * is unchanged (sumPerPart), so after a write only the head is counted again.
 */
export function containsTotal(
  db: Db,
  parts: readonly number[],
  range: { start?: number; end?: number },
  needle: string,
  partial: (k: number) => number,
): number {
  const whole = wholeIn(db, parts, range);
  let n = 0;
  for (const k of parts) if (!whole.includes(k)) n += partial(k);
  if (whole.length === 0) return n;
  const search = searchFor(db, needle);
  return (
    n +
    sumPerPart(db, `contains\n${search.phrase}\n${needle}`, whole, (ks) => {
      const sql = compound(ks, (k) => {
        const f = ftsTable(k);
        const t = partTable(k);
        const indexed = search.exact
          ? `(SELECT count(*) FROM ${f} WHERE ${f} MATCH ?)`
          : `(SELECT count(*) FROM ${t} l WHERE l.id IN (SELECT rowid FROM ${f} WHERE ${f} MATCH ?) AND instr(l.message, ?) > 0)`;
        return `SELECT ${k}, ${indexed} + (SELECT count(*) FROM ${t} WHERE id > (SELECT fts_upto FROM log_parts WHERE part = ${k}) AND instr(message, ?) > 0)`;
      });
      const params = search.exact ? [search.phrase, needle] : [search.phrase, needle, needle];
      return new Map(
        cachedStatement(db, sql)
          .raw()
          .all(...ks.flatMap(() => params)) as [number, number][],
      );
    })
  );
}
