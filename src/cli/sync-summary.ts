/**
 * The outcome of a command that brings a set of records onto the service one by one
 * (`resources import`, `assemblies import`): what each item came to, the summary table
 * (created / updated / unchanged / failed), its shape in every output format, and the
 * exit rule (1 when any item failed). One module so both imports print and exit alike.
 */
import type { Column } from './output.js';
import type { Runtime } from './runtime.js';

/** What one item came to; in a dry run, what a real run would do (nothing was sent). */
const SYNC_OUTCOMES = ['created', 'updated', 'unchanged', 'failed'] as const;
type SyncOutcome = (typeof SYNC_OUTCOMES)[number];

/** One item of an import: a resource (by code) or an assembly (by identity). */
export interface SyncItem {
  /** what identifies the item on the service: a resource code, an assembly's display name */
  item: string;
  /** where it came from: `bundle.ndjson:3`, a DLL's path */
  source: string;
  outcome: SyncOutcome;
  /** the record's id on the service (absent for a failure before it existed, or a dry run's create) */
  id?: number;
  /** the fields that differ (updated), or why it failed (failed) */
  detail?: string;
}

/** The result printed for `-o json`: counts by outcome, then one entry per item. */
export interface SyncReport {
  /** true when nothing was sent: the outcomes say what a real run would do */
  dryRun: boolean;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
  items: SyncItem[];
}

/** Counts `items` by outcome (every outcome present, 0 when none). */
export function syncReport(items: SyncItem[], dryRun: boolean): SyncReport {
  const count = (o: SyncOutcome) => items.filter((i) => i.outcome === o).length;
  return { dryRun, created: count('created'), updated: count('updated'), unchanged: count('unchanged'), failed: count('failed'), items };
}

/** The outcome as a table shows it: a dry run's creates and updates read `to create` / `to update`. */
const label = (o: SyncOutcome, dryRun: boolean): string =>
  dryRun && o === 'created' ? 'to create' : dryRun && o === 'updated' ? 'to update' : o;
const tone = (o: SyncOutcome) => (o === 'failed' ? 'bad' : o === 'unchanged' ? 'dim' : 'ok');

/** Thrown after the summary when an item failed: main() prints the message and exits 1 (README "Exit codes"). */
class SyncFailedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SyncFailedError';
  }
}

/**
 * Prints the report on stdout: `-o json` the SyncReport; `-o ndjson` one item per line;
 * csv/tsv one row per item (item, source, outcome, id, detail); a table (TTY) or
 * tab-separated lines (piped) of the counts, preceded by one row per item when
 * `details`. Then throws SyncFailedError (exit 1) when any item failed, naming how many
 * of how many `what` (a plural noun: `resources`).
 */
export async function printSyncReport(rt: Runtime, report: SyncReport, what: string, details = false): Promise<void> {
  const format = rt.out.opts.format;
  if (format === 'json') rt.out.json(report);
  else if (format === 'ndjson' || format === 'csv' || format === 'tsv') {
    const cols: Column<SyncItem>[] = [
      { header: 'item', get: (i) => i.item },
      { header: 'source', get: (i) => i.source },
      { header: 'outcome', get: (i) => i.outcome },
      { header: 'id', get: (i) => i.id },
      { header: 'detail', get: (i) => i.detail },
    ];
    await rt.out.list(report, report.items, cols);
  } else {
    if (details && report.items.length) {
      await rt.out.list(report, report.items, [
        { header: 'OUTCOME', kind: 'label', get: (i) => label(i.outcome, report.dryRun), tone: (i) => tone(i.outcome) },
        { header: 'ID', kind: 'id', get: (i) => i.id },
        { header: 'ITEM', kind: 'text', get: (i) => i.item },
        { header: 'SOURCE', kind: 'text', get: (i) => i.source },
        { header: 'DETAIL', kind: 'text', get: (i) => i.detail },
      ]);
      // two tables on a terminal: a blank line between them
      if (rt.ctx.stdout.isTTY) rt.out.raw('\n');
    }
    const rows = SYNC_OUTCOMES.map((o) => ({ o, n: report[o] }));
    await rt.out.list(report, rows, [
      {
        header: report.dryRun ? 'DRY RUN' : 'OUTCOME',
        kind: 'label',
        get: (r) => label(r.o, report.dryRun),
        tone: (r) => (r.n ? tone(r.o) : 'dim'),
      },
      { header: what.toUpperCase(), kind: 'number', get: (r) => r.n },
    ]);
  }
  if (report.dryRun)
    rt.out.info(`Dry run: nothing was sent; a real run would create ${report.created} and update ${report.updated} ${what}.`);
  if (report.failed > 0) {
    throw new SyncFailedError(
      `${report.failed} of ${report.items.length} ${what} failed${details || format !== 'table' ? '' : ' (--details lists them)'}; the others were ${report.dryRun ? 'checked' : 'done'}, and a second run skips what is unchanged`,
    );
  }
}
