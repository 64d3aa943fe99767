// Cross-cutting: the progress bar any long list draws, on a real pseudo-terminal; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/**
 * The progress bar on a real pseudo-terminal (util-linux `script`) while stdout goes to
 * `| head -3`, whose output lands on the same terminal: the bytes the terminal received are
 * rendered by a terminal emulator (xterm.js, headless) and the final screen must hold the
 * CSV header and two rows, whole, and nothing of the bar. With a slow link (a forward proxy
 * that answers late) and small pages the bar is drawn again after head printed, below its
 * lines, and still leaves no trace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { startProxy, type TestProxy } from '../helpers/proxy.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { hasScript, spawnLicTty } from '../helpers/spawn.js';
import { renderScreen } from '../helpers/terminal.js';

if (!hasScript) console.warn('test/cli/progress-tty.test.ts: util-linux `script` not found; skipping');

const COLS = 80;
const ROWS = 24;
let svc: TestService;
let env: Record<string, string>;
let slow: TestProxy;
/** the first three lines `lic log list --all -o csv` prints */
let head3: string[];

beforeAll(async () => {
  svc = await startTestService();
  const ins = svc.db.prepare(
    'INSERT INTO log (time_stamp, level, message, message_template, exception, properties) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  // three pages of --all
  svc.db.transaction(() => {
    for (let i = 0; i < 2500; i++) ins.run(t0 + i * 1000, 'Information', `License checked by host-${i % 50}`, 'License checked', '', '{}');
  })();
  // COLUMNS '' so the pty's own size counts; no color
  env = { LIC_BASE_URL: svc.url, LIC_API_KEY: svc.adminKey, LIC_CONFIG_DIR: tempDir(), NO_COLOR: '1', COLUMNS: '' };
  const r = await runCli(['log', 'list', '--limit', '2', '-o', 'csv'], { env });
  head3 = r.stdout.trimEnd().split('\n');
  expect(head3).toHaveLength(3);
  slow = await startProxy({ delayMs: 600 });
}, 60_000);
afterAll(async () => {
  await slow?.close();
  await svc?.close();
});

/** What no progress bar may send: cursor save/restore, line-wrap switching, a whole-line erase. */
const FOREIGN = /\x1b7|\x1b8|\x1b\[\?7[hl]|\x1b\[2K|\x1b\[s|\x1b\[u/;

describe.skipIf(!hasScript)('lic log list --all -o csv | head -3, stderr a terminal', () => {
  it('the header and two rows stay whole on the screen; the bar leaves nothing', async () => {
    const r = await spawnLicTty(['log', 'list', '--all', '-o', 'csv'], { env, cols: COLS, rows: ROWS, pipeTo: 'head -3' });
    expect(r.code).toBe(0);
    // the bar was drawn (a terminal stderr), in its own way only
    expect(r.output).toContain('log entries |');
    expect(r.output).not.toMatch(FOREIGN);
    const screen = await renderScreen(r.output, COLS, ROWS);
    expect(screen.logical.filter((l) => l !== '')).toEqual(head3);
  });

  it('through a slow link, in small pages: the bar comes back below what head printed, and is gone at the end', async () => {
    // a page of 50 fits in the pipe, so lic learns that head has gone only at its next write, 600 ms on
    const r = await spawnLicTty(['log', 'list', '--all', '--take', '50', '-o', 'csv'], {
      env: { ...env, HTTP_PROXY: slow.url },
      cols: COLS,
      rows: ROWS,
      pipeTo: 'head -3',
    });
    expect(r.code).toBe(0);
    // drawn again after the rows reached the terminal
    const afterRows = r.output.slice(r.output.lastIndexOf(head3[2]!.slice(-20)));
    expect(afterRows).toContain('log entries |');
    expect(r.output).not.toMatch(FOREIGN);
    const screen = await renderScreen(r.output, COLS, ROWS);
    expect(screen.logical.filter((l) => l !== '')).toEqual(head3);
  });
});
