/**
 * Fetching a list page after page (pages): one request ahead, every page checked to move
 * forward, and the helpers that read a list reply (listRecords, totalOf, intKey, fieldOf).
 */
import { ProtocolError } from '../../client/errors.js';
import { TAKE_MAX, type ListQuery } from '../../wire.js';
import { allOf } from './filter.js';
import type { ListDef } from './flags.js';
import { pageTextOf, type PageText } from './page-text.js';
import type { FetchPage, ListPlan } from './page-plan.js';

/** The value of `name` in a record, matched case-insensitively (contract §5 field names). */
export function fieldOf(rec: Record<string, unknown>, name: string): unknown {
  if (name in rec) return rec[name];
  const lower = name.toLowerCase();
  for (const k of Object.keys(rec)) if (k.toLowerCase() === lower) return rec[k];
  return undefined;
}

/** One page as the pager yields it. */
interface Page<R> {
  body: Record<string, unknown>;
  /** the records as objects; empty when they came as `text` */
  records: R[];
  /** the records as the service's text (./page-text.ts), when the page scanner kept them so */
  text?: PageText;
  /** how many records (`records.length`, or `text.count`) */
  count: number;
  /** the list's total (of the first page: all records matching the user's filter) */
  total?: number;
}

/**
 * The records of a list reply's `arrayField` (contract §1 tolerance: absent or null =
 * empty, as the original omits empty values). Throws ProtocolError (exit 1) when it is
 * anything but an array; `path` (the endpoint, for the error) defaults to the field name.
 */
export function listRecords<R>(body: object, arrayField: string, path = arrayField): R[] {
  const arr = (body as Record<string, unknown>)[arrayField];
  if (arr === undefined || arr === null) return [];
  if (!Array.isArray(arr)) {
    const kind = typeof arr === 'object' ? 'an object' : `a ${typeof arr}`;
    throw new ProtocolError(
      `the list reply has no "${arrayField}" array: the service replied with "${arrayField}" that is not a list but ${kind}`,
      'GET',
      path,
    );
  }
  return arr as R[];
}

/** A list reply's total: a number, or an integer string (int64 in protobuf JSON); undefined when absent. */
export const totalOf = (body: Record<string, unknown>, field: string | undefined): number | undefined => {
  const t = field ? body[field] : undefined;
  return typeof t === 'number' && Number.isFinite(t) ? t : intKey(t);
};

/** An integer key as the service sent it: a number, or a canonical decimal string (int64 in protobuf JSON); else undefined. */
export function intKey(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isInteger(v) ? v : undefined;
  if (typeof v === 'string' && /^-?(0|[1-9][0-9]{0,15})$/.test(v)) {
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : undefined;
  }
  return undefined;
}

/**
 * Yields the pages of a multi-page plan. By key: the first page with the user's skip,
 * then `(<filter>) and <key> > <last>` (or `<` descending), each page sorted by the key.
 * By skip: skip + records so far. Stops at `wanted` records, at a short page once the
 * total is reached, or at an empty page. Every page must move forward, so a service that
 * ignores the paging parameters can neither run the command away nor print a record
 * twice: by key, each record's key must be past the last one seen and strictly ordered
 * within its page; by skip, a page must differ from the one before (its first and last
 * record). Throws ProtocolError (exit 1) naming what the service did, before the
 * offending page is yielded, or when paging by key meets a record without an integer key.
 *
 * One page is fetched ahead: once a page passed those checks and another is due, its
 * request is sent before the page is yielded, so the service works while the caller
 * writes (never more than one request in flight). The next page's error (ApiError,
 * NetworkError, ProtocolError) is thrown when the caller asks for that page, after every
 * page before it. A caller that stops early (break, a throw such as BrokenPipeError)
 * aborts the request ahead through `fetch`'s signal: no retry, no notice. `stop` (Ctrl-C)
 * aborts the request in flight likewise.
 */
export async function* pages<R>(def: ListDef<R>, plan: ListPlan, fetch: FetchPage, stop?: AbortSignal): AsyncGenerator<Page<R>> {
  let got = 0;
  let last: number | undefined;
  let expected: number | undefined;
  let previous: string | undefined;
  const ks = plan.keyset;
  const queryFor = (first: boolean, take: number): ListQuery => ({
    filter: ks && last !== undefined ? allOf([plan.filter, `${ks.key} ${ks.desc ? '<' : '>'} ${last}`]) : plan.filter,
    sort: plan.sort,
    select: plan.select,
    take,
    skip: ks ? (first ? plan.skip : undefined) : (plan.skip ?? 0) + got || undefined,
  });
  // the request ahead, cancelled when the caller stops before asking for its page
  const ahead = new AbortController();
  const onStop = () => ahead.abort();
  stop?.addEventListener('abort', onStop, { once: true });
  let pending: { query: ListQuery; take: number; reply: Promise<object> } | undefined;
  const send = (first: boolean, take: number) => {
    const query = queryFor(first, take);
    const reply = fetch(query, ahead.signal);
    // awaited when its page is asked for; until then a failure must not count as unhandled
    reply.catch(() => undefined);
    pending = { query, take, reply };
  };
  try {
    const take1 = Math.min(plan.take ?? TAKE_MAX, plan.wanted);
    if (take1 <= 0) return;
    send(true, take1);
    for (let n = 1; pending; n++) {
      const first = n === 1;
      const { query, take, reply } = pending;
      pending = undefined;
      const body = (await reply) as Record<string, unknown>;
      // records kept as text (./page-text.ts) stay text when the keys say all that paging needs
      let text = pageTextOf(body);
      if (text && (!ks || ks.key !== text.key || plan.stripKey || text.count > take)) text = undefined;
      let records = text ? [] : listRecords<R>(body, def.arrayField);
      if (records.length > take) records = records.slice(0, take);
      const count = text ? text.count : records.length;
      const total = totalOf(body, def.totalField);
      if (first && total !== undefined) expected = Math.max(0, total - (plan.skip ?? 0));
      if (ks && count) {
        const keys = text ? text.keys : records.map((r) => intKey(fieldOf(r as Record<string, unknown>, ks.key)));
        last = checkKeyPage(def, ks, keys, last, n);
      }
      if (!ks && records.length) {
        const mark = JSON.stringify([records[0], records[records.length - 1]]);
        if (mark === previous) {
          throw new ProtocolError(
            `the service ignored the paging skip: page ${n} (skip ${query.skip ?? 0}) repeated the ${def.what} of page ${n - 1}; stopped so that no record is printed twice`,
            'GET',
            def.arrayField,
          );
        }
        previous = mark;
      }
      if (plan.stripKey) records = records.map((r) => stripField(r as Record<string, unknown>, (ks?.key ?? plan.skipKey)!) as R);
      got += count;
      // a short page ends the list, unless the service returned fewer than asked while more remain (a server that caps take)
      const more = count > 0 && !(count < take && !(expected !== undefined && got < Math.min(expected, plan.wanted)));
      const nextTake = Math.min(plan.take ?? TAKE_MAX, plan.wanted - got);
      if (more && nextTake > 0) {
        send(false, nextTake);
        // a few turns of the event loop so the request is on the wire before the caller's (synchronous)
        // work on this page: undici writes it only on the second turn after request() (measured, undici 7)
        for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
      }
      yield { body, records, text, count, total: first ? total : undefined };
    }
  } finally {
    stop?.removeEventListener('abort', onStop);
    if (pending) ahead.abort();
  }
}

/**
 * Checks that page `n` moves forward by key: every record has an integer key (`keys`, in
 * record order; undefined where a record has none), past `last` (the previous page's last
 * key; `>` ascending, `<` descending) and strictly ordered within the page. Returns the
 * page's last key; throws ProtocolError otherwise.
 */
function checkKeyPage<R>(
  def: ListDef<R>,
  ks: { key: string; desc: boolean },
  keys: readonly (number | undefined)[],
  last: number | undefined,
  n: number,
): number {
  const dir = ks.desc ? '<' : '>';
  let prev = last;
  for (const k of keys) {
    if (k === undefined) {
      throw new ProtocolError(
        `cannot page ${def.what} by ${ks.key}: a record has no integer "${ks.key}" (use --sort with another field to page by skip)`,
        'GET',
        def.arrayField,
      );
    }
    if (prev !== undefined && (ks.desc ? k >= prev : k <= prev)) {
      if (prev === last) {
        throw new ProtocolError(
          `the service ignored the paging filter (${ks.key} ${dir} ${last}): page ${n} repeated ${ks.key}s up to ${last} (got ${k}); stopped so that no record is printed twice`,
          'GET',
          def.arrayField,
        );
      }
      throw new ProtocolError(
        `the service did not sort page ${n} by ${ks.key} ${ks.desc ? 'desc' : 'asc'} as asked (${ks.key} ${k} after ${prev}); stopped so that no record is printed twice or missed`,
        'GET',
        def.arrayField,
      );
    }
    prev = k;
  }
  return prev!;
}

function stripField(rec: Record<string, unknown>, name: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(rec)) if (k.toLowerCase() !== lower) out[k] = v;
  return out;
}
