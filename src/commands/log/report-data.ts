/**
 * The figures of `lic log report`, gathered in one streamed pass over the log (scanLog):
 * entries per level per UTC day, the top event types, warnings and worse by event type and
 * by property value, exceptions by type, management calls (the service's audit entries) by
 * user and verb. Memory is bounded by the counters' sizes (ValueCounter), not by the log's.
 */
import type { Runtime } from '../../cli/runtime.js';
import { DAY } from '../../time.js';
import { LOG_LEVELS, type LogLevel } from '../../wire.js';
import { daySpan, ValueCounter, type Counted } from './counter.js';
import { EntryReader, exceptionType } from './entry-values.js';
import { scanLog } from './scan.js';

/** A counted value as the report prints it: times RFC 3339, a count per day. */
interface ReportRow {
  count: number;
  first: string;
  last: string;
  days: number[];
}

/** The report (`-o json`, and what the HTML page shows). */
export interface LogReport {
  since: string;
  until: string;
  /** the UTC days of the period, `YYYY-MM-DD`, oldest first: the index of every `days` array */
  days: string[];
  entries: number;
  levels: { level: LogLevel; count: number; days: number[] }[];
  eventTypes: (ReportRow & { template: string; share: number })[];
  problems: {
    /** entries of level Warning, Error or Fatal */
    entries: number;
    byEventType: (ReportRow & { level: LogLevel; template: string })[];
    byProperty: { property: string; entries: number; values: { value: string; count: number }[] }[];
  };
  exceptions: (ReportRow & { type: string })[];
  managementCalls: {
    count: number;
    /** distinct users (OwnerId) who made a call */
    users: number;
    /** every (user, verb) pair of the users in byUser, most calls first */
    byUserAndVerb: { user: string; verb: string; count: number }[];
    /** the users with the most calls (at most REPORT_LIMITS.users), each with all of their calls */
    byUser: { user: string; count: number }[];
  };
}

/** How many rows each part of the report lists. */
const REPORT_LIMITS = { eventTypes: 10, problems: 10, properties: 8, propertyValues: 5, exceptions: 10, users: 20 };

/** Properties every entry of a service carries or that say nothing about a problem. */
const IGNORED_PROPERTIES = new Set(['SourceContext', 'EventId', 'RequestId', 'RequestPath', 'ConnectionId', 'ThreadId', 'MachineName']);

/** Levels the report counts as problems. */
const PROBLEM_LEVELS = new Set<string>(['Warning', 'Error', 'Fatal']);

const SEP = '\u001f';
const iso = (ms: number) => (Number.isFinite(ms) ? new Date(ms).toISOString() : '');
const row = (c: Counted): ReportRow => ({ count: c.count, first: iso(c.first), last: iso(c.last), days: [...c.days] });

/** The most distinct property names followed among problems; a log has tens. */
const MAX_PROPERTIES = 200;

/**
 * Reads every entry of [since, until) once (only the fields the report needs) and returns
 * the report. Management calls are the entries whose properties carry Method, Path and
 * OwnerId (the service's audit entries, docs/contract.md §6). ApiError, NetworkError,
 * ProtocolError, InterruptedError as scanLog.
 */
export async function gatherReport(rt: Runtime, since: string, until: string): Promise<LogReport> {
  const span = daySpan(Date.parse(since), Date.parse(until));
  const reader = new EntryReader();
  const levelDays = new Map<string, Uint32Array>(LOG_LEVELS.map((l) => [l, new Uint32Array(span.count)]));
  const templates = new ValueCounter(span);
  const problems = new ValueCounter(span);
  const problemProps = new Map<string, { entries: number; values: ValueCounter }>();
  const exceptions = new ValueCounter(span);
  const calls = new ValueCounter(span);
  const callers = new ValueCounter(span);
  let entries = 0;
  let problemEntries = 0;
  await scanLog(rt, { since, until }, ['timeStamp', 'level', 'messageTemplate', 'message', 'exception', 'properties'], (e) => {
    entries++;
    const t = Date.parse(String(e.timeStamp));
    const level = typeof e.level === 'string' ? e.level : '';
    const d = Math.floor((t - span.start) / DAY);
    const ld = levelDays.get(level);
    if (ld && d >= 0 && d < span.count) ld[d]!++;
    const template = typeof e.messageTemplate === 'string' && e.messageTemplate !== '' ? e.messageTemplate : undefined;
    if (template) templates.add(template, t);
    const ex = exceptionType(e.exception);
    if (ex) exceptions.add(ex, t);
    const props = reader.properties(e);
    if (PROBLEM_LEVELS.has(level)) {
      problemEntries++;
      problems.add(`${level}${SEP}${template ?? String(e.message ?? '')}`, t);
      for (const [k, v] of props) {
        if (IGNORED_PROPERTIES.has(k) || v === '') continue;
        let p = problemProps.get(k);
        if (!p) {
          if (problemProps.size >= MAX_PROPERTIES) continue;
          p = { entries: 0, values: new ValueCounter(span, 2000) };
          problemProps.set(k, p);
        }
        p.entries++;
        p.values.add(v, t);
      }
    }
    const method = props.get('Method');
    const user = props.get('OwnerId');
    if (method && user && props.has('Path')) {
      calls.add(`${user}${SEP}${method}`, t);
      callers.add(user, t);
    }
  });

  // a user's total counted on its own, not summed from the top pairs (which leave out a user's smaller ones)
  const byUser = callers.top(REPORT_LIMITS.users).map((c) => ({ user: c.value, count: c.count }));
  const shown = new Set(byUser.map((u) => u.user));
  const pairs = calls
    .top(calls.size)
    .map((c) => {
      const [user, verb] = c.value.split(SEP) as [string, string];
      return { user, verb, count: c.count };
    })
    .filter((p) => shown.has(p.user));
  const share = (n: number) => (entries ? Math.round((n / entries) * 10000) / 10000 : 0);
  return {
    since,
    until,
    days: Array.from({ length: span.count }, (_, i) => iso(span.start + i * DAY).slice(0, 10)),
    entries,
    levels: LOG_LEVELS.map((level) => {
      const days = [...levelDays.get(level)!];
      return { level, count: days.reduce((a, b) => a + b, 0), days };
    }),
    eventTypes: templates.top(REPORT_LIMITS.eventTypes).map((c) => ({ template: c.value, share: share(c.count), ...row(c) })),
    problems: {
      entries: problemEntries,
      byEventType: problems.top(REPORT_LIMITS.problems).map((c) => {
        const [level, template] = c.value.split(SEP) as [LogLevel, string];
        return { level, template, ...row(c) };
      }),
      byProperty: [...problemProps]
        .map(([property, p]) => ({ property, entries: p.entries, values: p.values.top(REPORT_LIMITS.propertyValues) }))
        // a property whose every value differs (a time, a request id) says nothing here
        .filter((p) => p.values.length > 0 && p.values[0]!.count > 1)
        .sort((a, b) => b.entries - a.entries || (a.property < b.property ? -1 : 1))
        .slice(0, REPORT_LIMITS.properties)
        .map((p) => ({ property: p.property, entries: p.entries, values: p.values.map((v) => ({ value: v.value, count: v.count })) })),
    },
    exceptions: exceptions.top(REPORT_LIMITS.exceptions).map((c) => ({ type: c.value, ...row(c) })),
    managementCalls: {
      count: calls.total,
      users: callers.size,
      byUserAndVerb: pairs,
      byUser,
    },
  };
}
