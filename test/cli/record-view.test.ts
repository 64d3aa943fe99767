// Cross-cutting: the record view (`field  value` lines) on a real pseudo-terminal, as the screen shows it; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/**
 * `lic resources get ID` under a pseudo-terminal of 50 and 80 columns, its bytes rendered by
 * a terminal emulator (xterm.js): values of wide (CJK) characters are measured as the
 * terminal draws them (2 columns), so no line overflows and is wrapped by the terminal; a
 * value's own runs of spaces are kept (data is not altered for display) but where a line
 * breaks; the words read back in order, continuing under the value.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { wrapValue } from '../../src/cli/layout.js';
import { displayWidth } from '../../src/cli/table.js';
import { envFor, runCli } from '../helpers/cli.js';
import { useService } from '../helpers/fixtures.js';
import { hasScript, spawnLicTty } from '../helpers/spawn.js';
import { renderScreen } from '../helpers/terminal.js';

if (!hasScript) console.warn('test/cli/record-view.test.ts: util-linux `script` not found; skipping the pseudo-terminal tests');

const { svc } = useService();

const CJK = '東京 の ライセンス サーバー は 毎晩 署名 された アセンブリ を 確認 します。 鍵 は 毎年 交換 して ください';
const SPACED = 'aligned    columns   kept: the nightly build signs every assembly with this key pair before the installer is made';
const ids: Record<string, string> = {};

beforeAll(async () => {
  for (const [name, description] of [
    ['cjk', CJK],
    ['spaced', SPACED],
  ]) {
    const c = await runCli(
      ['resources', 'create', '-o', 'json', '--name', name!, '--type', 'text', '--description', description!, '--data-file', '-'],
      { env: envFor(svc, svc.adminKey), stdin: 'hi' },
    );
    expect(c.code, c.stderr).toBe(0);
    ids[name!] = String(JSON.parse(c.stdout).resourceId);
  }
});

/** The screen of `lic resources get ID` on a `cols`-column pty: its lines, and the description's value read back (its lines joined). */
async function view(id: string, cols: number, env: Record<string, string>) {
  const r = await spawnLicTty(['resources', 'get', id], { env: { ...envFor(svc, svc.adminKey), NO_COLOR: '1', ...env }, cols, rows: 40 });
  expect(r.code, r.output).toBe(0);
  const screen = await renderScreen(r.output.replace(/\r?\n/g, '\r\n'), cols, 40);
  const lines = screen.lines.map((l) => l.trimEnd()).filter((l) => l !== '');
  const at = lines.findIndex((l) => l.startsWith('description'));
  expect(at, r.output).toBeGreaterThanOrEqual(0);
  const col = /^description +/.exec(lines[at]!)![0].length;
  const value = [lines[at]!.slice(col)];
  for (let i = at + 1; i < lines.length && lines[i]!.startsWith(' '.repeat(col)) && lines[i]![col] !== ' '; i++)
    value.push(lines[i]!.slice(col));
  return { screen, lines, value };
}

describe.runIf(hasScript)('the record view on a terminal', () => {
  it.each([
    [50, { COLUMNS: '' }],
    [80, { COLUMNS: '80' }],
  ])('at %i columns: CJK values fit (no line wrapped by the terminal) and read back whole', async (cols, env) => {
    const { screen, lines, value } = await view(ids.cjk!, cols, env);
    // a line wider than the terminal would have been wrapped by it: a logical line over two screen lines
    expect(screen.logical.filter((l) => l !== '')).toEqual(lines);
    expect(value.length).toBeGreaterThan(1);
    expect(value.join(' ')).toBe(CJK);
  });

  it.each([
    [50, { COLUMNS: '' }],
    [80, { COLUMNS: '80' }],
  ])("at %i columns: a value's runs of spaces are kept but at the breaks", async (cols, env) => {
    const { screen, lines, value } = await view(ids.spaced!, cols, env);
    expect(screen.logical.filter((l) => l !== '')).toEqual(lines);
    expect(value[0]).toMatch(/^aligned {4}columns {3}kept: /);
    expect(value.length).toBeGreaterThan(1);
    expect(value.join(' ')).toBe(SPACED);
  });
});

describe('wrapValue', () => {
  it('keeps spaces and line breaks, breaks an over-long word under the value, and hangs at 0 when the name leaves under 20 columns', () => {
    const w = (head: string, value: string, cols: number) => wrapValue(head, value, cols, displayWidth).split('\n');
    expect(w('name  ', '  5', 50)).toEqual(['name    5']);
    expect(w('note  ', 'line one\nline   two', 50)).toEqual(['note  line one', '      line   two']);
    expect(w('d  ', '東京都の新しいライセンスサーバー', 23)).toEqual(['d  東京都の新しいライセ', '   ンスサーバー']);
    expect(w('a-long-field-name-for-this-one  ', 'short words that go on past the edge', 40)).toEqual([
      'a-long-field-name-for-this-one  short',
      'words that go on past the edge',
    ]);
  });
});
