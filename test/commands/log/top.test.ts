/**
 * `lic log top FIELD` against the real service seeded with the demo (contract §5, §6): each
 * count equals the total the API gives for the same filter (take=0); the same answers
 * through a service that sends no `properties` (values from the message against its
 * template) and one that sends Serilog's XML; the table fits 80 columns on a terminal;
 * bad FIELDs are usage errors. And the value readers themselves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daySpan, sparkline, ValueCounter } from '../../../src/commands/log/counter.js';
import { compileTemplate, EntryReader, exceptionType, parseProperties } from '../../../src/commands/log/entry-values.js';
import { selectionClauses, templateMatcher } from '../../../src/commands/log/scan.js';
import { parseTopFields } from '../../../src/commands/log/top.js';
import { filterString } from '../../../src/cli/list/filter.js';
import { displayWidth } from '../../../src/cli/table.js';
import { DAY } from '../../../src/time.js';
import { envFor, runCli, type RunOptions } from '../../helpers/cli.js';
import { ndjson, query, useService } from '../../helpers/fixtures.js';
import { http } from '../../helpers/service.js';
import { hasScript, spawnLicTty } from '../../helpers/spawn.js';
import { startTransformProxy, type TransformProxy } from '../../helpers/transform-proxy.js';

if (!hasScript) console.warn('test/commands/log/top.test.ts: util-linux `script` not found; skipping the pseudo-terminal test');

const NOW = new Date('2030-03-10T12:00:00.000Z');
const now = () => NOW;
const { svc } = useService({ seed: 'demo', now });
let bare: TransformProxy;
let xml: TransformProxy;
beforeAll(async () => {
  bare = await startTransformProxy(svc.url, 'strip-properties');
  xml = await startTransformProxy(svc.url, 'xml-properties');
});
afterAll(async () => {
  await bare.close();
  await xml.close();
});

const lic = (args: string[], o: RunOptions & { url?: string } = {}) =>
  runCli(args, { now, ...o, env: { ...envFor({ url: o.url ?? svc.url }, svc.adminKey), ...o.env } });

const SINCE_30D = new Date(NOW.getTime() - 30 * DAY).toISOString();
const SINCE_7D = new Date(NOW.getTime() - 7 * DAY).toISOString();

/** The API's total for `filter` in [since, now): GET /v1/log?take=0. */
async function apiCount(filter: string | undefined, since: string): Promise<number> {
  const r = await http(
    svc,
    'GET',
    `/v1/log${query({ take: 0, startDate: since, endDate: NOW.toISOString(), ...(filter ? { filter } : {}) })}`,
    {
      key: svc.adminKey,
    },
  );
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.totalLogEntriesCount as number;
}

interface TopJson {
  fields: string[];
  entries: number;
  counted: number;
  distinct: number;
  exact: boolean;
  days: string[];
  values: (Record<string, string> & { count: number; share: number; first: string; last: string; days: number[] })[];
}

async function topJson(args: string[], url?: string): Promise<TopJson> {
  const r = await lic(['log', 'top', ...args, '-o', 'json'], { url });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as TopJson;
}

const q = filterString;

describe('lic log top on the demo log', () => {
  it('template --since 30d: every count is the API total of that template; entries the total of the period', async () => {
    const top = await topJson(['template', '--since', '30d']);
    expect(top.entries).toBe(await apiCount(undefined, SINCE_30D));
    expect(top.entries).toBe(3000);
    expect(top.values).toHaveLength(10);
    expect(top.days).toHaveLength(31);
    for (const v of top.values) {
      expect(v.count, v.template).toBe(await apiCount(`MessageTemplate = ${q(v.template!)}`, SINCE_30D));
      expect(v.days.reduce((a, b) => a + b, 0)).toBe(v.count);
      expect(v.share).toBeCloseTo(v.count / top.entries, 3);
      expect(Date.parse(v.first)).toBeLessThanOrEqual(Date.parse(v.last));
    }
    // most frequent first
    expect(top.values.map((v) => v.count)).toEqual([...top.values.map((v) => v.count)].sort((a, b) => b - a));
  });

  it("LicenseId --template 'Activation refused*': counts per license equal the API's, a few leaked keys on top", async () => {
    const top = await topJson(['LicenseId', '--template', 'Activation refused*']);
    expect(top.entries).toBe(await apiCount('MessageTemplate.StartsWith("Activation refused")', SINCE_7D));
    expect(top.counted).toBe(top.entries);
    for (const v of top.values) {
      expect(v.count, v.LicenseId).toBe(
        await apiCount(
          `MessageTemplate.StartsWith("Activation refused") and Message.Contains(${q(`license "${v.LicenseId}" on`)})`,
          SINCE_7D,
        ),
      );
    }
    expect(top.values[0]!.count).toBeGreaterThanOrEqual(5);
  });

  it('Reason,CustomerCode --level Error: the combination counted as the API counts it', async () => {
    const top = await topJson(['Reason,CustomerCode', '--level', 'Error']);
    expect(top.fields).toEqual(['Reason', 'CustomerCode']);
    expect(top.entries).toBe(await apiCount('Level = "Error"', SINCE_7D));
    expect(top.counted).toBe(await apiCount('Level = "Error" and MessageTemplate.StartsWith("License validation failed")', SINCE_7D));
    for (const v of top.values) {
      expect(v.count, `${v.Reason} ${v.CustomerCode}`).toBe(
        await apiCount(
          `Level = "Error" and Message.Contains(${q(`of "${v.CustomerCode}" on`)}) and Message.EndsWith(${q(`: "${v.Reason}"`)})`,
          SINCE_7D,
        ),
      );
    }
  });

  it('exception groups by the exception type; level by level', async () => {
    const top = await topJson(['exception', '--since', '30d', '--limit', '3']);
    expect(top.values).toHaveLength(3);
    for (const v of top.values) expect(v.count).toBe(await apiCount(`Exception.StartsWith(${q(`${v.exception}:`)})`, SINCE_30D));
    const levels = await topJson(['level']);
    for (const v of levels.values) expect(v.count).toBe(await apiCount(`Level = ${q(v.level!)}`, SINCE_7D));
  });

  it.each([
    ['without properties (from the message against its template)', () => bare.url],
    ["with Serilog's XML properties", () => xml.url],
  ])('the same answers through a service %s', async (_, url) => {
    const raw = await http({ url: url() }, 'GET', '/v1/log?take=1', { key: svc.adminKey });
    const props = (raw.body.logEntries as { properties?: string }[])[0]!.properties;
    expect(props === undefined || props.startsWith('<properties><property key=')).toBe(true);
    for (const args of [
      ['template', '--since', '30d'],
      ['LicenseId', '--template', 'Activation refused*'],
      ['Reason,CustomerCode', '--level', 'Error'],
      ['OwnerId,Method', '--since', '30d'],
      ['MachineId', '--template', 'License validation failed*'],
    ]) {
      expect(await topJson(args, url()), args.join(' ')).toEqual(await topJson(args));
    }
  });

  it('ndjson and csv: one record per value with the same counts; the management calls are there', async () => {
    const j = await topJson(['OwnerId,Method', '--since', '30d']);
    expect(j.counted).toBe(150);
    const nd = await lic(['log', 'top', 'OwnerId,Method', '--since', '30d', '-o', 'ndjson']);
    expect(ndjson(nd.stdout)).toEqual(j.values);
    const csv = await lic(['log', 'top', 'OwnerId,Method', '--since', '30d', '-o', 'csv']);
    const lines = csv.stdout.trim().split('\n');
    expect(lines[0]).toBe('OwnerId,Method,count,share,first,last,days');
    expect(lines.slice(1).map((l) => Number(l.split(',')[2]))).toEqual(j.values.map((v) => v.count));
  });

  it.runIf(hasScript)('a terminal table with a sparkline trend fits 80 columns', async () => {
    // a spawned lic reads the real clock: the period is given whole
    const r = await spawnLicTty(['log', 'top', 'template', '--since', SINCE_30D, '--until', NOW.toISOString()], {
      env: { ...envFor(svc, svc.adminKey), COLUMNS: '80', NO_COLOR: '1' },
      cols: 80,
    });
    expect(r.code, r.output).toBe(0);
    const lines = r.output.split(/\r?\n/).filter((l) => /\d\.\d%/.test(l) || l.startsWith('TEMPLATE'));
    expect(lines[0]).toMatch(/^TEMPLATE +COUNT +SHARE +LAST +TREND \(31d\)/);
    expect(lines.length).toBe(11);
    for (const l of lines) expect(displayWidth(l), l).toBeLessThanOrEqual(80);
    expect(lines[1]).toMatch(/[▁▂▃▄▅▆▇█]/);
  });

  it.each([
    [['log', 'top', 'a b'], /FIELD|field/],
    [['log', 'top', 'level,Level'], /named twice/],
    [['log', 'top', 'template', '--level', 'Loud'], /--level/],
    [['log', 'top', 'template', '--since', 'yesterday'], /--since/],
    [['log', 'top', 'template', '--template', ''], /--template/],
  ])('%j is a usage error (exit 2, one lic: line)', async (args, message) => {
    const r = await lic(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^lic: /);
    expect(lines[0]).toMatch(message);
  });
});

describe('reading values out of an entry', () => {
  it('properties as JSON or as Serilog XML (entities decoded, nested elements as text)', () => {
    expect([...parseProperties('{"LicenseId":"LIC-1","Seats":5,"Ok":true,"Tags":["a"]}')]).toEqual([
      ['LicenseId', 'LIC-1'],
      ['Seats', '5'],
      ['Ok', 'true'],
      ['Tags', '["a"]'],
    ]);
    const xml =
      "<properties><property key='LicenseId'>LIC-1</property><property key=\"Reason\">a &lt;b&gt; &amp; &#39;c&#x27;</property><property key='S'><structure type='X'><property key='Y'>1</property></structure></property></properties>";
    const p = parseProperties(xml);
    expect(p.get('LicenseId')).toBe('LIC-1');
    expect(p.get('Reason')).toBe("a <b> & 'c'");
    expect(parseProperties('')).toEqual(new Map());
    expect(parseProperties('{not json')).toEqual(new Map());
  });

  it('a message against its template: holes become captures, Serilog quotes dropped, format and alignment allowed', () => {
    const r = new EntryReader();
    const e = {
      messageTemplate: 'Activation refused for license {LicenseId} on {MachineId:l}: {Activations,3} of {@Max} used {{x}}',
      message: 'Activation refused for license "LIC-1" on WS-1:   5 of 5 used {x}',
    };
    expect(r.value(e, 'LicenseId')).toBe('LIC-1');
    expect(r.value(e, 'machineid')).toBe('WS-1');
    expect(r.value(e, 'Activations')).toBe('  5');
    expect(r.value(e, 'Max')).toBe('5');
    expect(r.value(e, 'Nope')).toBeUndefined();
    // properties win over the message
    expect(r.value({ ...e, properties: '{"LicenseId":"LIC-2"}' }, 'LicenseId')).toBe('LIC-2');
    expect(r.value({ messageTemplate: 'x {A}', message: 'y 1' }, 'A')).toBeUndefined();
    expect(compileTemplate('no holes')).toBeUndefined();
  });

  it('the exception type is its first token; template, level and message are the fields', () => {
    expect(exceptionType('System.InvalidOperationException: bad\n   at X')).toBe('System.InvalidOperationException');
    expect(exceptionType('Halvard.X`1 thrown')).toBe('Halvard.X`1');
    expect(exceptionType('')).toBeUndefined();
    const r = new EntryReader();
    expect(r.value({ messageTemplate: 'T', level: 'Error', message: '' }, 'template')).toBe('T');
    expect(r.value({ level: 'Error' }, 'LEVEL')).toBe('Error');
    expect(r.value({ message: '' }, 'message')).toBeUndefined();
  });

  it('--template wildcards match the whole template; the service gets the literal pieces', () => {
    const m = templateMatcher('Activation refused*');
    expect(m('Activation refused for {X}')).toBe(true);
    expect(m('Not Activation refused')).toBe(false);
    expect(templateMatcher('*failed*{Reason}')('License validation failed for {L}: {Reason}')).toBe(true);
    expect(selectionClauses({ since: '', until: '', template: 'A*b"c' })).toEqual([
      undefined,
      'MessageTemplate.Contains("A") and MessageTemplate.Contains("b\\"c")',
    ]);
    expect(selectionClauses({ since: '', until: '', template: 'exact', levels: ['Error', 'Fatal'] })).toEqual([
      'Level = "Error" or Level = "Fatal"',
      'MessageTemplate = "exact"',
    ]);
  });

  it('FIELD: names, canonical entry fields, no repeats', () => {
    expect(parseTopFields('Template, LicenseId')).toEqual(['template', 'LicenseId']);
    expect(() => parseTopFields('a-b')).toThrow(/property name/);
    expect(() => parseTopFields('x,X')).toThrow(/twice/);
  });
});

describe('counting', () => {
  it('per day, first and last; exact until more distinct values than kept, then a bound on how low', () => {
    const span = daySpan(Date.UTC(2030, 0, 1, 12), Date.UTC(2030, 0, 4));
    expect(span.count).toBe(3);
    const c = new ValueCounter(span, 2);
    const t = (d: number) => Date.UTC(2030, 0, d, 13);
    c.add('a', t(1));
    c.add('a', t(3));
    c.add('b', t(2));
    expect(c.top(5).map((x) => [x.value, x.count, [...x.days]])).toEqual([
      ['a', 2, [1, 0, 1]],
      ['b', 1, [0, 1, 0]],
    ]);
    expect(c.floor).toBe(0);
    for (const v of ['c', 'd']) c.add(v, t(1));
    c.add('e', t(1)); // 4 held: the less frequent half goes
    expect(c.floor).toBe(1);
    expect(c.top(1)[0]!.value).toBe('a');
    expect(c.total).toBe(6);
  });

  it('a sparkline scales to the busiest cell and sums days into at most 14 cells', () => {
    expect(sparkline([0, 1, 2, 4])).toBe(' ▂▄█');
    expect(sparkline(Array.from({ length: 30 }, () => 1))).toHaveLength(10);
  });
});
