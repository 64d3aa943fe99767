// Cross-cutting: the width policy over every list and lic doctor at every width from 60 to 200; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/**
 * The width policy (src/cli/table.ts) over every list and `lic doctor`, on the demo data
 * (`lic serve --seed demo`), at every terminal width from 60 to 200, with and without
 * --utc: no line is wider than the terminal; ids and codes (order numbers, template and
 * resource codes, key prefixes, tokens) are never cut; names shown cut still tell the rows
 * apart; a URL keeps its host and port.
 *
 * The list nouns are drawn in-process by the one renderer with each noun's own columns and
 * the records the CLI fetched once (`-o json`), so 141 widths cost milliseconds; the real
 * CLI is checked to print exactly the same at 60, 80, 100 and 200 columns. Doctor likewise
 * from its `-o json` report; profile list (no request) runs the real CLI at every width.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Column } from '../../src/cli/output.js';
import { Renderer } from '../../src/cli/output.js';
import { displayWidth } from '../../src/cli/table.js';
import { ASSEMBLY_LIST } from '../../src/commands/assemblies/list.js';
import { CHECK_COLUMNS, ENDPOINT_COLUMNS } from '../../src/commands/doctor/index.js';
import { API_KEY_LIST } from '../../src/commands/keys/list.js';
import { LOG_LIST } from '../../src/commands/log/list.js';
import { ORDER_LIST } from '../../src/commands/orders/list.js';
import { CUSTOMER_PRODUCT_LIST } from '../../src/commands/products/list.js';
import { RESOURCE_LIST } from '../../src/commands/resources/list.js';
import { LICENSE_TEMPLATE_LIST } from '../../src/commands/templates/list.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { testContext } from '../helpers/context.js';
import { startTestService, type TestService } from '../helpers/service.js';

const WIDTHS = Array.from({ length: 141 }, (_, i) => 60 + i);
type Rec = Record<string, unknown>;

interface Noun {
  args: string[];
  arrayField: string;
  columns: Column<never>[];
  /** the Customer key instead of the Administrator's */
  customer?: boolean;
}

const NOUNS: Noun[] = [
  { args: ['keys', 'list'], arrayField: 'apiKeys', columns: API_KEY_LIST.columns as Column<never>[] },
  { args: ['resources', 'list'], arrayField: 'resources', columns: RESOURCE_LIST.columns as Column<never>[] },
  { args: ['assemblies', 'list'], arrayField: 'assemblies', columns: ASSEMBLY_LIST.columns as Column<never>[] },
  { args: ['log', 'list'], arrayField: 'logEntries', columns: LOG_LIST.columns as Column<never>[] },
  { args: ['orders', 'list', '--customer', '1'], arrayField: 'orders', columns: ORDER_LIST.columns as Column<never>[] },
  {
    args: ['templates', 'list', '--product', '1', '--release', '4'],
    arrayField: 'licenseTemplates',
    columns: LICENSE_TEMPLATE_LIST.columns as Column<never>[],
  },
  {
    // --customer: the demo Customer user's own code, read from the database below
    args: ['products', 'list', '--customer'],
    arrayField: 'products',
    columns: CUSTOMER_PRODUCT_LIST.columns as Column<never>[],
    customer: true,
  },
];

let svc: TestService;
let adminEnv: Record<string, string>;
let customerEnv: Record<string, string>;
const records = new Map<Noun, Rec[]>();
const TZ = 'Europe/Berlin';

beforeAll(async () => {
  svc = await startTestService({ seed: 'demo' });
  const key = (role: string) => svc.issuedKeys.find((k) => k.role === role)!.key;
  adminEnv = { LIC_BASE_URL: svc.url, LIC_API_KEY: key('Administrator'), NO_COLOR: '1', TZ };
  customerEnv = { ...adminEnv, LIC_API_KEY: key('Customer') };
  const code = svc.db.prepare("SELECT customer_code FROM users WHERE role = 'Customer' ORDER BY id LIMIT 1").pluck().get() as string;
  NOUNS.find((n) => n.customer)!.args.push(code);
  for (const n of NOUNS) {
    const r = await runCli([...n.args, '-o', 'json'], { env: n.customer ? customerEnv : adminEnv });
    expect(r.code, r.stderr).toBe(0);
    const recs = JSON.parse(r.stdout)[n.arrayField] as Rec[];
    expect(recs.length, n.args.join(' ')).toBeGreaterThan(0);
    records.set(n, recs);
  }
}, 60_000);
afterAll(() => svc?.close());

/** The table the renderer draws for `rows` under `columns` on a terminal `width` wide. */
async function draw(columns: Column<never>[], rows: Rec[], width: number, utc: boolean): Promise<string> {
  const t = testContext({ stdoutTTY: true, env: { COLUMNS: String(width), TZ } });
  await new Renderer(t.ctx, { format: 'table', color: false, quiet: false, utc }).list({}, rows as never[], columns);
  return t.stdout();
}

const linesOf = (out: string) => out.replace(/\n$/, '').split('\n');

/** The header's column names and where each starts (names are separated by two spaces or more). */
function headerColumns(header: string): { name: string; start: number }[] {
  return [...header.matchAll(/\S+(?: \S+)*/g)].map((m) => ({ name: m[0], start: m.index }));
}

/** Checks the policy on one drawn table: width, whole ids and codes, names that still differ. */
function checkTable(n: Noun, recs: Rec[], out: string, width: number): void {
  const lines = linesOf(out);
  const what = `${n.args.join(' ')} at ${width}`;
  for (const l of lines) expect(displayWidth(l), `${what}: ${l}`).toBeLessThanOrEqual(width);
  expect(lines).toHaveLength(recs.length + 1);
  const shown = headerColumns(lines[0]!);
  expect(shown.length, what).toBeGreaterThanOrEqual(2);
  const rows = lines.slice(1);
  const cells = new Map(n.columns.map((c) => [c.header, recs.map((r) => String((c.get as (r: Rec) => unknown)(r) ?? ''))]));
  for (const [j, col] of shown.entries()) {
    const c = n.columns.find((x) => x.header === col.name)!;
    expect(c, `${what}: column ${col.name}`).toBeDefined();
    const values = cells.get(col.name)!;
    if (c.kind === 'id' || c.kind === 'code') {
      // whole, never cut
      rows.forEach((row, i) => expect(row, `${what}: ${col.name}`).toContain(values[i]));
    }
    if (c.kind === 'name') {
      const end = shown[j + 1]?.start;
      const seen = rows.map((row) => row.slice(col.start, end).trim());
      // as many different names shown as there are different names
      expect(new Set(seen).size, `${what}: ${col.name} ${JSON.stringify(seen)}`).toBe(new Set(values).size);
    }
  }
}

describe('every list fits every width (demo data, 60..200 columns, --utc on and off)', () => {
  for (const n of NOUNS) {
    it(`${n.args.join(' ')}`, async () => {
      const recs = records.get(n)!;
      for (const utc of [false, true]) {
        for (const width of WIDTHS) checkTable(n, recs, await draw(n.columns, recs, width, utc), width);
      }
      // the real CLI prints exactly what the renderer drew
      for (const utc of [false, true]) {
        for (const width of [60, 80, 100, 200]) {
          const env = { ...(n.customer ? customerEnv : adminEnv), COLUMNS: String(width) };
          const r = await runCli([...(utc ? ['--utc'] : []), ...n.args], { env, stdoutTTY: true });
          expect(r.code, r.stderr).toBe(0);
          expect(r.stdout).toBe(await draw(n.columns, recs, width, utc));
        }
      }
    });
  }

  it('at 80 and 100 columns each list keeps its identifiers and the columns that matter', async () => {
    const header = async (n: Noun, width: number) => linesOf(await draw(n.columns, records.get(n)!, width, false))[0]!;
    const [keys, , , log, orders, templates] = NOUNS as [Noun, Noun, Noun, Noun, Noun, Noun];
    // orders: the number whole, the date kept before the payment type and the invoice
    expect(headerColumns(await header(orders, 80)).map((c) => c.name)).toEqual(['ID', 'NUMBER', 'STATUS', 'PAYMENT', 'TOTAL', 'CREATED']);
    expect(headerColumns(await header(orders, 100)).map((c) => c.name)).toEqual([
      'ID',
      'NUMBER',
      'STATUS',
      'PAYMENT',
      'TYPE',
      'TOTAL',
      'CREATED',
    ]);
    // keys: the EXPIRES column, empty on every demo key, is the first to go
    expect(await header(keys, 100)).not.toContain('EXPIRES');
    expect(await header(keys, 200)).toContain('EXPIRES');
    expect(await header(templates, 80)).toMatch(/^ID {2}NAME +CODE/);
    expect(await header(log, 60)).toMatch(/MESSAGE$/);
  });
});

describe('profile list and doctor fit every width (the real CLI)', () => {
  it('profile list: the URL keeps host and port', async () => {
    const configDir = tempDir();
    const long = `${svc.url}/a/base/path/long/enough/to/need/cutting/on/a/narrow/terminal/v1`;
    for (const [name, url] of [
      ['local', svc.url],
      ['staging-behind-the-gateway', long],
    ]) {
      const add = await runCli(['profile', 'add', name!, '--base-url', url!, '--api-key-stdin'], {
        configDir,
        stdin: svc.issuedKeys[0]!.key,
        env: { NO_COLOR: '1' },
      });
      expect(add.code, add.stderr).toBe(0);
    }
    const origin = new URL(svc.url).host;
    for (const width of WIDTHS) {
      const r = await runCli(['profile', 'list'], { configDir, stdoutTTY: true, env: { NO_COLOR: '1', COLUMNS: String(width) } });
      expect(r.code, r.stderr).toBe(0);
      const lines = linesOf(r.stdout);
      for (const l of lines) expect(displayWidth(l), `${width}: ${l}`).toBeLessThanOrEqual(width);
      expect(lines[1]).toContain(svc.url);
      expect(lines[2]).toContain(`http://${origin}/`);
    }
  });

  it('doctor: every line within the width at every width; the result wraps instead of being cut; the URL whole', async () => {
    const configDir = tempDir();
    const json = await runCli(['doctor', '-o', 'json'], { env: adminEnv, configDir });
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout) as { checks: Rec[]; endpoints: Rec[] };
    const drawDoctor = async (width: number) =>
      (await draw(CHECK_COLUMNS as Column<never>[], report.checks, width, false)) +
      '\n' +
      (await draw(ENDPOINT_COLUMNS as Column<never>[], report.endpoints, width, false));
    for (const width of WIDTHS) {
      const out = await drawDoctor(width);
      for (const l of linesOf(out)) expect(displayWidth(l), `${width}: ${l}`).toBeLessThanOrEqual(width);
      // the service's URL (host and port) is whole in the report (continuation lines joined), never cut with …
      expect(out.replace(/\n +/g, ' ')).toContain(`${svc.url} answered`);
      expect(out).not.toMatch(/http:\/\/\S*…/);
    }
    for (const width of [60, 80, 100, 200]) {
      const r = await runCli(['doctor'], { env: { ...adminEnv, COLUMNS: String(width) }, stdoutTTY: true, configDir });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(await drawDoctor(width));
    }
  });
});
