// Cross-cutting: the Renderer's list, record and page-by-page output every verb prints through; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/** The Renderer's new formats on their own: list() and record() for one page, openList() for pages. */
import { parse as parseCsv } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { Renderer, type Column, type OutputFormat } from '../../../src/cli/output.js';
import { testContext } from '../../helpers/context.js';

interface Rec {
  id: number;
  name: string;
  on: boolean;
  note: string | null;
}
const rows: Rec[] = [
  { id: 1, name: 'plain', on: true, note: null },
  { id: 2, name: 'a, "b"\nc\td\\', on: false, note: 'x' },
];
const columns: Column<Rec>[] = [
  { header: 'ID', get: (r) => r.id },
  { header: 'NAME', get: (r) => r.name },
  { header: 'ON', get: (r) => r.on },
  { header: 'NOTE', get: (r) => r.note },
];
const body = { success: true, code: 0, message: 'OK', things: rows, totalThingsCount: 2 };
const shape = { arrayField: 'things', totalField: 'totalThingsCount' };

function renderer(format: OutputFormat, o: { tty?: boolean; fullEvery?: number } = {}) {
  const h = testContext({ stdoutTTY: o.tty, fullEvery: o.fullEvery });
  return { h, out: new Renderer(h.ctx, { format, color: false, quiet: false }) };
}

describe('list() for one page', () => {
  it('ndjson: one record per line, the records as they are', async () => {
    const { h, out } = renderer('ndjson');
    await out.list(body, rows, columns);
    expect(
      h
        .stdout()
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(rows);
  });

  it('csv: header and rows under the columns; round-trips', async () => {
    const { h, out } = renderer('csv');
    await out.list(body, rows, columns);
    expect(parseCsv(h.stdout())).toEqual([
      ['ID', 'NAME', 'ON', 'NOTE'],
      ['1', 'plain', 'true', ''],
      ['2', 'a, "b"\nc\td\\', 'false', 'x'],
    ]);
  });

  it('tsv: header and escaped rows', async () => {
    const { h, out } = renderer('tsv');
    await out.list(body, rows, columns);
    expect(h.stdout()).toBe('ID\tNAME\tON\tNOTE\n1\tplain\ttrue\t\n2\ta, "b"\\nc\\td\\\\\tfalse\tx\n');
  });

  it('an empty list still has the csv header', async () => {
    const { h, out } = renderer('csv');
    await out.list({ ...body, things: [] }, [], columns);
    expect(h.stdout()).toBe('ID,NAME,ON,NOTE\n');
  });
});

describe('record()', () => {
  it('ndjson: the body on one line, even on a TTY', async () => {
    const { h, out } = renderer('ndjson', { tty: true });
    await out.record({ success: true, apiKeyId: 3 }, [['id', 3]]);
    expect(h.stdout()).toBe('{"success":true,"apiKeyId":3}\n');
  });

  it('csv/tsv: the field names, then the values', async () => {
    const csv = renderer('csv');
    await csv.out.record({}, [
      ['id', 3],
      ['key', 'a,b'],
    ]);
    expect(csv.h.stdout()).toBe('id,key\n3,"a,b"\n');
    const tsv = renderer('tsv');
    await tsv.out.record({}, [['deletedLogCount', 12]]);
    expect(tsv.h.stdout()).toBe('deletedLogCount\n12\n');
  });
});

describe('openList() over pages', () => {
  async function pages(format: OutputFormat, o: { tty?: boolean; live?: boolean; fullEvery?: number } = {}) {
    const { h, out } = renderer(format, o);
    const w = out.openList(columns, shape, { live: o.live });
    await w.begin(body);
    await w.write(rows.slice(0, 1));
    await w.write([]);
    await w.write(rows.slice(1));
    await w.end(2);
    return h;
  }

  it('json: the whole body as one document, compact piped and pretty on a TTY', async () => {
    expect((await pages('json')).stdout()).toBe(`${JSON.stringify(body)}\n`);
    expect((await pages('json', { tty: true })).stdout()).toBe(`${JSON.stringify(body, null, 2)}\n`);
  });

  it('json live (log tail): one record per line', async () => {
    expect((await pages('json', { live: true })).stdout()).toBe(rows.map((r) => `${JSON.stringify(r)}\n`).join(''));
  });

  it('csv over pages: one header', async () => {
    expect(parseCsv((await pages('csv')).stdout())).toHaveLength(3);
  });

  it('a TTY table: drawn page by page, one header, the widths of the first page', async () => {
    const h = testContext({ stdoutTTY: true });
    const out = new Renderer(h.ctx, { format: 'table', color: false, quiet: false });
    const w = out.openList(columns, shape);
    await w.begin(body);
    await w.write(rows.slice(0, 1));
    expect(h.stdout()).toBe('ID  NAME   ON   NOTE\n 1  plain  yes\n');
    await w.write(rows.slice(1));
    await w.end(2);
    // the second page's wider name is cut to the first page's width; line breaks and tabs become spaces
    expect(h.stdout()).toBe('ID  NAME   ON   NOTE\n 1  plain  yes\n 2  a, "…  no   x\n');
  });

  it('waits for drain after each write that filled stdout, never writing while full', async () => {
    const h = await pages('ndjson', { fullEvery: 1 });
    expect(h.pressure.full).toBe(2);
    expect(h.pressure.drains).toBe(2);
    expect(h.pressure.writesWhileFull).toBe(0);
  });
});
