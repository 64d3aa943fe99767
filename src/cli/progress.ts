/**
 * A progress bar on stderr for long listings (`--all`): records fetched of the total, the
 * rate and, once meaningful, the time left. Drawn by cli-progress, loaded only when a bar
 * is shown; callers decide when (stderr a TTY, not --quiet). At the end `done()` replaces
 * the bar with one summary line (`2,476 log entries in 1.2 s`). Disabled, it is a no-op
 * and loads nothing.
 */
import type { Context } from './context.js';

export interface Progress {
  /** the number of records expected, once known */
  setTotal(total: number): void;
  /** records done so far */
  update(done: number): void;
  /** removes the bar (idempotent); after an error or Ctrl-C: no summary */
  stop(): void;
  /** the listing finished: removes the bar and writes `N <what> in T` on stderr if the bar was shown (idempotent, no-op after stop) */
  done(count: number): void;
}

const NONE: Progress = { setTotal() {}, update() {}, stop() {}, done() {} };

/** ETA is shown only after this much data, ms (the first pages' rate says little). */
const ETA_MIN_ELAPSED_MS = 1000;

/**
 * Formats a time left in seconds for the bar: `45s`, `1m05s`, `14h00m`; rounded first so a
 * part never reads 60. Undefined for NaN, ±Infinity or negative input (the bar then shows
 * no ETA). Beyond 99 days it says `>99d`.
 */
export function formatEta(seconds: number): string | undefined {
  if (!Number.isFinite(seconds) || seconds < 0) return undefined;
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  const m = Math.round(seconds / 60);
  if (m >= 99 * 24 * 60) return '>99d';
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/** Formats an elapsed time in ms for the summary line: `0.4 s`, `12.3 s`, then `1m05s`. */
export function formatElapsed(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) ms = 0;
  if (ms < 59_950) return `${(ms / 1000).toFixed(1)} s`;
  return formatEta(ms / 1000)!;
}

/**
 * The time left in seconds at `done` of `total` after `elapsedMs`, or undefined while it
 * would be a guess: total unknown, nothing done yet, or less than ETA_MIN_ELAPSED_MS of data.
 */
export function etaSeconds(done: number, total: number | undefined, elapsedMs: number): number | undefined {
  if (total === undefined || !(done > 0) || elapsedMs < ETA_MIN_ELAPSED_MS) return undefined;
  const left = Math.max(0, total - done);
  return left / (done / (elapsedMs / 1000));
}

/**
 * Starts a bar on `ctx.stderr` labelled with `what` (e.g. `log entries`) when `enabled`,
 * else returns a no-op. The bar is cleared on stop/done; it never touches `process` (no
 * SIGINT hook of its own: the command's ctx.onInterrupt handling stops it).
 */
export async function startProgress(ctx: Context, o: { enabled: boolean; what: string }): Promise<Progress> {
  if (!o.enabled) return NONE;
  const mod = await import('cli-progress');
  const SingleBar = mod.SingleBar ?? (mod as unknown as { default: typeof mod }).default.SingleBar;
  const err = ctx.stderr;
  // cli-progress draws through node:readline's cursor helpers, which only call write()
  const stream = {
    write: (s: string) => err.write(s),
    get isTTY() {
      return err.isTTY;
    },
    get columns() {
      return err.columns ?? 80;
    },
    on() {
      return stream;
    },
    removeListener() {
      return stream;
    },
  } as unknown as NodeJS.WritableStream;
  const started = Date.now();
  const rate = (done: number) => {
    const s = (Date.now() - started) / 1000;
    return s > 0 ? Math.round(done / s).toLocaleString('en-US') : '0';
  };
  // our own ETA (cli-progress's eta_formatted prints NaN/Infinity and 14h60m on odd totals)
  const eta = (done: number) => {
    const text = formatEta(etaSeconds(done, total, Date.now() - started) ?? NaN);
    return text === undefined ? '' : ` | ETA ${text}`;
  };
  const bar = new SingleBar({
    stream,
    format: `{bar} {doneText}/{totalText} ${o.what} | {rate}/s{etaText}`,
    barsize: 24,
    hideCursor: false,
    gracefulExit: false,
    clearOnComplete: true,
    fps: 8,
  });
  const fmt = (n: number) => n.toLocaleString('en-US');
  let total: number | undefined;
  let drawn = false;
  let stopped = false;
  const payload = (done: number) => ({
    doneText: fmt(done),
    rate: rate(done),
    totalText: total === undefined ? '?' : fmt(total),
    etaText: eta(done),
  });
  // drawn from the first figures on, so it never shows an empty total as "complete"
  const ensure = (done: number) => {
    if (drawn || stopped) return;
    drawn = true;
    bar.start(total ?? 0, done, payload(done));
  };
  let last = 0;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    if (drawn) bar.stop();
  };
  return {
    setTotal(n) {
      total = n;
      if (drawn) bar.setTotal(n);
      else ensure(0);
      bar.update(payload(last));
    },
    update(done) {
      last = done;
      ensure(done);
      bar.update(done, payload(done));
    },
    stop,
    done(count) {
      if (stopped) return;
      const shown = drawn;
      stop();
      if (shown) err.write(`${fmt(count)} ${o.what} in ${formatElapsed(Date.now() - started)}\n`);
    },
  };
}
