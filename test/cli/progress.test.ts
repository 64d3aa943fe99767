// Cross-cutting: the progress bar's text and timing, shared by every long-running command; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/** The progress bar: its own ETA and elapsed-time formatting, and its text fitted to the width. */
import { describe, expect, it } from 'vitest';
import { barText, etaSeconds, formatElapsed, formatEta, startProgress } from '../../src/cli/progress.js';
import { testContext, type TestContext, type TestContextOptions } from '../helpers/context.js';
import { renderScreen } from '../helpers/terminal.js';

describe('formatEta', () => {
  it('seconds, minutes with two-digit seconds, hours with two-digit minutes', () => {
    expect(formatEta(0)).toBe('0s');
    expect(formatEta(45)).toBe('45s');
    expect(formatEta(65)).toBe('1m05s');
    expect(formatEta(14 * 3600)).toBe('14h00m');
    expect(formatEta(3600 + 61)).toBe('1h01m');
  });

  it('rounds before splitting: never 60 in a part', () => {
    expect(formatEta(59.6)).toBe('1m00s');
    expect(formatEta(119.7)).toBe('2m00s');
    expect(formatEta(3599.6)).toBe('1h00m');
    expect(formatEta(14 * 3600 + 59 * 60 + 59.9)).toBe('15h00m');
    for (let s = 0; s < 200_000; s += 37.7) expect(formatEta(s)).not.toMatch(/(^|[^\d])60[ms]/);
  });

  it('nothing for NaN, Infinity or negative; a cap for absurd totals', () => {
    expect(formatEta(NaN)).toBeUndefined();
    expect(formatEta(Infinity)).toBeUndefined();
    expect(formatEta(-1)).toBeUndefined();
    expect(formatEta(1e12)).toBe('>99d');
  });
});

describe('etaSeconds', () => {
  it('hidden until there is a total, some records and a second of data', () => {
    expect(etaSeconds(100, undefined, 5000)).toBeUndefined();
    expect(etaSeconds(0, 1000, 5000)).toBeUndefined();
    expect(etaSeconds(100, 1000, 999)).toBeUndefined();
    expect(etaSeconds(100, 1000, 1000)).toBeCloseTo(9);
    expect(etaSeconds(1200, 1000, 2000)).toBe(0);
  });
});

describe('formatElapsed', () => {
  it('tenths of a second, then minutes', () => {
    expect(formatElapsed(1234)).toBe('1.2 s');
    expect(formatElapsed(40)).toBe('0.0 s');
    expect(formatElapsed(59_960)).toBe('1m00s');
    expect(formatElapsed(65_000)).toBe('1m05s');
    expect(formatElapsed(NaN)).toBe('0.0 s');
  });
});

describe('barText', () => {
  it('bar, count, rate and ETA; the ETA, the rate, then the bar give way on a narrow line; never wider than asked', () => {
    expect(barText('log entries', 1500, 3000, 2000, 200)).toBe(
      `${'█'.repeat(12)}${'░'.repeat(12)} 1,500/3,000 log entries | 750/s | ETA 2s`,
    );
    expect(barText('log entries', 0, undefined, 0, 200)).toBe(`${'░'.repeat(24)} 0/? log entries | 0/s`);
    expect(barText('log entries', 1500, 3000, 2000, 60)).toBe(`${'█'.repeat(12)}${'░'.repeat(12)} 1,500/3,000 log entries | 750/s`);
    expect(barText('log entries', 1500, 3000, 2000, 30)).toBe('1,500/3,000 log entries');
    for (let w = 1; w < 90; w++) expect(barText('log entries', 123_456, 999_999, 5000, w).length).toBeLessThanOrEqual(w);
  });
});

/** stdout and stderr in the order they were written, as one terminal would show them (LF as CR LF, as a pty's onlcr does). */
function terminalOf(o: TestContextOptions = {}): { h: TestContext; bytes: () => string } {
  let bytes = '';
  const h = testContext({ stderrTTY: true, ...o, onOutput: (_s, chunk) => (bytes += chunk.replace(/\n/g, '\r\n')) });
  return { h, bytes: () => bytes };
}
const frame = () => new Promise((r) => setTimeout(r, 300));
/** What a bar must never send: cursor save/restore, line-wrap switching, moves to other lines, erase of a whole line. */
const FOREIGN = /\x1b7|\x1b8|\x1b\[\?7[hl]|\x1b\[\d*[ABHf]|\x1b\[2K|\x1b\[s|\x1b\[u/;

describe('the bar on a terminal: only its own line', () => {
  it('another stderr line removes it first and it comes back below; the summary replaces it; no cursor save, wrap switch or move', async () => {
    const { h, bytes } = terminalOf();
    const p = await startProgress(h.ctx, { enabled: true, what: 'log entries' });
    p.setTotal(3000);
    expect(bytes()).toContain('0/3,000 log entries');
    p.update(1000);
    // at most one drawing a frame: the new figures come on the next
    await frame();
    expect(bytes()).toContain('1,000/3,000 log entries');
    h.ctx.stderr.write('lic: connection reset by http://127.0.0.1:1, retry 1/2 in 0.5s\n');
    await frame();
    p.update(2000);
    await frame();
    p.done(3000);
    expect(bytes()).not.toMatch(FOREIGN);
    // drawn before and after the notice
    expect(bytes().match(/log entries \|/g)!.length).toBeGreaterThanOrEqual(2);
    const screen = await renderScreen(bytes(), 80, 6);
    expect(screen.lines[0]).toBe('lic: connection reset by http://127.0.0.1:1, retry 1/2 in 0.5s');
    expect(screen.lines[1]).toMatch(/^3,000 log entries in \d+\.\d s$/);
    expect(screen.lines.slice(2).join('')).toBe('');
  });

  it('a line someone else left unfinished (a prompt) is never drawn over; the bar waits for the line to end', async () => {
    const { h, bytes } = terminalOf();
    const p = await startProgress(h.ctx, { enabled: true, what: 'requests' });
    p.setTotal(10);
    h.ctx.stderr.write('Continue? ');
    p.update(5);
    await frame();
    expect((await renderScreen(bytes(), 80, 4)).lines[0]).toBe('Continue? ');
    h.ctx.stderr.write('yes\n');
    p.update(6);
    await frame();
    const screen = await renderScreen(bytes(), 80, 4);
    expect(screen.lines[0]).toBe('Continue? yes');
    expect(screen.lines[1]).toMatch(/^█+░+ 6\/10 requests/);
    p.stop();
    expect((await renderScreen(bytes(), 80, 4)).lines.slice(1).join('')).toBe('');
  });

  it('stdout a pipe (its reader may print here): the bar steps aside before each write and returns after a quiet frame', async () => {
    const { h, bytes } = terminalOf();
    h.ctx.stdout.pipe = true;
    const p = await startProgress(h.ctx, { enabled: true, what: 'log entries' });
    p.setTotal(3000);
    expect(bytes()).toContain('0/3,000 log entries');
    // the reader prints what it read as soon as it gets it: here, right after the write
    h.ctx.stdout.write('id,timeStamp,level\n1,2026-01-01T00:00:00Z,Information\n');
    p.update(1000);
    const right = bytes();
    expect(right.slice(right.lastIndexOf('id,timeStamp'))).not.toContain('log entries');
    await frame();
    p.update(1000);
    let screen = await renderScreen(bytes(), 80, 5);
    expect(screen.lines.slice(0, 2)).toEqual(['id,timeStamp,level', '1,2026-01-01T00:00:00Z,Information']);
    expect(screen.lines[2]).toMatch(/1,000\/3,000 log entries/);
    p.stop();
    screen = await renderScreen(bytes(), 80, 5);
    expect(screen.lines).toEqual(['id,timeStamp,level', '1,2026-01-01T00:00:00Z,Information', '', '', '']);
    expect(bytes()).not.toMatch(FOREIGN);
  });
});
