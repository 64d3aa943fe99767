/**
 * `lic log top` and `lic log report` on entries a real service can write but the demo never
 * holds, served by a socket-level fake of GET /v1/log: messages that made the old template
 * regex (`^lit(.*?)lit(.*?)…$`) backtrack for minutes per entry (the spawned CLI must end, on
 * a budget the old code could not meet, with the right counts), and an XML character
 * reference no character has. Plus the linear matcher against that regex, on random
 * templates and messages (fast-check).
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { LogReport } from '../../../src/commands/log/report-data.js';
import { compileTemplate, EntryReader, matchTemplate, parseProperties } from '../../../src/commands/log/entry-values.js';
import { envFor, runCli } from '../../helpers/cli.js';
import { reply, startFake, type Fake } from '../../helpers/fake-server.js';
import { spawnLic } from '../../helpers/spawn.js';

const NOW = Date.now();
const at = (minutesAgo: number) => new Date(NOW - minutesAgo * 60_000).toISOString();

/** A log entry as the service lists it (contract §6). */
const entry = (id: number, e: { message: string; messageTemplate: string; properties?: string; level?: string }) => ({
  id,
  level: 'Warning',
  timeStamp: at(id),
  exception: '',
  properties: '',
  ...e,
});

let fake: Fake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** A fake log service holding `entries`: the first page has them all (by id, newest first), the next (`Id < …`) none. */
async function fakeLog(all: ReturnType<typeof entry>[]): Promise<Fake> {
  const entries = [...all].sort((a, b) => b.id - a.id);
  fake = await startFake((socket, req) => {
    const u = new URL(req.path, 'http://x');
    const list = u.pathname === '/v1/log' && !(u.searchParams.get('filter') ?? '').includes('Id <') ? entries : [];
    reply(socket, 200, JSON.stringify({ success: true, code: 0, message: 'OK', logEntries: list, totalLogEntriesCount: entries.length }));
  });
  return fake;
}

const env = (f: Fake) => envFor(f, 'admin-key');

describe('messages that made the template regex backtrack', () => {
  // '{A} {B} {C} {D} done' against 'w w w … end': the old regex tried every split of 600 spaces
  // into four holes before failing (22 s for these three); the 60 KB one ran for CPU-minutes
  const PATHOLOGICAL = [1, 2, 3].map((id) => entry(id, { messageTemplate: '{A} {B} {C} {D} done', message: `${'w '.repeat(600)}end` }));
  const BIG = entry(4, {
    messageTemplate: '{A} {B} {C} {D} done',
    message: `${'w '.repeat(30_000)}end`,
    properties: '{"A":"from-properties"}',
  });
  const MATCHING = [5, 6].map((id) => entry(id, { messageTemplate: '{A} {B} {C} {D} done', message: `"a1" b c ${'w '.repeat(600)}done` }));

  it('log top ends with the counts: no match for the three, properties for the big one, the holes of the matching ones', async () => {
    const f = await fakeLog([...PATHOLOGICAL, BIG, ...MATCHING]);
    const period = ['--since', at(60), '--until', at(-1)];
    // the budget is no timing assert: the old code did not end within minutes; a stuck run is killed and fails here
    const d = await spawnLic(['log', 'top', 'D', ...period, '-o', 'json'], { env: env(f), timeoutMs: 60_000 });
    expect(d.signal, d.stderr).toBeNull();
    expect(d.code, d.stderr).toBe(0);
    // the last hole takes what is left before the last literal
    expect((JSON.parse(d.stdout) as { values: { D: string; count: number }[] }).values.map((v) => [v.D, v.count])).toEqual([
      [`${'w '.repeat(599)}w`, 2],
    ]);
    const r = await spawnLic(['log', 'top', 'A', ...period, '-o', 'json'], { env: env(f), timeoutMs: 60_000 });
    expect(r.signal, r.stderr).toBeNull();
    expect(r.code, r.stderr).toBe(0);
    const top = JSON.parse(r.stdout) as { entries: number; counted: number; values: { A: string; count: number }[] };
    expect(top.entries).toBe(6);
    expect(top.counted).toBe(3);
    expect(top.values.map((v) => [v.A, v.count])).toEqual([
      ['a1', 2],
      ['from-properties', 1],
    ]);
  }, 150_000);

  it('log report ends too, counting the problems by the values read', async () => {
    const f = await fakeLog([...PATHOLOGICAL, BIG, ...MATCHING]);
    const r = await spawnLic(['log', 'report', '--since', at(60), '--until', at(-1), '-o', 'json'], { env: env(f), timeoutMs: 60_000 });
    expect(r.signal, r.stderr).toBeNull();
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as LogReport;
    expect(report.entries).toBe(6);
    expect(report.problems.entries).toBe(6);
    const a = report.problems.byProperty.find((p) => p.property === 'A');
    expect(a).toEqual({
      property: 'A',
      entries: 3,
      values: [
        { value: 'a1', count: 2 },
        { value: 'from-properties', count: 1 },
      ],
    });
  }, 90_000);

  it('a message past TEMPLATE_MESSAGE_MAX is read from its properties only', () => {
    const r = new EntryReader();
    const t = 'Got {A} and {B}';
    expect(r.value({ messageTemplate: t, message: `Got 1 and ${'x'.repeat(100)}` }, 'B')).toBe('x'.repeat(100));
    expect(r.value({ messageTemplate: t, message: `Got 1 and ${'x'.repeat(5000)}` }, 'A')).toBeUndefined();
    expect(r.value({ messageTemplate: t, message: `Got 1 and ${'x'.repeat(5000)}`, properties: '{"A":"p"}' }, 'A')).toBe('p');
  });
});

describe('the linear matcher answers what the lazy anchored regex answered', () => {
  /** The old matcher: each hole a lazy capture in one anchored regex (the reference; exponential on some inputs). */
  function regexMatch(template: string, message: string): string[] | undefined {
    let src = '';
    let last = 0;
    const re = /\{\{|\}\}|\{[@$]?([A-Za-z0-9_]+)(?:,-?\d+)?(?::[^}]*)?\}/g;
    const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    for (let m = re.exec(template); m; m = re.exec(template)) {
      src += esc(template.slice(last, m.index)) + (m[0] === '{{' ? '\\{' : m[0] === '}}' ? '\\}' : '(.*?)');
      last = m.index + m[0].length;
    }
    const m = new RegExp(`^${src}${esc(template.slice(last))}$`, 's').exec(message);
    return m ? m.slice(1) : undefined;
  }

  // a small alphabet, so literals recur inside values and matches and near-misses are frequent
  const text = fc.string({ unit: fc.constantFrom('a', 'b', ' ', ':', '{', '}', '.'), maxLength: 6 });
  const template = fc
    .array(fc.tuple(fc.constantFrom('{X}', '{Y,3}', '{@Z:l}', '{{', '}}', ''), text), { minLength: 1, maxLength: 5 })
    .map((parts) => parts.map(([hole, lit]) => hole + lit.replace(/[{}]/g, '')).join(''));

  it('on every template whose holes are apart: the same match or none, the same values', () => {
    fc.assert(
      fc.property(template, fc.array(text, { maxLength: 6 }), (t, bits) => {
        const c = compileTemplate(t);
        fc.pre(c !== undefined && c.literals.slice(1, -1).every((l) => l !== ''));
        // messages rendered from the template with random values, and random text
        const rendered = c!.literals.map((l, i) => l + (i < c!.names.length ? (bits[i] ?? '') : '')).join('');
        for (const message of [rendered, bits.join(''), rendered.slice(1), `${rendered}a`]) {
          expect(matchTemplate(c!, message), `${t} | ${message}`).toEqual(regexMatch(t, message));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('holes with nothing between them yield no value; the others still do', () => {
    const c = compileTemplate('{A}{B} on {C}')!;
    expect(matchTemplate(c, 'xy on z')).toEqual([undefined, undefined, 'z']);
    expect(new EntryReader().value({ messageTemplate: '{A}{B} on {C}', message: 'xy on z' }, 'B')).toBeUndefined();
    expect(matchTemplate(compileTemplate('{A} and {B}')!, 'nothing')).toBeUndefined();
  });
});

describe('an XML character reference no character has', () => {
  it('decodes to U+FFFD (0, surrogates, past U+10FFFF); valid ones as before', () => {
    const p = parseProperties(
      "<properties><property key='R'>bad &#x110000; &#0; &#xD800; &#99999999999999999999; value</property><property key='Ok'>&#x1F600;&#233;</property></properties>",
    );
    expect(p.get('R')).toBe('bad \ufffd \ufffd \ufffd \ufffd value');
    expect(p.get('Ok')).toBe('😀é');
  });

  it('log top and log report go on past it', async () => {
    const f = await fakeLog([
      entry(1, {
        messageTemplate: 'Refused {Reason}',
        message: 'Refused bad',
        level: 'Error',
        properties: "<properties><property key='Reason'>bad &#x110000; value</property></properties>",
      }),
      entry(2, {
        messageTemplate: 'Refused {Reason}',
        message: 'Refused other',
        level: 'Error',
        properties: "<properties><property key='Reason'>other</property></properties>",
      }),
    ]);
    const period = ['--since', at(60), '--until', at(-1)];
    const top = await runCli(['log', 'top', 'Reason', ...period, '-o', 'json'], { env: env(f) });
    expect(top.code, top.stderr).toBe(0);
    expect((JSON.parse(top.stdout) as { values: { Reason: string }[] }).values.map((v) => v.Reason).sort()).toEqual([
      'bad \ufffd value',
      'other',
    ]);
    const report = await runCli(['log', 'report', ...period, '-o', 'json'], { env: env(f) });
    expect(report.code, report.stderr).toBe(0);
    expect((JSON.parse(report.stdout) as LogReport).problems.entries).toBe(2);
  });
});
