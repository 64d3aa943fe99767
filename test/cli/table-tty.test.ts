// Cross-cutting: terminal tables on a real pseudo-terminal, for every list; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/**
 * Terminal tables through a real pseudo-terminal (util-linux `script`), with the width
 * set on the pty (`stty cols`) as a terminal window would: no line wider than the
 * terminal, ids whole; and 200,000 log entries drawn page by page with the memory of a
 * page or two (peak RSS of the spawned lic, reported by a preload at exit).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/cli/table.js';
import { tempDir } from '../helpers/cli.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { hasScript, spawnLicTty } from '../helpers/spawn.js';

if (!hasScript) console.warn('test/cli/table-tty.test.ts: util-linux `script` not found; skipping');

const N = 200_000;
let svc: TestService;
let env: Record<string, string>;
beforeAll(async () => {
  svc = await startTestService();
  // COLUMNS '' so the pty's own size (stty cols) is what counts
  env = { LIC_BASE_URL: svc.url, LIC_API_KEY: svc.adminKey, LIC_CONFIG_DIR: tempDir(), NO_COLOR: '1', COLUMNS: '' };
}, 60_000);
afterAll(() => svc?.close());

/** The terminal's lines, without the pty's carriage returns. */
const screenLines = (output: string) =>
  output
    .replace(/\r/g, '')
    .split('\n')
    .filter((l) => l !== '');

describe.skipIf(!hasScript)('tables on a pseudo-terminal', () => {
  beforeAll(async () => {
    for (let i = 0; i < 3; i++) {
      await fetch(`${svc.url}/v1/api-keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': svc.adminKey },
        body: JSON.stringify({
          apiKey: {
            name: `build server ${i} of the nightly pipeline`,
            permissions: 1,
            description: 'used by the nightly build to fetch signing keys; rotate every ninety days '.repeat(2),
          },
        }),
      });
    }
  });

  it.each([80, 200])('keys list at %i columns: no line wider, ids whole', async (cols) => {
    const r = await spawnLicTty(['keys', 'list'], { env, cols });
    expect(r.code).toBe(0);
    const lines = screenLines(r.output);
    expect(lines[0]).toMatch(/^ID {2}NAME/);
    for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(cols);
    // the table's rows, then (on stderr, the same pty) the one dim line naming the columns left out
    const note = lines.findIndex((l) => l.startsWith('('));
    const table = note === -1 ? lines : lines.slice(0, note);
    expect(table.slice(1).map((l) => l.trimStart().split(' ')[0])).toEqual(['1', '2', '3', '4']);
    if (cols === 80) expect(lines.slice(note).join(' ')).toMatch(/^\(.*EXPIRES.* left out for the width; --wide shows every column\)$/);
    if (cols === 80) expect(r.output).toContain('…');
    else expect(r.output).toContain('build server 2 of the nightly pipeline');
  });

  it(`log list --all of ${N.toLocaleString('en-US')} entries: drawn page by page in flat memory, one header, the hint once`, async () => {
    const ins = svc.db.prepare(
      'INSERT INTO log (time_stamp, level, message, message_template, exception, properties) VALUES (?, ?, ?, ?, ?, ?)',
    );
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    const insert = (from: number, to: number) =>
      svc.db.transaction(() => {
        for (let i = from; i < to; i++)
          ins.run(
            t0 + i * 1000,
            i % 10 ? 'Information' : 'Warning',
            `License checked by host-${i % 500} for product P${i % 7}; seat ${i} of the site licence, valid until the end of the year`,
            'License checked',
            '',
            '{}',
          );
      })();
    const preload = join(tempDir(), 'maxrss.mjs');
    writeFileSync(preload, "process.on('exit', () => process.stderr.write(`\\nmaxrss_kb=${process.resourceUsage().maxRSS}\\n`));\n");
    const draw = async () => {
      const r = await spawnLicTty(['log', 'list', '--all'], {
        env,
        cols: 100,
        nodeArgs: ['--import', pathToFileURL(preload).href],
        timeoutMs: 180_000,
      });
      expect(r.code).toBe(0);
      return { r, mib: Number(/maxrss_kb=(\d+)/.exec(r.output)?.[1]) / 1024 };
    };
    // a tenth of the rows first: memory that is flat stays where it was for ten times as many
    insert(0, N / 10);
    const small = await draw();
    insert(N / 10, N);
    const total = svc.db.prepare('SELECT count(*) FROM log').pluck().get() as number;
    const { r, mib } = await draw();
    const lines = screenLines(r.output);
    const rows = lines.filter((l) => /^ *\d+ {2}\d{4}-\d{2}-\d{2} \d{2}:\d{2} {2}/.test(l));
    expect(rows).toHaveLength(total);
    expect(lines.filter((l) => /^ +ID {2}TIME/.test(l))).toHaveLength(1);
    expect(rows.filter((l) => l.length > 100)).toEqual([]);
    expect(r.output.match(/to a terminal; -o ndjson or a pager/g)).toHaveLength(1);
    console.log(`log list --all to a pty: peak RSS ${Math.round(small.mib)} MiB for ${N / 10} rows, ${Math.round(mib)} MiB for ${total}`);
    // peak RSS measured (20,000 rows, then 200,003), cli-table3 drawing each page: Node 22 111/113
    // MiB, Node 26 148-171/148-171 MiB, Node 24 143-154/212-227 MiB (Node 24 grew with the rows
    // before cli-table3 too: 106/157 MiB with the hand-drawn table). A table that kept its rows
    // would grow by hundreds of MiB here (~1 KiB a row): the ten-fold run may add less than that
    expect(small.mib).toBeGreaterThan(0);
    expect(mib - small.mib).toBeLessThan(112);
    expect(mib).toBeLessThan(256);
  }, 240_000);
});
