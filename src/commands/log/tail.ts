import type { Command } from 'commander';
import { listLog } from '../../client/endpoints/log.js';
import { NetworkError, ProtocolError } from '../../client/errors.js';
import { TAKE_MAX, type LogEntry } from '../../wire.js';
import { InterruptedError } from '../../cli/errors.js';
import { ABORTED, unlessAborted } from '../../cli/list/abort.js';
import { allOf, fieldOf, listRecords } from '../../cli/list/index.js';
import { outputFormats, parseCount, parseDuration, parseLevel } from '../../cli/parse.js';
import type { CommandDeps } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { LOG_LIST } from './list.js';

interface LogTailOptions {
  follow?: boolean;
  level?: string;
  contains?: string;
  where?: string;
  /** poll interval for --follow, ms (default TAIL_DEFAULT_INTERVAL_MS) */
  interval?: number;
  /** newest entries to print first */
  lines: number;
}

const TAIL_DEFAULT_LINES = 10;
const TAIL_DEFAULT_INTERVAL_MS = 2000;
/** --follow's first wait after losing the service, ms; doubled on each failed attempt up to TAIL_RECONNECT_MAX_MS. */
export const TAIL_RECONNECT_FIRST_MS = 500;
const TAIL_RECONNECT_MAX_MS = 30_000;

/** The wait before reconnect attempt `attempt` (0-based), ms: capped exponential backoff. */
export const reconnectDelay = (attempt: number): number =>
  Math.min(TAIL_RECONNECT_MAX_MS, TAIL_RECONNECT_FIRST_MS * 2 ** Math.min(attempt, 16));

/** The id of an entry; ProtocolError when the service sent none (tail follows by id). */
const idOf = (e: LogEntry): number => {
  const id = fieldOf(e as unknown as Record<string, unknown>, 'id');
  if (typeof id !== 'number' || !Number.isInteger(id))
    throw new ProtocolError('a log entry in the reply has no integer "id", so new entries cannot be followed', 'GET', '/v1/log');
  return id;
};

/**
 * Checks that a page moves the way it was asked to: every id strictly beyond `bound` in
 * `dir` (`asc`: ids > bound, increasing; `desc`: ids < bound, decreasing). A service that
 * ignores the filter or the sort would otherwise make tail print records twice or loop;
 * throws ProtocolError (exit 1) naming what the service did. Returns the page's ids.
 */
function checkPage(page: LogEntry[], dir: 'asc' | 'desc', bound: number | undefined, query: string): number[] {
  const ids = page.map(idOf);
  let prev = bound;
  for (const id of ids) {
    if (prev !== undefined && (dir === 'asc' ? id <= prev : id >= prev)) {
      throw new ProtocolError(
        `the service answered "${query}" with log entry ${id} after ${prev}: it ignores the filter or the sort by id, so tail cannot follow it without printing entries twice`,
        'GET',
        '/v1/log',
      );
    }
    prev = id;
  }
  return ids;
}

/**
 * `lic log tail`: prints the newest `lines` entries matching the filter (oldest first),
 * then with --follow polls every `interval` for entries with `Id > lastSeen`, sorted by
 * id, paging through all new ones (contract §5, §6): by id, so none is printed twice or
 * skipped. Ctrl-C (ctx.onInterrupt) ends it at once, also mid-wait: throws
 * InterruptedError (exit 130) after the output is finished. Every page must move forward
 * (checkPage): a service ignoring `Id > lastSeen` ends it with ProtocolError (exit 1).
 * --follow survives the service going away: on NetworkError it says so once on stderr
 * (not with --quiet), retries with capped exponential backoff (reconnectDelay, through
 * ctx.sleep; one request per attempt, no line per retry) and says once that it is back,
 * then resumes after the last id printed; API errors (401, 403, 400) still end it.
 * Limitation: ids must become visible in increasing order, true of the local service
 * (one writer); on a database that commits concurrent inserts out of id order an entry
 * committed late with a lower id than one already seen would be missed.
 */
async function runLogTail(opts: LogTailOptions, rt: Runtime): Promise<void> {
  const client = await rt.client();
  const filter = allOf([...LOG_LIST.filters(opts, rt.ctx.now()), opts.where]);
  const writer = rt.out.openList<LogEntry>(LOG_LIST.columns, LOG_LIST, { live: true });
  const ac = new AbortController();
  const off = opts.follow ? rt.ctx.onInterrupt(() => ac.abort()) : () => {};
  let begun = false;
  const print = async (body: object, entries: LogEntry[]) => {
    if (!begun) {
      begun = true;
      await writer.begin(body as Record<string, unknown>);
    }
    if (entries.length) await writer.write(entries);
  };
  try {
    // the newest `lines` entries, newest first by id; at least one is asked for, to learn where --follow starts
    const newest: LogEntry[] = [];
    let lastBody: object = {};
    let before: number | undefined;
    const want = Math.max(opts.lines, opts.follow ? 1 : 0);
    while (newest.length < want) {
      const take = Math.min(TAKE_MAX, want - newest.length);
      const body = await unlessAborted(
        listLog(client, { filter: allOf([filter, before !== undefined && `Id < ${before}`]), sort: 'Id desc', take }),
        ac.signal,
      );
      const page = listRecords<LogEntry>(body, 'logEntries');
      checkPage(page, 'desc', before, before === undefined ? 'sort=Id desc' : `Id < ${before}, sort=Id desc`);
      lastBody = body;
      newest.push(...page);
      if (page.length < take) break;
      before = idOf(page[page.length - 1]!);
    }
    let lastSeen = newest.length ? idOf(newest[0]!) : 0;
    await print(lastBody, newest.slice(0, opts.lines).reverse());
    // failed attempts since the service was lost; 0 = connected
    let down = 0;
    while (opts.follow) {
      await rt.ctx.sleep(down ? reconnectDelay(down - 1) : (opts.interval ?? TAIL_DEFAULT_INTERVAL_MS), ac.signal);
      if (ac.signal.aborted) break;
      // every entry after the last one seen, oldest first, page after page
      try {
        for (;;) {
          const body = await unlessAborted(
            // no line per retry: a lost service is said once below, and its return once; while it is
            // away the backoff above paces the attempts, so each is one request
            listLog(client, { filter: allOf([filter, `Id > ${lastSeen}`]), sort: 'Id asc', take: TAKE_MAX }, undefined, {
              quietRetries: true,
              retries: down ? 0 : undefined,
            }),
            ac.signal,
          );
          if (down) {
            down = 0;
            rt.out.info(
              `lic: the service at ${(await rt.target()).baseUrl} is back${lastSeen ? `; going on after log entry ${lastSeen}` : ''}`,
            );
          }
          const page = listRecords<LogEntry>(body, 'logEntries');
          const ids = checkPage(page, 'asc', lastSeen, `Id > ${lastSeen}, sort=Id asc`);
          if (page.length) {
            await print(body, page);
            lastSeen = ids[ids.length - 1]!;
          }
          if (page.length < TAKE_MAX || ac.signal.aborted) break;
        }
      } catch (e) {
        if (!(e instanceof NetworkError)) throw e;
        if (!down) rt.out.info(`lic: lost the service at ${(await rt.target()).baseUrl}, reconnecting…`);
        down++;
      }
      if (ac.signal.aborted) break;
    }
  } catch (e) {
    if (e !== ABORTED) throw e;
  } finally {
    off();
  }
  if (begun) await writer.end();
  // --follow only ends by Ctrl-C
  if (opts.follow) throw new InterruptedError();
}

/** Declares `log tail` with --follow, --lines, --level, --contains, --where and --interval. */
export function registerLogTail(parent: Command, deps: CommandDeps, run = runLogTail): void {
  outputFormats(parent.command('tail'))
    .description('Print the newest log entries; with --follow, keep printing new ones until Ctrl-C')
    .option('-f, --follow', 'keep polling for new entries (by id: none twice, none skipped) until Ctrl-C')
    .option('-n, --lines <n>', 'newest entries to print first', parseCount, TAIL_DEFAULT_LINES)
    .option('--level <level>', 'only this level: Verbose, Debug, Information, Warning, Error, Fatal', parseLevel)
    .option('--contains <text>', 'only entries whose message contains this text (exact, case-sensitive)')
    .option('--where <expr>', "filter expression in the service's query language, AND-ed with --level/--contains")
    .option('--interval <duration>', 'how often --follow asks for new entries: 500ms, 2s, 1m (default 2s)', parseDuration)
    .addHelpText(
      'after',
      '\nOutput: on a terminal one aligned line per entry; piped, tab-separated columns; -o ndjson (or json) one JSON entry per line; -o csv/tsv a header, then rows.\nCtrl-C ends --follow with exit code 130. If the service goes away, --follow says so on stderr and reconnects (0.5 s, 1 s, 2 s… up to 30 s apart), then goes on after the last entry it printed.\n\nExamples:\n  lic log tail -n 50 --level Warning\n  lic log tail -f --contains "/v1/api-keys"\n  lic log tail -f -o ndjson | jq -r .message',
    )
    .action(async (o: LogTailOptions, cmd: Command) => run(o, deps.runtimeOf(cmd)));
}
