/**
 * A progress bar on stderr for long listings (`--all`): records fetched of the total and
 * the rate. Drawn by cli-progress, loaded only when a bar is shown; callers decide when
 * (stderr a TTY, not --quiet). Disabled, it is a no-op and loads nothing.
 */
import type { Context } from './context.js';

export interface Progress {
  /** the number of records expected, once known */
  setTotal(total: number): void;
  /** records done so far */
  update(done: number): void;
  /** removes the bar (idempotent) */
  stop(): void;
}

const NONE: Progress = { setTotal() {}, update() {}, stop() {} };

/**
 * Starts a bar on `ctx.stderr` labelled with `what` (e.g. `log entries`) when `enabled`,
 * else returns a no-op. The bar is cleared on stop; it never touches `process` (no
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
  const bar = new SingleBar({
    stream,
    format: `{bar} {doneText}/{totalText} ${o.what} | {rate}/s | ETA {eta_formatted}`,
    barsize: 24,
    hideCursor: false,
    gracefulExit: false,
    clearOnComplete: true,
    etaBuffer: 20,
    fps: 8,
  });
  const fmt = (n: number) => n.toLocaleString('en-US');
  let total: number | undefined;
  let drawn = false;
  let stopped = false;
  // drawn from the first figures on, so it never shows an empty total as "complete"
  const ensure = (done: number) => {
    if (drawn || stopped) return;
    drawn = true;
    bar.start(total ?? 0, done, { doneText: fmt(done), rate: rate(done), totalText: total === undefined ? '?' : fmt(total) });
  };
  return {
    setTotal(n) {
      total = n;
      if (drawn) bar.setTotal(n);
      else ensure(0);
      bar.update({ totalText: fmt(n) });
    },
    update(done) {
      ensure(done);
      bar.update(done, { doneText: fmt(done), rate: rate(done), totalText: total === undefined ? '?' : fmt(total) });
    },
    stop() {
      if (stopped) return;
      stopped = true;
      if (drawn) bar.stop();
    },
  };
}
