// Shared: helpers for the list machinery's tests and log tail's: waiting on a condition, log entries inserted straight into a database.
/**
 * Helpers for the list machinery and `log tail` tests: waiting on a condition, and log
 * entries inserted straight into a service database. (Their test Context is
 * test/helpers/context.ts testContext, as everyone's.)
 */
import { writeLog } from '../../../src/server/log-writer.js';
import type { Db } from '../../../src/server/db.js';

/** Waits until `cond()` holds, polling every 5 ms; fails after `ms`. */
export async function until(cond: () => boolean, ms = 10_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const LEVELS = ['Verbose', 'Debug', 'Information', 'Warning', 'Error', 'Fatal'];

/**
 * Inserts `n` log entries straight into the service database in one transaction (fast),
 * message `${prefix} #i` plus awkward text every few entries (commas, quotes, newlines,
 * tabs, backslashes), levels cycling; timestamps from `start` one second apart.
 * Returns their ids in insertion order.
 */
export function insertLog(db: Db, n: number, o: { prefix?: string; start?: Date; level?: string } = {}): number[] {
  const ids: number[] = [];
  const start = (o.start ?? new Date('2025-01-01T00:00:00Z')).getTime();
  db.transaction(() => {
    for (let i = 0; i < n; i++) {
      const awkward = i % 7 === 0 ? ', "quoted", line1\nline2\ttab \\ back' : '';
      ids.push(
        writeLog(
          db,
          new Date(start + i * 1000),
          o.level ?? LEVELS[i % LEVELS.length]!,
          `${o.prefix ?? 'entry'} {N}${awkward.replace(/[{}]/g, '')}`,
          { N: i },
        ),
      );
    }
  })();
  return ids;
}
