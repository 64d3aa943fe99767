/**
 * Streaming the log entries a filter selects, page after page by id (the path of `lic log
 * list --all`: ../../cli/list/pages.ts), asking only for the fields a verb reads (`select`),
 * for `lic log top` and `lic log report`. Memory stays flat: one page (≤ 1000 entries) at a
 * time, plus whatever the caller keeps.
 */
import { listLog } from '../../client/endpoints/log.js';
import { InterruptedError } from '../../cli/errors.js';
import { ABORTED, unlessAborted } from '../../cli/list/abort.js';
import { containsClause, equalsClause, pages, planList } from '../../cli/list/index.js';
import type { FetchPage } from '../../cli/list/page-plan.js';
import { collectAfterRecordData } from '../../cli/memory.js';
import { startProgress } from '../../cli/progress.js';
import type { Runtime } from '../../cli/runtime.js';
import type { LogLevel } from '../../wire.js';
import { LOG_LIST } from './list.js';

/** Which entries a scan reads: the period, and optionally levels, a filter expression and a template pattern. */
export interface LogSelection {
  /** RFC 3339, inclusive */
  since: string;
  /** RFC 3339, exclusive */
  until: string;
  levels?: readonly LogLevel[];
  /** a filter expression of the service's query language (contract §5) */
  where?: string;
  /** a message template, `*` matching any text */
  template?: string;
}

/** An entry as the service sent it, with only the selected fields (camelCase, contract §6). */
export type ScannedEntry = Record<string, unknown>;

/**
 * `--template TEXT` as a test of a message template: the whole template equals TEXT, `*`
 * standing for any text (none, one or many characters). Case-sensitive, as the service's
 * filters are (contract §5).
 */
export function templateMatcher(pattern: string): (template: unknown) => boolean {
  const re = new RegExp(
    `^${pattern
      .split('*')
      .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
    's',
  );
  return (t) => typeof t === 'string' && re.test(t);
}

/**
 * The filter clauses of a selection (contract §5): the levels as `Level = "X" or …`; the
 * template as `MessageTemplate = "TEXT"`, or with `*` each literal piece as
 * `MessageTemplate.Contains("piece")` (the service narrows, the client matches exactly).
 */
export function selectionClauses(sel: LogSelection): (string | undefined)[] {
  const levels = sel.levels?.length ? sel.levels.map((l) => equalsClause('Level', l)).join(' or ') : undefined;
  let template: string | undefined;
  if (sel.template !== undefined) {
    const pieces = sel.template.split('*').filter((p) => p !== '');
    template = !sel.template.includes('*')
      ? equalsClause('MessageTemplate', sel.template)
      : pieces.map((p) => containsClause('MessageTemplate', p)).join(' and ') || undefined;
  }
  return [levels, template];
}

/**
 * Calls `onEntry` for every entry of `sel`, oldest id last (newest first: the log's key
 * order), each with the wire fields `fields` (and `messageTemplate` when --template needs it).
 * A progress bar on a terminal stderr (not --quiet) counts entries against the first page's
 * total. Returns the number of entries read. Ctrl-C throws InterruptedError (exit 130);
 * ApiError, NetworkError, ProtocolError as the list's.
 */
export async function scanLog(
  rt: Runtime,
  sel: LogSelection,
  fields: readonly string[],
  onEntry: (e: ScannedEntry) => void,
): Promise<number> {
  const select = new Set(fields);
  const matches = sel.template?.includes('*') ? templateMatcher(sel.template) : undefined;
  if (matches) select.add('messageTemplate');
  const plan = planList(LOG_LIST, { all: true, fields: [...select] }, selectionClauses(sel).concat(sel.where));
  const client = await rt.client();
  const ac = new AbortController();
  const off = rt.ctx.onInterrupt(() => ac.abort());
  const fetch: FetchPage = (q, signal) =>
    unlessAborted(listLog(client, { ...q, startDate: sel.since, endDate: sel.until }, signal), ac.signal);
  const progress = await startProgress(rt.ctx, { enabled: rt.ctx.stderr.isTTY && !rt.out.opts.quiet, what: 'log entries' });
  let read = 0;
  try {
    for await (const page of pages<ScannedEntry>(LOG_LIST as never, plan, fetch, ac.signal)) {
      if (page.total !== undefined) progress.setTotal(page.total);
      let bytes = 0;
      for (const e of page.records) {
        for (const f of select) {
          const v = e[f];
          if (typeof v === 'string') bytes += v.length;
        }
        if (matches && !matches(e.messageTemplate)) continue;
        onEntry(e);
      }
      // a page is garbage once counted: collected every few MiB so the heap (and RSS) stays flat (bench/log-top.md);
      // what counting makes of it (parsed properties, captures) weighs a few times the text
      collectAfterRecordData(bytes * 4);
      read += page.records.length;
      progress.update(read);
    }
    progress.done(read);
  } catch (e) {
    if (e === ABORTED || ac.signal.aborted) throw new InterruptedError();
    throw e;
  } finally {
    off();
    progress.stop();
  }
  return read;
}
