/**
 * A time budget for a log read with a costly filter (`GET /v1/log`, contract §6). SQLite runs
 * a statement to its end without letting other requests in (better-sqlite3 is synchronous and
 * has no progress handler), and what a filter costs grows with its values and with the entries
 * it reads, which MAX_FILTER_WORK (values × days) does not bound: 60 `Message.EndsWith` over a
 * million entries of one day take ~2 s. So such a read carries a guard, a function of ours that
 * SQLite calls for each row it looks at (`lic_log_budget() AND (…)`), which looks at the clock
 * every 1,024 rows and, past the deadline, throws: SQLite stops the statement there, the read
 * transaction ends, and the request is a 400 naming the budget and how to narrow the query.
 * Other requests then wait at most about the budget. The guard costs ~0.1 µs a row (measured:
 * a LIKE over 1M rows, 64 → 178 ms; 60 of them, 1.77 → 1.88 s), so a filter of a few values,
 * whose rows cost about as little, reads without it.
 */
import type { Db } from '../db.js';
import { badRequest, type ServiceError } from '../errors.js';

/** Default budget of one log read, ms: what one request may hold the service for. */
export const LOG_READ_BUDGET_MS = 1000;

/** Filters of more values than this are read against the budget (fewer cost per row about what the guard does). */
export const BUDGET_MIN_VALUES = 4;

/** The guard as SQL: a term ANDed before the read's WHERE. */
export const BUDGET_GUARD = 'lic_log_budget()';

/** What the guard throws past the deadline (through SQLite, to the caller of the statement). */
class OverBudget extends Error {}

let deadline = Infinity;
let rows = 0;
const registered = new WeakSet<Db>();

/** Registers the guard's function on `db` (once): 1 for each row, an OverBudget past the deadline of the read under way. */
function register(db: Db): void {
  if (registered.has(db)) return;
  db.function('lic_log_budget', { deterministic: false, directOnly: true }, () => {
    if ((++rows & 1023) === 0 && performance.now() > deadline) throw new OverBudget('over the budget');
    return 1;
  });
  registered.add(db);
}

/**
 * Runs `read` (synchronous: the deadline is the only one set while it runs) with `budgetMs`
 * from now as the guard's deadline, on `db` with the guard registered. A read past it is the
 * 400 of overBudget; any other error is rethrown as it is.
 */
export function withinBudget<T>(db: Db, budgetMs: number, read: () => T): T {
  register(db);
  deadline = performance.now() + budgetMs;
  rows = 0;
  try {
    return read();
  } catch (e) {
    if (e instanceof OverBudget) throw overBudget(budgetMs);
    throw e;
  } finally {
    deadline = Infinity;
  }
}

/** The 400 of a read stopped at its budget (contract §6): what was spent, and how to narrow the query. */
function overBudget(budgetMs: number): ServiceError {
  return badRequest(
    `filter: reading it took more than the ${budgetMs} ms one request may take; narrow startDate/endDate or use fewer values`,
    'filter',
  );
}
