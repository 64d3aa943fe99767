// Cross-cutting: the list machinery's formats (json, ndjson, csv, tsv) and filters every list verb prints through; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { JsonListStream, dataCell, ndjsonLines, tsvField, tsvLine, type ListShape } from '../../../src/cli/list/format.js';
import { tsvUnescape } from '../../helpers/tsv.js';
import { allOf, containsClause, equalsClause, filterString } from '../../../src/cli/list/filter.js';
import { parseFilter } from '../../../src/server/query/index.js';

describe('JsonListStream', () => {
  const shape: ListShape = { arrayField: 'logEntries', totalField: 'totalLogEntriesCount' };
  const envelope = { success: true, code: 0, message: 'OK', logEntries: ['ignored'], totalLogEntriesCount: 99 };
  const records = [
    { id: 3, message: 'a\n"b"', nested: { x: [1, 2] } },
    { id: 2, message: '' },
    { id: 1, message: 'ü' },
  ];

  function streamed(pretty: boolean, batches: unknown[][], total?: number, env: Record<string, unknown> = envelope, sh = shape): string {
    const js = new JsonListStream(sh, pretty);
    return js.open(env) + batches.map((b) => js.items(b)).join('') + js.close(total);
  }

  for (const pretty of [false, true]) {
    it(`writes exactly JSON.stringify of the whole (${pretty ? 'pretty' : 'compact'}), over several batches`, () => {
      const whole = { success: true, code: 0, message: 'OK', logEntries: records, totalLogEntriesCount: 3 };
      const expected = `${pretty ? JSON.stringify(whole, null, 2) : JSON.stringify(whole)}\n`;
      expect(streamed(pretty, [records.slice(0, 1), [], records.slice(1)], 3)).toBe(expected);
    });

    it(`handles an empty list, a missing total and an empty envelope (${pretty ? 'pretty' : 'compact'})`, () => {
      const fmt = (v: unknown) => `${pretty ? JSON.stringify(v, null, 2) : JSON.stringify(v)}\n`;
      expect(streamed(pretty, [[]], 0)).toBe(fmt({ success: true, code: 0, message: 'OK', logEntries: [], totalLogEntriesCount: 0 }));
      expect(streamed(pretty, [records], undefined)).toBe(fmt({ success: true, code: 0, message: 'OK', logEntries: records }));
      expect(streamed(pretty, [records], undefined, {}, { arrayField: 'products' })).toBe(fmt({ products: records }));
    });
  }
});

describe('TSV and CSV cells', () => {
  it('escapes tabs, newlines, CRs and backslashes reversibly', () => {
    expect(tsvField('a\tb\nc\rd\\e')).toBe('a\\tb\\nc\\rd\\\\e');
    expect(tsvLine(['x\ty', 'z'])).toBe('x\\ty\tz\n');
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const f = tsvField(s);
        expect(f).not.toMatch(/[\t\n\r]/);
        expect(tsvUnescape(f)).toBe(s);
      }),
    );
  });

  it('renders data cells: booleans true/false, null empty, objects as JSON', () => {
    expect([true, false, null, undefined, 0, 'x', { a: 1 }, [1]].map(dataCell)).toEqual([
      'true',
      'false',
      '',
      '',
      '0',
      'x',
      '{"a":1}',
      '[1]',
    ]);
  });
});

describe('filter building', () => {
  const literalOf = (filter: string) => {
    const node = parseFilter(filter) as unknown as { right: { value: unknown } };
    return node.right.value;
  };

  it('quotes any text so the service reads back exactly that text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        expect(literalOf(`Message = ${filterString(s)}`)).toBe(s);
      }),
      { numRuns: 300 },
    );
    expect(filterString('say "hi" \\ now\n')).toBe('"say \\"hi\\" \\\\ now\\n"');
  });

  it('cannot be broken out of: a hostile value stays one literal', () => {
    const hostile = '") or (1 = 1) or ("';
    const node = parseFilter(equalsClause('Level', hostile)) as unknown as { kind: string; op: string; right: { value: unknown } };
    expect(node.kind).toBe('compare');
    expect(node.right.value).toBe(hostile);
    expect(containsClause('Message', 'x"y')).toBe('Message.Contains("x\\"y")');
  });

  it('ANDs clauses, parenthesised only when there are several', () => {
    expect(allOf([undefined, false, '', 'A = 1'])).toBe('A = 1');
    expect(allOf(['A = 1 or B = 2', 'C = 3'])).toBe('(A = 1 or B = 2) and (C = 3)');
    expect(allOf([undefined, null])).toBeUndefined();
    // the precedence survives: the service parses it as an and of the two groups
    const node = parseFilter(allOf(['A = 1 or B = 2', 'C = 3'])!) as unknown as { kind: string; operands: { kind: string }[] };
    expect(node.kind).toBe('and');
    expect(node.operands.map((o) => o.kind)).toEqual(['or', 'compare']);
  });
});

describe('ndjsonLines', () => {
  const perRecord = (rs: readonly unknown[]) => rs.map((r) => `${JSON.stringify(r)}\n`).join('');

  it('is one JSON.stringify per record and a newline, byte for byte, whatever the strings hold', () => {
    // strings built from the characters of the record boundary and of JSON's escapes
    const nasty = fc.string({ unit: fc.constantFrom('}', ',', '{', '"', ':', '\\', 'i', 'd', '\n', ' ', 'é', '\u2028', '\ud800') });
    const value = fc.oneof(nasty, fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
    const flat = fc.record({ id: fc.integer(), message: nasty, level: value, properties: nasty }, { requiredKeys: ['id'] });
    fc.assert(fc.property(fc.array(flat, { maxLength: 150 }), (rs) => ndjsonLines(rs) === perRecord(rs)));
  });

  it('a page of more records than one slice (64) is the same text, across the slices', () => {
    for (const n of [63, 64, 65, 128, 1000]) {
      const rs = Array.from({ length: n }, (_, i) => ({ id: n - i, message: i % 7 ? `m${i}` : '},{"id":0}', level: 'Information' }));
      expect(ndjsonLines(rs)).toBe(perRecord(rs));
    }
  });

  it('keys and values that look like a record boundary stay inside their record', () => {
    const rs = [
      { id: 1, message: '},{"id":2,"message":"x"}', 'a},{': '},{"id":' },
      { id: 2, message: '\\"},{"id":3' },
    ];
    expect(ndjsonLines(rs)).toBe(perRecord(rs));
    expect(ndjsonLines(rs).split('\n')).toHaveLength(3);
  });

  it('nested values, mixed first keys, odd keys and non-records take the per-record path, with the same text', () => {
    const cases: unknown[][] = [
      [
        { id: 1, tags: [{ id: 2 }, { id: 3 }] },
        { id: 4, product: { id: 5 } },
      ],
      [{ id: 1 }, { name: 'a', id: 2 }],
      [{ '1': 'int key first', id: 1 }],
      [{ 'a b': 1 }, { 'a b': 2 }],
      [{}, {}],
      [{ id: 1, gone: undefined }, { id: 2 }],
      [[1, 2], 'text', 3, null],
      [],
    ];
    for (const rs of cases) expect(ndjsonLines(rs)).toBe(perRecord(rs));
  });
});
