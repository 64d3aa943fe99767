import { describe, expect, it } from 'vitest';
import { parseDuration, parseExpiry, parseTime } from '../src/cli/parse.js';
import { timeFormatter } from '../src/cli/table.js';
import { parseAuthFailLimit } from '../src/server/auth-guard.js';
import { parseDataset } from '../src/server/seed/dataset.js';
import { DAY, formatDuration, HOUR, MINUTE, parseDurationMs, parseRfc3339, SECOND, WEEK } from '../src/time.js';

describe('parseDurationMs: the one unit table', () => {
  it.each([
    ['500ms', 500],
    ['2s', 2 * SECOND],
    ['1.5s', 1500],
    ['30m', 30 * MINUTE],
    ['24h', DAY],
    ['1.5d', 36 * HOUR],
    ['2w', 2 * WEEK],
    [' 7d ', 7 * DAY],
    ['0s', 0],
  ])('%j → %d ms', (text, ms) => expect(parseDurationMs(text)).toBe(ms));

  it('a bare number is seconds only when the caller says so', () => {
    expect(parseDurationMs('90')).toBeUndefined();
    expect(parseDurationMs('0')).toBeUndefined();
    expect(parseDurationMs('90', { bareSeconds: true })).toBe(90 * SECOND);
    expect(parseDurationMs('0.25', { bareSeconds: true })).toBe(250);
  });

  it.each(['', 'soon', '5x', '-1d', '+1d', '1e3s', '.5s', '5 s', '1d2h', `${'9'.repeat(400)}w`])('refuses %j', (text) => {
    expect(parseDurationMs(text, { bareSeconds: true })).toBeUndefined();
  });

  it('formatDuration writes the largest exact unit, and reads back', () => {
    for (const [ms, text] of [
      [0, '0'],
      [1500, '1500ms'],
      [90 * SECOND, '90s'],
      [DAY, '1d'],
      [366 * DAY, '366d'],
      [2 * WEEK, '2w'],
    ] as const) {
      expect(formatDuration(ms)).toBe(text);
      if (ms) expect(parseDurationMs(text)).toBe(ms);
    }
  });
});

describe('the duration flags on the one table', () => {
  it('--timeout/--interval: bare seconds, 1ms..24h; the error names the forms', () => {
    expect(parseDuration('2')).toBe(2000);
    expect(parseDuration('1d')).toBe(DAY); // d and w are new here
    expect(() => parseDuration('0')).toThrow('expected a duration from 1ms to 24h, such as 500ms, 2s or 1m.');
    expect(() => parseDuration('25h')).toThrow('from 1ms to 24h');
    expect(() => parseDuration('soon')).toThrow('expected a duration such as 500ms, 2s or 1m.');
  });

  it('--auth-fail-limit: N/window, the window 1s..24h in any unit', () => {
    expect(parseAuthFailLimit('5/1d')).toEqual({ limit: 5, windowMs: DAY });
    expect(parseAuthFailLimit('5/1.5m')).toEqual({ limit: 5, windowMs: 90 * SECOND });
    expect(parseAuthFailLimit('0/60s')).toEqual({ limit: 0, windowMs: MINUTE });
    for (const bad of ['5/500ms', '0/5ms', '5/ 60s', '5/25h']) expect(parseAuthFailLimit(bad), bad).toBeUndefined();
  });

  it('--since/--until and --expires take a duration with its unit', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(parseTime('1.5h', now)).toBe('2025-12-31T22:30:00.000Z');
    expect(parseExpiry('+90d', now)).toBe('2026-04-01T00:00:00.000Z');
    expect(() => parseTime('90', now)).toThrow('a relative age (90s, 30m, 24h, 7d, 2w)');
  });
});

describe('parseRfc3339: the one pattern', () => {
  it('parses date-times with UTC, offsets and fractions, and plain dates unless dateTimeOnly', () => {
    const t = (s: string) => parseRfc3339(s, { dateTimeOnly: true });
    expect(t('2025-01-18T14:04:02.659Z')).toBe(Date.UTC(2025, 0, 18, 14, 4, 2, 659));
    expect(t('2025-01-18T14:04:02.6599643Z')).toBe(Date.UTC(2025, 0, 18, 14, 4, 2, 659));
    expect(t('2025-01-18 14:04:02Z')).toBe(Date.UTC(2025, 0, 18, 14, 4, 2));
    expect(t('2025-01-18T15:34:02+01:30')).toBe(Date.UTC(2025, 0, 18, 14, 4, 2));
    expect(t('2025-01-18T09:04:02.5-05:00')).toBe(Date.UTC(2025, 0, 18, 14, 4, 2, 500));
    expect(t('2024-02-29T00:00:00z')).toBe(Date.UTC(2024, 1, 29));
    expect(t('0099-01-01T00:00:00Z')).toBe(new Date('0099-01-01T00:00:00Z').getTime());
    expect(t('2025-01-18')).toBeUndefined();
    expect(parseRfc3339('2025-01-18')).toBe(Date.UTC(2025, 0, 18));
  });

  it.each([
    '',
    '2025-01-18T14:04:02',
    '2025-01-18T14:04Z',
    '2023-02-29T00:00:00Z',
    '2025-04-31T00:00:00Z',
    '2025-00-10T00:00:00Z',
    '2025-01-18T24:00:00Z',
    '2025-01-18T14:60:00Z',
    '2025-01-18T14:04:60Z',
    '2025-01-18T14:04:02+25:00',
    '2025-1-18T14:04:02Z',
    ' 2025-01-18T14:04:02Z',
    '2025-01-18T14:04:02.Z',
  ])('refuses %j', (s) => expect(parseRfc3339(s)).toBeUndefined());
});

/** Whether the seed dataset takes `s` as a stored timestamp. */
function datasetTakes(s: string): boolean {
  try {
    parseDataset({ users: [], log: [{ timeStamp: s, level: 'Warning', message: 'm', messageTemplate: 'm' }] });
    return true;
  } catch {
    return false;
  }
}

/** Whether a terminal table shows `s` as a time (else the text as it is). */
const tableShowsTime = (s: string) => timeFormatter({ utc: true })(s) !== s;

describe('parseRfc3339: years 0001-9999 only, after the offset', () => {
  it('refuses a time RFC 3339 could not write in UTC; anyYear lets it through', () => {
    expect(parseRfc3339('9999-12-31T23:59:59.999Z')).toBe(Date.parse('9999-12-31T23:59:59.999Z'));
    expect(new Date(parseRfc3339('0001-01-01T00:00:00Z')!).toISOString()).toBe('0001-01-01T00:00:00.000Z');
    expect(new Date(parseRfc3339('0001-01-01')!).toISOString()).toBe('0001-01-01T00:00:00.000Z');
    for (const bad of [
      '9999-12-31T23:59:59-23:59',
      '9999-12-31T23:59:59.999-00:01',
      '0001-01-01T00:00:00+00:01',
      '0000-06-01T00:00:00Z',
      '0000-12-31',
    ])
      expect(parseRfc3339(bad), bad).toBeUndefined();
    expect(new Date(parseRfc3339('9999-12-31T23:59:59-23:59', { anyYear: true })!).toISOString()).toBe('+010000-01-01T23:58:59.000Z');
  });
});

describe('the seed dataset, the terminal table and the query language take the same times', () => {
  it.each([
    // [text, a time?] — the first four were taken by one place and refused by another before one pattern served all
    ['2025-01-18 14:04:02Z', true], // the dataset refused the space separator
    ['2025-01-18T14:04:02.1234567890Z', true], // the dataset refused more than 9 fraction digits
    ['2025-01-18T14:04Z', false], // the table showed a time without seconds as one
    ['2025-02-30T00:00:00Z', false], // the table showed an impossible date as March 2 (Date.parse)
    ['2025-01-18T24:00:00Z', false], // likewise hour 24, as the next day
    ['2025-01-18T14:04:02.659Z', true],
    ['2025-01-18T15:04:02+01:00', true],
    ['2025-01-18T14:04:02', false],
  ])('%j: %s', (s, isTime) => {
    expect(parseRfc3339(s, { dateTimeOnly: true }) !== undefined).toBe(isTime);
    expect(datasetTakes(s)).toBe(isTime);
    expect(tableShowsTime(s)).toBe(isTime);
  });

  it('a plain date is a query time, not a stored timestamp nor a table time', () => {
    expect(parseRfc3339('2025-01-18')).toBe(Date.UTC(2025, 0, 18));
    expect(datasetTakes('2025-01-18')).toBe(false);
    expect(tableShowsTime('2025-01-18')).toBe(false);
  });
});
