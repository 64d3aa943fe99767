// Cross-cutting: the normalisation of service replies every list and record goes through; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/** The normalisation rules (src/cli/list/normalize.ts) and the `--json` argv rule, unit by unit. */
import { describe, expect, it } from 'vitest';
import { buildProgram, bareJsonFlag } from '../../../src/cli/program.js';
import { normalizeEnvelope, normalizeListBody, normalizeRecord, normalizeValue, type FieldTypes } from '../../../src/cli/list/normalize.js';
import { intKey } from '../../../src/cli/list/pages.js';
import { shortOfTotal } from '../../../src/cli/list/run.js';
import type { Context } from '../../../src/cli/context.js';

const T: FieldTypes = { id: 'int', name: 'string', revoked: 'bool', total: 'number', at: 'time', tags: 'array', product: 'object' };

describe('normalizeValue', () => {
  it.each([
    ['int', undefined, 0],
    ['int', null, 0],
    ['int', '2', 2],
    ['int', '-7', -7],
    ['int', '02', '02'],
    ['int', '2.0', '2.0'],
    ['int', ' 2', ' 2'],
    ['int', '99999999999999999999', '99999999999999999999'],
    ['number', '782.35', '782.35'],
    ['string', null, ''],
    ['time', null, null],
    ['time', '', null],
    ['optionalInt', '3', 3],
    ['bool', undefined, false],
    ['array', undefined, []],
    ['object', undefined, null],
  ] as const)('%s %j → %j', (type, v, want) => {
    expect(normalizeValue(type, v)).toEqual(want);
  });
});

describe('normalizeRecord', () => {
  it('fills every declared field in declared order, keeps extra fields after them', () => {
    expect(Object.entries(normalizeRecord({ extra: 1, ID: '5', name: 'a' }, T))).toEqual([
      ['id', 5],
      ['name', 'a'],
      ['revoked', false],
      ['total', 0],
      ['at', null],
      ['tags', []],
      ['product', null],
      ['extra', 1],
    ]);
  });

  it('with selected fields: exactly those, in that order, filled', () => {
    expect(Object.entries(normalizeRecord({ id: 3, extra: 1 }, T, ['revoked', 'id']))).toEqual([
      ['revoked', false],
      ['id', 3],
    ]);
  });
});

describe('normalizeRecord on records already in the documented shape', () => {
  const whole = { id: 5, name: 'a', revoked: false, total: 1.5, at: '2026-01-02T03:04:05Z', tags: ['x'], product: { p: 1 } };

  it('returns such a record itself (no copy), equal to what the full path builds', () => {
    expect(normalizeRecord(whole, T)).toBe(whole);
    expect(JSON.stringify(normalizeRecord({ ...whole, extra: 1 }, T))).toBe(JSON.stringify({ ...whole, extra: 1 }));
    expect(normalizeRecord({ id: 1, name: 'n' }, T, ['id', 'name'])).toEqual({ id: 1, name: 'n' });
  });

  it.each([
    ['an int sent as a string', { id: '5' }, { id: 5 }],
    ['a null string', { name: null }, { name: '' }],
    ['a "" time', { at: '' }, { at: null }],
    ['a null array', { tags: null }, { tags: [] }],
  ])('still normalises %s', (_what, change, want) => {
    expect(normalizeRecord({ ...whole, ...change }, T)).toEqual({ ...whole, ...want });
  });

  it('fields in another order or spelling are put in declared order and spelling', () => {
    const { id, ...rest } = whole;
    expect(Object.keys(normalizeRecord({ ...rest, ID: id }, T))).toEqual(Object.keys(whole));
  });
});

describe('nested records', () => {
  it('an array of records and a nested record are normalised against their own fields', () => {
    const N: FieldTypes = { id: 'int', items: { of: { id: 'int', on: 'bool' } }, owner: { record: { name: 'string' } } };
    expect(normalizeRecord({ id: '1', items: [{ id: '2' }, {}], owner: {} }, N)).toEqual({
      id: 1,
      items: [
        { id: 2, on: false },
        { id: 0, on: false },
      ],
      owner: { name: '' },
    });
    expect(normalizeRecord({}, N)).toEqual({ id: 0, items: [], owner: null });
  });
});

describe('envelopes and list bodies', () => {
  it('an empty list from a service that omits defaults gets its array and total', () => {
    expect(normalizeListBody({ success: true }, [], { arrayField: 'apiKeys', totalField: 'totalApiKeysCount', types: T })).toEqual({
      success: true,
      code: 0,
      message: '',
      apiKeys: [],
      totalApiKeysCount: 0,
    });
  });

  it('the envelope keeps other fields, after success/code/message, without the array and total', () => {
    expect(Object.keys(normalizeEnvelope({ x: 1, message: 'OK', rows: [], n: 3 }, { arrayField: 'rows', totalField: 'n' }))).toEqual([
      'success',
      'code',
      'message',
      'x',
    ]);
  });
});

describe('paging helpers', () => {
  it('intKey: numbers and canonical integer strings only', () => {
    expect([intKey(3), intKey('3'), intKey('03'), intKey(3.5), intKey('x'), intKey(null)]).toEqual([
      3,
      3,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('shortOfTotal: the total less --skip, capped by --limit; nothing when complete or unknown', () => {
    expect(shortOfTotal(4, 10, { wanted: Infinity })).toMatch(/^got 4 of 10: /);
    expect(shortOfTotal(4, 10, { wanted: 4 })).toBeUndefined();
    expect(shortOfTotal(4, 10, { wanted: Infinity, skip: 6 })).toBeUndefined();
    expect(shortOfTotal(4, undefined, { wanted: Infinity })).toBeUndefined();
    expect(shortOfTotal(1234, 49_518_088, { wanted: Infinity })).toMatch(/^got 1,234 of 49,518,088: /);
  });
});

const program = await buildProgram({
  env: {},
  stdout: { write: () => true, isTTY: false },
  stderr: { write: () => true, isTTY: false },
} as unknown as Context);

describe('bareJsonFlag', () => {
  it.each([
    [
      ['--json', 'keys', 'list'],
      ['--json=', 'keys', 'list'],
    ],
    [
      ['keys', '--json', 'list'],
      ['keys', '--json=', 'list'],
    ],
    [
      ['keys', 'list', '--json', 'id,name'],
      ['keys', 'list', '--json', 'id,name'],
    ],
    [
      ['keys', 'list', '--json'],
      ['keys', 'list', '--json'],
    ],
    [
      ['resources', 'get', '--json', '2'],
      ['resources', 'get', '--json=', '2'],
    ],
    [
      ['keys', 'list', '--json', '--quiet'],
      ['keys', 'list', '--json', '--quiet'],
    ],
  ])('%j → %j', (args, want) => {
    expect(bareJsonFlag(args, program)).toEqual(want);
  });
});
