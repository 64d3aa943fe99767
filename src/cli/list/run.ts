/**
 * Running a list verb: one page as before, or page after page (`--all`, a `--limit` over
 * several pages) by key or by skip, streamed to the Renderer's ListWriter with a progress
 * bar on stderr. See ./index.ts for how a noun's verb uses it.
 */
import { ProtocolError } from '../../client/errors.js';
import { TAKE_MAX, type ListQuery } from '../../wire.js';
import { InvalidArgumentError } from 'commander';
import { InterruptedError, UsageError } from '../errors.js';
import type { Column } from '../output.js';
import { startProgress } from '../progress.js';
import type { Runtime } from '../runtime.js';
import { ABORTED, unlessAborted } from './abort.js';
import { allOf } from './filter.js';
import { parseFieldList, sortParam, type ListDef, type ListFlags } from './flags.js';
import { normalizeEnvelope, normalizeListBody, normalizeRecord } from './normalize.js';

/**
 * One list endpoint call with the list query (contract §5); the noun adds its fixed
 * parameters (path ids, dates) and passes `signal` to the request (RequestOptions.signal),
 * which aborts a page fetched ahead that is no longer wanted.
 */
type FetchPage = (query: ListQuery, signal?: AbortSignal) => Promise<object>;

export interface ListRun<R> {
  def: ListDef<R>;
  flags: ListFlags;
  /** the noun's friendly flags as filter clauses (build them with filter.ts); AND-ed with --where */
  filters?: readonly (string | undefined | false | null)[];
  fetch: FetchPage;
}

/** How the pages will be asked for; pure, so the decision is unit-tested (planList). */
export interface ListPlan {
  /** one request, printed as before (the body unchanged for json) */
  single: boolean;
  /** the user's filter (friendly flags AND --where), without the paging clause */
  filter?: string;
  sort?: string;
  select?: string;
  /** page size */
  take?: number;
  /** the user's --skip */
  skip?: number;
  /** records wanted in all (Infinity for --all) */
  wanted: number;
  /** paging by key: each page asks for `key > last` (or `<` when desc) */
  keyset?: { key: string; desc: boolean };
  /** the key was added to `select` only for paging, so it is removed from the records again */
  stripKey?: boolean;
  /**
   * paging by skip: the noun's key, selected (stripKey) so that a repeated page can be
   * told from a page of records that merely look alike under --fields
   */
  skipKey?: string;
}

/**
 * Decides how to fetch (contract §5): a single request unless `--all` or a `--limit`
 * larger than a page; then by key when there is no --sort or it sorts by the key only
 * (`keyOrder` of the noun without --sort), else by skip. `select` is `--fields`, else
 * `columnFields` when given (the fields the default columns need). Throws UsageError
 * for combinations that cannot work (`--take 0` with several pages).
 */
export function planList<R>(
  def: ListDef<R>,
  flags: ListFlags,
  filters: ListRun<R>['filters'] = [],
  columnFields?: readonly string[],
): ListPlan {
  const filter = allOf([...filters, flags.where]);
  const selected = flags.fields?.length ? flags.fields : columnFields;
  const select = selected?.join(', ');
  const sortItems = flags.sort ?? [];
  const many = flags.all === true || (flags.limit !== undefined && flags.limit > (flags.take ?? TAKE_MAX));
  if (!many) {
    return {
      single: true,
      filter,
      sort: sortItems.length ? sortParam(sortItems) : undefined,
      select,
      take: flags.limit !== undefined ? Math.min(flags.limit, flags.take ?? flags.limit) : flags.take,
      skip: flags.skip,
      wanted: flags.limit ?? Infinity,
    };
  }
  if (flags.take === 0)
    throw new UsageError(`--take 0 asks for no records per page; drop it or give 1..${TAKE_MAX} with ${flags.all ? '--all' : '--limit'}`);
  const take = flags.take ?? TAKE_MAX;
  const wanted = flags.limit ?? Infinity;
  const key = def.key === false ? undefined : (def.key ?? 'id');
  const byKeyOnly =
    key !== undefined && (sortItems.length === 0 || (sortItems.length === 1 && sortItems[0]!.field.toLowerCase() === key.toLowerCase()));
  if (!byKeyOnly) {
    const keyed = key !== undefined && selected !== undefined && !selected.some((f) => f.toLowerCase() === key.toLowerCase());
    return {
      single: false,
      filter,
      sort: sortItems.length ? sortParam(sortItems) : undefined,
      select: keyed ? `${select}, ${key}` : select,
      take,
      skip: flags.skip,
      wanted,
      skipKey: key,
      stripKey: keyed,
    };
  }
  const desc = sortItems.length ? sortItems[0]!.desc : def.keyOrder === 'desc';
  const keyName = sortItems[0]?.field ?? key!;
  const hasKey = selected?.some((f) => f.toLowerCase() === keyName.toLowerCase()) ?? true;
  return {
    single: false,
    filter,
    sort: `${keyName} ${desc ? 'desc' : 'asc'}`,
    select: hasKey ? select : `${select}, ${keyName}`,
    take,
    skip: flags.skip,
    wanted,
    keyset: { key: keyName, desc },
    stripKey: !hasKey,
  };
}

/** The value of `name` in a record, matched case-insensitively (contract §5 field names). */
export function fieldOf(rec: Record<string, unknown>, name: string): unknown {
  if (name in rec) return rec[name];
  const lower = name.toLowerCase();
  for (const k of Object.keys(rec)) if (k.toLowerCase() === lower) return rec[k];
  return undefined;
}

/** Columns for `--fields`: exactly those fields, headed by their names. */
function fieldColumns<R>(fields: readonly string[]): Column<R>[] {
  return fields.map((f) => ({ header: f, get: (r: R) => fieldOf(r as Record<string, unknown>, f) }));
}

/** One page as the pager yields it. */
interface Page<R> {
  body: Record<string, unknown>;
  records: R[];
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
const totalOf = (body: Record<string, unknown>, field: string | undefined): number | undefined => {
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
      let records = listRecords<R>(body, def.arrayField);
      if (records.length > take) records = records.slice(0, take);
      const total = totalOf(body, def.totalField);
      if (first && total !== undefined) expected = Math.max(0, total - (plan.skip ?? 0));
      if (ks && records.length) last = checkKeyPage(def, ks, records, last, n);
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
      got += records.length;
      // a short page ends the list, unless the service returned fewer than asked while more remain (a server that caps take)
      const more = records.length > 0 && !(records.length < take && !(expected !== undefined && got < Math.min(expected, plan.wanted)));
      const nextTake = Math.min(plan.take ?? TAKE_MAX, plan.wanted - got);
      if (more && nextTake > 0) {
        send(false, nextTake);
        // a few turns of the event loop so the request is on the wire before the caller's (synchronous)
        // work on this page: undici writes it only on the second turn after request() (measured, undici 7)
        for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
      }
      yield { body, records, total: first ? total : undefined };
    }
  } finally {
    stop?.removeEventListener('abort', onStop);
    if (pending) ahead.abort();
  }
}

/**
 * Checks that page `n` moves forward by key: every record has an integer key, past
 * `last` (the previous page's last key; `>` ascending, `<` descending) and strictly
 * ordered within the page. Returns the page's last key; throws ProtocolError otherwise.
 */
function checkKeyPage<R>(
  def: ListDef<R>,
  ks: { key: string; desc: boolean },
  records: readonly R[],
  last: number | undefined,
  n: number,
): number {
  const dir = ks.desc ? '<' : '>';
  let prev = last;
  for (const r of records) {
    const k = intKey(fieldOf(r as Record<string, unknown>, ks.key));
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

/**
 * The fields a list prints: `--fields`, or the list of `--json FIELDS` (checked against
 * the noun's fields like --fields; UsageError naming --json, or both flags when both
 * are given); undefined when neither.
 */
export function chosenFields<R>(rt: Runtime, def: ListDef<R>, flags: ListFlags): string[] | undefined {
  const json = rt.out.opts.jsonFields;
  if (!json) return flags.fields?.length ? flags.fields : undefined;
  if (flags.fields?.length) throw new UsageError('--json FIELDS and --fields both choose the fields; give one of them');
  try {
    return parseFieldList(json.join(','), def.fields, def.what);
  } catch (e) {
    if (e instanceof InvalidArgumentError) throw new UsageError(`--json: ${e.message}`);
    throw e;
  }
}

/**
 * The fields csv and tsv print without --fields: every declared field in declared order
 * except the noun's `blobs` (a resource's data); undefined for a noun without declared fields.
 */
export const defaultDataFields = <R>(def: ListDef<R>): readonly string[] | undefined => def.fields?.filter((f) => !def.blobs?.includes(f));

/**
 * Runs a list verb (contract §5): builds the filter from the friendly flags and --where,
 * then prints one page as before, or streams every page (`--all`, `--limit`) through
 * the Renderer with a progress bar on stderr (TTY, not --quiet). Records and envelopes
 * are normalised (./normalize.ts) unless --raw: json, ndjson, csv and tsv print the
 * documented shape whatever the service left out; csv and tsv carry the records' fields
 * (--fields, else defaultDataFields) with their raw values. Ctrl-C while paging stops,
 * finishes the output written so far, and throws InterruptedError (exit 130).
 * Throws UsageError, ApiError, NetworkError, ProtocolError.
 */
export async function runList<R>(rt: Runtime, run: ListRun<R>): Promise<void> {
  const def = run.def;
  const fields = chosenFields(rt, def, run.flags);
  const flags: ListFlags = { ...run.flags, fields };
  const format = rt.out.opts.format;
  const delimited = format === 'csv' || format === 'tsv';
  const dataFields = delimited && !fields ? defaultDataFields(def) : undefined;
  const shown = fields ?? dataFields;
  const columns = shown && (delimited || fields) ? fieldColumns<R>(shown) : def.columns;
  const raw = rt.out.opts.raw === true;
  const norm = (records: R[]): R[] =>
    raw || !def.types ? records : (records.map((r) => normalizeRecord(r as Record<string, unknown>, def.types!, shown)) as R[]);
  if (def.paged === false) return runUnpaged(rt, run, flags, columns, norm);
  // json and ndjson print the records themselves: whole records unless --fields; csv/tsv
  // select their fields only when some are left out (blobs), the table its columns' fields
  const selectFor = format === 'table' ? def.columnFields : delimited && def.blobs?.length ? dataFields : undefined;
  const plan = planList(def, flags, run.filters, selectFor);
  if (plan.single) {
    const body = (await run.fetch({
      filter: plan.filter,
      sort: plan.sort,
      select: plan.select,
      take: plan.take,
      skip: plan.skip,
    })) as Record<string, unknown>;
    const records = norm(listRecords<R>(body, def.arrayField));
    await rt.out.list(raw ? body : normalizeListBody(body, records, { ...def, types: undefined }), records, columns);
    // notes for a person (stderr a terminal, not --quiet; never stdout): nothing matched, or
    // only a page of more. Off a terminal they stay silent: a cron job mails any stderr.
    const total = totalOf(body, def.totalField);
    if (!rt.ctx.stderr.isTTY) {
      // nothing to say to a script
    } else if (records.length === 0) {
      if (!total || total <= (plan.skip ?? 0)) rt.out.info(`no ${def.what} match`);
    } else if (total !== undefined && total > (plan.skip ?? 0) + records.length) {
      rt.out.info(`${records.length.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} ${def.what} (use --all or --limit)`);
    }
    return;
  }
  const writer = rt.out.openList<R>(columns, def);
  const ctx = rt.ctx;
  // a bar on a terminal stderr, unless the records themselves stream onto the same terminal
  // (a terminal table is drawn page by page, so its rows would run through the bar: no bar then)
  const showBar = ctx.stderr.isTTY && !rt.out.opts.quiet && !ctx.stdout.isTTY;
  const progress = await startProgress(ctx, { enabled: showBar, what: def.what });
  // Ctrl-C: stop at once, even mid-request; what was written so far is finished below
  const ac = new AbortController();
  const off = ctx.onInterrupt(() => ac.abort());
  const fetch: FetchPage = (q, signal) => unlessAborted(run.fetch(q, signal), ac.signal);
  let total: number | undefined;
  let done = 0;
  let begun = false;
  try {
    for await (const page of pages(def, plan, fetch, ac.signal)) {
      if (!begun) {
        begun = true;
        total = page.total;
        if (total !== undefined) progress.setTotal(Math.min(plan.wanted, Math.max(0, total - (plan.skip ?? 0))));
        await writer.begin(raw ? page.body : normalizeEnvelope(page.body, def));
      }
      await writer.write(norm(page.records));
      done += page.records.length;
      progress.update(done);
      if (ac.signal.aborted) break;
    }
    if (!ac.signal.aborted) progress.done(done);
  } catch (e) {
    if (e !== ABORTED) throw e;
  } finally {
    off();
    progress.stop();
  }
  // the documented shape always has the total (0 when the service left it out)
  if (begun) await writer.end(total ?? (raw || !def.totalField ? undefined : 0));
  if (ac.signal.aborted) throw new InterruptedError();
  const short = shortOfTotal(done, total, plan);
  if (short) rt.out.warn(short);
}

/**
 * The stderr note for a paged run that ended (normally) before the total the first page
 * announced, less the user's --skip and capped by --limit: `got 4 of 10: …`; undefined
 * when complete or the total is unknown. A warning, so printed even with --quiet; exit 0.
 */
export function shortOfTotal(done: number, total: number | undefined, plan: Pick<ListPlan, 'skip' | 'wanted'>): string | undefined {
  if (total === undefined) return undefined;
  const expected = Math.min(plan.wanted, Math.max(0, total - (plan.skip ?? 0)));
  if (done >= expected) return undefined;
  const n = (x: number) => x.toLocaleString('en-US');
  return `got ${n(done)} of ${n(expected)}: the service ended the list before the total it announced (records deleted meanwhile, or a service that stops paging early)`;
}

/** An endpoint without the list parameters: one request; --limit and --fields apply to the reply. */
async function runUnpaged<R>(
  rt: Runtime,
  run: ListRun<R>,
  flags: ListFlags,
  columns: Column<R>[],
  norm: (records: R[]) => R[],
): Promise<void> {
  const def = run.def;
  const body = (await run.fetch({})) as Record<string, unknown>;
  let records = listRecords<R>(body, def.arrayField);
  if (flags.limit !== undefined) records = records.slice(0, flags.limit);
  if (flags.fields?.length && (rt.out.opts.raw || !def.types)) {
    const fields = flags.fields;
    records = records.map((r) => Object.fromEntries(fields.map((f) => [f, fieldOf(r as Record<string, unknown>, f)])) as R);
  }
  records = norm(records);
  if (rt.out.opts.raw && flags.limit === undefined && !flags.fields?.length) return rt.out.list(body, records, columns);
  await rt.out.list(
    rt.out.opts.raw ? { ...body, [def.arrayField]: records } : normalizeListBody(body, records, { ...def, types: undefined }),
    records,
    columns,
  );
}
