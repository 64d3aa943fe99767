// Cross-cutting: how the list machinery plans pages, sorts and fields for any list verb; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/cli/errors.js';
import { parseFieldList, parseSortItems, planList, sortParam, type ListDef } from '../../../src/cli/list/index.js';

const LOG: ListDef<unknown> = {
  what: 'log entries',
  arrayField: 'logEntries',
  totalField: 'totalLogEntriesCount',
  columns: [],
  fields: ['id', 'message', 'level', 'timeStamp'],
  keyOrder: 'desc',
};
const KEYS: ListDef<unknown> = { ...LOG, keyOrder: undefined, what: 'API keys' };

describe('--sort', () => {
  it.each([
    ['level', [{ field: 'level', desc: false }]],
    ['Level:desc', [{ field: 'level', desc: true }]],
    ['TIMESTAMP:ASC', [{ field: 'timeStamp', desc: false }]],
    ['level desc', [{ field: 'level', desc: true }]],
    [
      'level:desc, id',
      [
        { field: 'level', desc: true },
        { field: 'id', desc: false },
      ],
    ],
  ])('%s', (value, expected) => {
    expect(parseSortItems(value, undefined, LOG.fields, LOG.what)).toEqual(expected);
  });

  it('repeats: each --sort appends a key, in order', () => {
    const first = parseSortItems('level', undefined, LOG.fields);
    const both = parseSortItems('id:desc', first, LOG.fields);
    expect(sortParam(both)).toBe('level asc, id desc');
  });

  it.each([
    ['level:up', /unknown sort direction "up" for level; allowed: asc, desc/],
    ['level:', /expected FIELD, FIELD:asc or FIELD:desc/],
    ['', /expected FIELD/],
    ['le-vel', /expected FIELD/],
    ['color', /unknown field "color" of log entries; fields: id, message, level, timeStamp/],
    ['id,ID:desc', /sorted on twice/],
  ])('rejects %j', (value, message) => {
    const f = () => parseSortItems(value, undefined, LOG.fields, LOG.what);
    expect(f).toThrow(InvalidArgumentError);
    expect(f).toThrow(message);
  });

  it('without a field list, takes any well-formed name as typed (the service judges it)', () => {
    expect(parseSortItems('Whatever:desc', undefined)).toEqual([{ field: 'Whatever', desc: true }]);
  });
});

describe('--fields', () => {
  it('canonicalises and deduplicates', () => {
    expect(parseFieldList(' ID , message,Id,TIMESTAMP', LOG.fields)).toEqual(['id', 'message', 'timeStamp']);
  });
  it.each([
    ['id,,level', /expected comma-separated field names/],
    ['id level', /expected comma-separated field names/],
    ['id,secret', /unknown field "secret" of log entries; fields: id, message, level, timeStamp/],
  ])('rejects %j', (value, message) => {
    expect(() => parseFieldList(value, LOG.fields, LOG.what)).toThrow(message);
  });
});

describe('planList', () => {
  it('one page without --all or a --limit beyond a page: the flags as given', () => {
    expect(planList(LOG, { take: 20, skip: 5 }, ['Level = "Error"'])).toMatchObject({
      single: true,
      take: 20,
      skip: 5,
      filter: 'Level = "Error"',
      sort: undefined,
    });
    expect(planList(LOG, { limit: 1000 })).toMatchObject({ single: true, take: 1000 });
    expect(planList(LOG, { limit: 30, take: 100 })).toMatchObject({ single: true, take: 30 });
  });

  it("--all without --sort pages by id in the noun's order, 1000 a page", () => {
    expect(planList(LOG, { all: true })).toMatchObject({
      single: false,
      sort: 'id desc',
      take: 1000,
      keyset: { key: 'id', desc: true },
      wanted: Infinity,
    });
    expect(planList(KEYS, { all: true })).toMatchObject({ sort: 'id asc', keyset: { key: 'id', desc: false } });
  });

  it('--sort by the key only still pages by key, in the direction asked', () => {
    expect(planList(LOG, { all: true, sort: [{ field: 'id', desc: false }] })).toMatchObject({
      sort: 'id asc',
      keyset: { key: 'id', desc: false },
    });
  });

  it('another --sort pages by skip', () => {
    const p = planList(LOG, {
      all: true,
      sort: [
        { field: 'level', desc: false },
        { field: 'id', desc: true },
      ],
    });
    expect(p.keyset).toBeUndefined();
    expect(p.sort).toBe('level asc, id desc');
  });

  it('a --limit above one page pages too, and --take sets the page size', () => {
    expect(planList(LOG, { limit: 2500 })).toMatchObject({ single: false, wanted: 2500, take: 1000 });
    expect(planList(LOG, { limit: 250, take: 100 })).toMatchObject({ single: false, wanted: 250, take: 100 });
  });

  it('--fields without the key: the key is selected for paging and stripped again', () => {
    expect(planList(LOG, { all: true, fields: ['message'] })).toMatchObject({ select: 'message, id', stripKey: true });
    expect(planList(LOG, { all: true, fields: ['id', 'message'] })).toMatchObject({ select: 'id, message', stripKey: false });
  });

  it('the friendly filters AND --where, each parenthesised', () => {
    expect(planList(LOG, { where: 'Id > 5 or Id < 2' }, ['Level = "Error"', undefined]).filter).toBe(
      '(Level = "Error") and (Id > 5 or Id < 2)',
    );
  });

  it('--take 0 with several pages is a usage error', () => {
    expect(() => planList(LOG, { all: true, take: 0 })).toThrow(UsageError);
    expect(() => planList(LOG, { all: true, take: 0 })).toThrow(/--take 0/);
  });

  it('paging by skip with --fields without the key: the key is selected too (a repeated page is told from look-alikes) and stripped', () => {
    expect(planList(LOG, { all: true, sort: [{ field: 'level', desc: false }], fields: ['level'] })).toMatchObject({
      select: 'level, id',
      stripKey: true,
      skipKey: 'id',
    });
    expect(planList(LOG, { all: true, sort: [{ field: 'level', desc: false }] })).toMatchObject({ select: undefined, stripKey: false });
  });

  it('a list without a key pages by skip', () => {
    expect(planList({ ...KEYS, key: false }, { all: true }).keyset).toBeUndefined();
  });
});
