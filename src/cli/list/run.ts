/**
 * Running a list verb (runList): one page, or page after page (`--all`, a `--limit` over
 * several pages) with a progress bar on stderr, both written by the format's one writer
 * (Renderer.openList); an endpoint without paging parameters in one request (runUnpaged).
 */
import { InvalidArgumentError } from 'commander';
import { InterruptedError, UsageError } from '../errors.js';
import type { Column } from '../output.js';
import { startProgress } from '../progress.js';
import type { Runtime } from '../runtime.js';
import { collectAfterReply } from '../memory.js';
import { ABORTED, unlessAborted } from './abort.js';
import { parseFieldList, type ListDef, type ListFlags } from './flags.js';
import { normalizeEnvelope, normalizeListBody, normalizeRecord, normalTotal } from './normalize.js';
import { pageScanner } from './page-text.js';
import { fieldOf, listRecords, pages, totalOf } from './pages.js';
import { planList, type FetchPage, type FilterClause, type ListPlan } from './page-plan.js';

export interface ListRun<R> {
  def: ListDef<R>;
  flags: ListFlags;
  /** the noun's friendly flags as filter clauses (build them with filter.ts); AND-ed with --where */
  filters?: readonly FilterClause[];
  fetch: FetchPage;
}

/**
 * Columns for `--fields`: exactly those fields, headed by their names (csv, tsv) or, in a
 * terminal table, as the default columns are: upper case, words split (`ownerId` → OWNER_ID).
 */
function fieldColumns<R>(fields: readonly string[], table = false): Column<R>[] {
  const head = (f: string) => (table ? f.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase() : f);
  return fields.map((f) => ({ header: head(f), get: (r: R) => fieldOf(r as Record<string, unknown>, f) }));
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
  const columns = shown && (delimited || fields) ? fieldColumns<R>(shown, format === 'table') : def.columns;
  const raw = rt.out.opts.raw === true;
  const norm = (records: R[]): R[] =>
    raw || !def.types ? records : (records.map((r) => normalizeRecord(r as Record<string, unknown>, def.types!, shown)) as R[]);
  if (def.paged === false) return runUnpaged(rt, run, flags, columns, norm);
  // json and ndjson print the records themselves: whole records unless --fields; csv/tsv
  // select their fields only when some are left out (blobs), the table its columns' fields
  const selectFor = format === 'table' ? def.columnFields : delimited && def.blobs?.length ? dataFields : undefined;
  const plan = planList(def, flags, run.filters, selectFor);
  // one writer for the format (Renderer.openList), whether one page or many
  const writer = rt.out.openList<R>(columns, def);
  if (plan.single) {
    const body = (await run.fetch({
      filter: plan.filter,
      sort: plan.sort,
      select: plan.select,
      take: plan.take,
      skip: plan.skip,
    })) as Record<string, unknown>;
    const records = norm(listRecords<R>(body, def.arrayField));
    // --raw (json only): the service's body as it came
    if (raw && writer.whole) await writer.whole(body);
    else {
      await writer.begin(normalizeEnvelope(body, def));
      await writer.write(records);
      await writer.end(def.totalField ? normalTotal(body[def.totalField]) : undefined);
    }
    // notes for a person (Renderer.note: stderr a terminal or -v, not --quiet; never stdout):
    // nothing matched, or only a page of more. Off a terminal they stay silent: a cron job mails any stderr.
    const total = totalOf(body, def.totalField);
    if (records.length === 0) {
      if (!total || total <= (plan.skip ?? 0)) rt.out.note(`no ${def.what} match`);
    } else if (total !== undefined && total > (plan.skip ?? 0) + records.length) {
      rt.out.note(`${records.length.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} ${def.what} (use --all or --limit)`);
    }
    return;
  }
  const ctx = rt.ctx;
  // a bar on a terminal stderr, unless the records themselves stream onto the same terminal
  // (a terminal table is drawn page by page, so its rows would run through the bar: no bar then)
  const showBar = ctx.stderr.isTTY && !rt.out.opts.quiet && !ctx.stdout.isTTY;
  const progress = await startProgress(ctx, { enabled: showBar, what: def.what });
  // Ctrl-C: stop at once, even mid-request; what was written so far is finished below
  const ac = new AbortController();
  const off = ctx.onInterrupt(() => ac.abort());
  // records already in the printed shape pass through as the service's text (./page-text.ts)
  // where the writer can take text and nothing is selected or stripped
  const scan =
    writer.writeText && !raw && !fields && def.types && plan.keyset && !plan.select && !plan.stripKey
      ? pageScanner(def.arrayField, def.types, plan.keyset.key)
      : undefined;
  const fetch: FetchPage = (q, signal) => unlessAborted(run.fetch(q, signal, scan), ac.signal);
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
      if (page.text && writer.writeText) {
        await writer.writeText(page.text);
        collectAfterReply(page.text.text.length);
      } else await writer.write(norm(page.records));
      done += page.count;
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
