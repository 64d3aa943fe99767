/**
 * Reading the next page of a walk by id while the client writes this one (`GET /v1/log`).
 * `lic log list --all` pages by key: it asks for the next page (`Id < last`, contract §5)
 * only once this page has arrived and been checked, and the service sat idle meanwhile
 * (~1.3 µs an entry of its 2.6, bench/stream-profile.md). After a full page sorted by id,
 * the reply to the request the client will send next is built while the service is idle
 * and kept, with the log's version and schema version it was read at; the request, when
 * it comes with those parameters and the log is unchanged, gets that text, byte for byte
 * what reading the page then would give. A page is kept per walk, for the last KEPT_MAX
 * walks (~330 KB a page of 1000); anything else (another request, a write) is read as before.
 */
import type { Db } from '../db.js';
import { schemaVersion } from './parts.js';
import { logVersion } from './totals.js';

/** The query parameters of `GET /v1/log` that the reply depends on. */
export interface LogQuery {
  select?: string;
  filter?: string;
  sort?: string;
  take?: number;
  skip?: number;
  startDate?: string;
  endDate?: string;
}

/** A reply's text and, when its last record has an integer `id`, that id and the number of records. */
export interface LogReply {
  text: string;
  count: number;
  lastId?: number;
}

interface Kept {
  version: number;
  schema: number;
  reply: LogReply;
}

/** Pages read ahead per database, by the key of the request they answer; in order of reading, at most KEPT_MAX (walks at once). */
const kept = new WeakMap<Db, Map<string, Kept>>();
const KEPT_MAX = 4;
const served = new WeakMap<Db, number>();

/** How many replies of `db`'s service were the page read ahead (for tests and diagnostics). */
export const readAheadServed = (db: Db): number => served.get(db) ?? 0;
const keyOf = (q: LogQuery) => JSON.stringify([q.select, q.filter, q.sort, q.take, q.skip || undefined, q.startDate, q.endDate]);

/** `Id desc` / `id asc` (a sort by the id alone, as lic's walk by key asks) → the name as written and the direction; else undefined. */
function idSort(sort: string | undefined): { name: string; desc: boolean } | undefined {
  const m = sort === undefined ? null : /^\s*(id)(?:\s+(asc|desc))?\s*$/i.exec(sort);
  return m ? { name: m[1]!, desc: (m[2] ?? 'asc').toLowerCase() === 'desc' } : undefined;
}

/**
 * The query lic sends after the page `q` answered (ending at id `lastId`), as its walk by
 * key writes it (src/cli/list/pages.ts, allOf): the filter `Id < last` (`>` ascending),
 * ANDed to the user's filter as `(filter) and (Id < last)`; undefined when `q` is not such a walk.
 */
function nextQuery(q: LogQuery, lastId: number): LogQuery | undefined {
  const by = idSort(q.sort);
  if (!by || !q.take || q.skip) return undefined;
  const bound = `${by.name} ${by.desc ? '<' : '>'} ${lastId}`;
  const ours = new RegExp(`^${by.name} [<>] -?\\d+$`);
  let filter: string;
  if (q.filter === undefined || q.filter.trim() === '' || ours.test(q.filter)) filter = bound;
  else {
    const and = new RegExp(`^\\((.*)\\) and \\(${by.name} [<>] -?\\d+\\)$`, 's').exec(q.filter);
    filter = `(${and ? and[1]! : q.filter}) and (${bound})`;
  }
  return { ...q, filter, skip: undefined };
}

/** The kept reply to `q` when the log is as it was when it was read; it is taken (kept once). */
export function takeKept(db: Db, q: LogQuery): LogReply | undefined {
  const ks = kept.get(db);
  const key = keyOf(q);
  const k = ks?.get(key);
  if (!k) return undefined;
  ks!.delete(key);
  if (k.version !== logVersion(db) || k.schema !== schemaVersion(db)) return undefined;
  served.set(db, readAheadServed(db) + 1);
  return k.reply;
}

/**
 * After the reply `r` to `q`: when it was a full page of a walk by id, builds the reply to
 * the next request of that walk with `read` (synchronous: nothing else runs in between)
 * once the event loop is free, and keeps it. A `read` that throws keeps nothing.
 */
export function readAhead(db: Db, q: LogQuery, r: LogReply, read: (q: LogQuery) => LogReply): void {
  if (r.lastId === undefined || r.count < (q.take ?? 0)) return;
  const next = nextQuery(q, r.lastId);
  if (!next) return;
  setImmediate(() => {
    let ks = kept.get(db);
    if (!ks) kept.set(db, (ks = new Map()));
    const key = keyOf(next);
    ks.delete(key);
    try {
      const version = logVersion(db);
      const schema = schemaVersion(db);
      ks.set(key, { version, schema, reply: read(next) });
      if (ks.size > KEPT_MAX) ks.delete(ks.keys().next().value!);
    } catch {
      // nothing kept: the request itself, if it comes, will say what is wrong
    }
  });
}
