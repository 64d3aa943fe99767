/**
 * A progress bar on stderr for long listings (`--all`): records fetched of the total, the
 * rate and, once meaningful, the time left. Callers decide when (stderr a TTY, not
 * --quiet). At the end `done()` replaces the bar with one summary line (`2,476 log
 * entries in 1.2 s`). Disabled, it is a no-op.
 *
 * The bar owns one line — the one it draws on — and touches no other: it is drawn as a
 * carriage return, the text cut to the terminal's width (so it never wraps) and
 * erase-to-end-of-line (`\r…\x1b[K`), and removed as `\r\x1b[K`. No cursor save or
 * restore, no line-wrap switching, no cursor movement to other lines (what cli-progress
 * does, and what erased the header that `| head` had printed on the bar's line). While the
 * bar is up, anything else written to stderr removes it first; it is drawn again, below
 * that text, on the next frame, and not at all while that text leaves a line unfinished.
 * When stdout is a pipe, whose reader (`| head`, `| grep`) may print on the same terminal,
 * the bar is removed before each write to stdout and drawn again only once stdout has been
 * quiet for a frame, so the reader's lines never land on it.
 */
import type { Context, OutStream } from './context.js';

export interface Progress {
  /** the number of records expected, once known */
  setTotal(total: number): void;
  /** records done so far */
  update(done: number): void;
  /** removes the bar (idempotent); after an error or Ctrl-C: no summary */
  stop(): void;
  /** the listing finished: removes the bar and writes `N <what> in T` on stderr (idempotent, no-op after stop) */
  done(count: number): void;
}

const NONE: Progress = { setTotal() {}, update() {}, stop() {}, done() {} };

/** ETA is shown only after this much data, ms (the first pages' rate says little). */
const ETA_MIN_ELAPSED_MS = 1000;
/** At most one redraw per frame, ms (8 a second). */
const FRAME_MS = 125;
/** Cells of the bar itself. */
const BAR_CELLS = 24;
/** Carriage return, then the text; erase to the end of the line. */
const ERASE = '\r\x1b[K';

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
 * The bar's text for `done` of `total` (undefined: not known yet) after `elapsedMs`, in at
 * most `width` columns: `████░░░ 1,000/3,000 log entries | 2,345/s | ETA 1s`; the ETA,
 * then the rate, then the bar are left out when the line is narrower, and what is left is cut.
 */
export function barText(what: string, done: number, total: number | undefined, elapsedMs: number, width: number): string {
  const fmt = (n: number) => n.toLocaleString('en-US');
  const filled = total ? Math.min(BAR_CELLS, Math.max(0, Math.round((done / total) * BAR_CELLS))) : 0;
  const bar = '█'.repeat(filled) + '░'.repeat(BAR_CELLS - filled);
  const count = `${fmt(done)}/${total === undefined ? '?' : fmt(total)} ${what}`;
  const rate = ` | ${fmt(elapsedMs > 0 ? Math.round(done / (elapsedMs / 1000)) : 0)}/s`;
  const eta = formatEta(etaSeconds(done, total, elapsedMs) ?? NaN);
  // every character is one column wide (the bar's blocks included), so length is width
  for (const text of [`${bar} ${count}${rate}${eta ? ` | ETA ${eta}` : ''}`, `${bar} ${count}${rate}`, `${bar} ${count}`, count]) {
    if (text.length <= width) return text;
  }
  return count.slice(0, Math.max(0, width));
}

/**
 * Starts a bar on `ctx.stderr` labelled with `what` (e.g. `log entries`) when `enabled`,
 * else returns a no-op. Until stop/done it stands between the context's stderr (and,
 * when stdout is a pipe, stdout) and their writers, as the module comment says; it never
 * touches `process` (no SIGINT hook of its own: the command's ctx.onInterrupt handling
 * stops it).
 */
export async function startProgress(ctx: Context, o: { enabled: boolean; what: string }): Promise<Progress> {
  if (!o.enabled) return NONE;
  const err = ctx.stderr;
  const out = ctx.stdout;
  const started = Date.now();
  const errWrite = err.write.bind(err);
  const outWrite = out.write.bind(out);
  const pipe = out.pipe === true && !out.isTTY;
  let total: number | undefined;
  let done = 0;
  /** figures to show exist (a total or a count came) */
  let known = false;
  /** the bar is on the screen now, on the line the cursor is on */
  let shown = false;
  /** the cursor is at the start of a line (something else left a line unfinished: don't draw) */
  let lineStart = true;
  let lastDraw = -Infinity;
  let lastData = -Infinity;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  const erase = () => {
    if (!shown) return;
    shown = false;
    errWrite(ERASE);
  };
  const draw = () => {
    timer = undefined;
    if (stopped || !known || !lineStart) return;
    const now = Date.now();
    const wait = Math.max(lastDraw + FRAME_MS, pipe ? lastData + FRAME_MS : 0) - now;
    if (wait > 0) return schedule(wait);
    lastDraw = now;
    const width = Math.max(1, (err.columns ?? 80) - 1);
    errWrite(`\r${barText(o.what, done, total, now - started, width)}\x1b[K`);
    shown = true;
  };
  const schedule = (ms: number) => {
    if (timer || stopped) return;
    timer = setTimeout(draw, ms);
    timer.unref?.();
  };
  // the first figures are drawn at once; later ones at most once a frame
  const changed = () => {
    known = true;
    if (Date.now() - lastDraw >= FRAME_MS && !timer) draw();
    else schedule(Math.max(0, lastDraw + FRAME_MS - Date.now()));
  };

  // stand between the streams and their other writers while the bar lives
  const guardedErr = (chunk: string) => {
    erase();
    const r = errWrite(chunk);
    const text = String(chunk);
    if (text !== '') lineStart = text.endsWith('\n');
    if (known) schedule(FRAME_MS);
    return r;
  };
  const guardedOut = (chunk: string) => {
    erase();
    lastData = Date.now();
    if (known) schedule(FRAME_MS);
    return outWrite(chunk);
  };
  const restore = swap(err, guardedErr);
  const restoreOut = pipe ? swap(out, guardedOut) : () => {};

  const stop = () => {
    if (stopped) return;
    stopped = true;
    if (timer) clearTimeout(timer);
    timer = undefined;
    restore();
    restoreOut();
    erase();
  };
  return {
    setTotal(n) {
      total = n;
      changed();
    },
    update(n) {
      done = n;
      changed();
    },
    stop,
    done(count) {
      if (stopped) return;
      stop();
      err.write(`${count.toLocaleString('en-US')} ${o.what} in ${formatElapsed(Date.now() - started)}\n`);
    },
  };
}

/** Puts `write` in place of the stream's own until the returned function is called. */
function swap(stream: OutStream, write: (chunk: string) => unknown): () => void {
  const own = Object.prototype.hasOwnProperty.call(stream, 'write');
  const before = stream.write;
  stream.write = write;
  return () => {
    if (own) stream.write = before;
    else delete (stream as { write?: unknown }).write;
  };
}
