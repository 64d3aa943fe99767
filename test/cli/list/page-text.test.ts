// Cross-cutting: the list stream's pass-through of pages already in the printed shape; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/**
 * The stream's pass-through (src/cli/list/page-text.ts): records already in the printed
 * shape are written from the service's text, every other page is parsed and normalised,
 * and the output is byte for byte the same either way. End to end: `lic log list --all`
 * against lic serve (its pages pass through) and through a transforming proxy that makes
 * original-style replies (defaults left out, ids as strings: normalised), on ndjson and
 * json. Unit: random pages, canonical or written otherwise, through the scanner and
 * through JSON.parse + the normalising writer.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonListStream, ndjsonLines } from '../../../src/cli/list/format.js';
import { fieldTypesOf, normalizeRecord } from '../../../src/cli/list/normalize.js';
import { pageJsonItems, pageNdjson, pageScanner, pageTextOf } from '../../../src/cli/list/page-text.js';
import { LogEntrySchema } from '../../../src/schema/log-entry.js';
import { runCli } from '../../helpers/cli.js';
import { useService } from '../../helpers/fixtures.js';
import { http } from '../../helpers/service.js';
import { startTransformProxy, type TransformProxy } from '../../helpers/transform-proxy.js';
import { insertLog } from './harness.js';

const TYPES = fieldTypesOf(LogEntrySchema);
const scan = pageScanner('logEntries', TYPES, 'id')!;

const { svc, env } = useService();
const proxies: TransformProxy[] = [];
beforeAll(async () => {
  insertLog(svc.db, 2500);
  // entries whose text holds what JSON escapes: quotes, backslashes, control characters, non-ASCII, an empty exception
  insertLog(svc.db, 30, { prefix: 'ünïcødé ✓ 𝄞 "q" \\ \u0001\u001f\u007f \u2028' });
  proxies.push(await startTransformProxy(svc.url, 'strip-defaults'), await startTransformProxy(svc.url, 'int-strings'));
});
afterAll(async () => {
  for (const p of proxies) await p.close();
});

describe('lic log list --all: passed through or normalised, the same bytes', () => {
  it("lic serve's pages are the scanner's case (so the runs below compare the two paths)", async () => {
    const r = await http(svc, 'GET', '/v1/log?take=1000&sort=id%20desc', { key: env.LIC_API_KEY });
    expect(r.status).toBe(200);
    const text = JSON.stringify(r.body);
    const page = pageTextOf(scan(text) as object);
    expect(page?.count).toBe(1000);
    // an original-style page (a default left out) is parsed whole
    const stripped = text.replace(/,"exception":""/g, '');
    expect(pageTextOf(scan(stripped) as object)).toBeUndefined();
  });

  it.each(['ndjson', 'json'])('-o %s: lic serve directly, through strip-defaults and through int-strings', async (format) => {
    const direct = await runCli(['log', 'list', '--all', '-o', format], { env });
    expect(direct.code, direct.stderr).toBe(0);
    expect(direct.stdout.length).toBeGreaterThan(2530 * 100);
    for (const p of proxies) {
      const via = await runCli(['log', 'list', '--all', '-o', format], { env: { ...env, LIC_BASE_URL: p.url } });
      expect(via.code, via.stderr).toBe(0);
      expect(via.stdout).toBe(direct.stdout);
    }
  });
});

/** A log entry as lic serve writes it (every field, declared order). */
const entry = fc.record({
  id: fc.integer({ min: 1, max: 2 ** 40 }),
  message: fc.string({ unit: 'binary', maxLength: 20 }),
  messageTemplate: fc.string({ maxLength: 5 }),
  level: fc.constantFrom('Information', 'Warning'),
  timeStamp: fc.constantFrom('2025-01-01T00:00:00.000Z', null as unknown as string),
  exception: fc.string({ unit: 'grapheme', maxLength: 5 }),
  properties: fc.constant('{"N":1}'),
});

/** Other ways of writing the same JSON, which the scanner must not pass through as they are. */
const variants: ((json: string) => string)[] = [
  (j) => j,
  (j) => j.replace(/,"/g, ', "'),
  (j) => j.replace(/"id":(\d+)/g, '"id":$1.0'),
  (j) => j.replace(/"id":(\d+)/g, '"id":"$1"'),
  (j) => j.replace(/\//g, '\\/'),
  (j) => j.replace(/é/g, '\\u00e9'),
  // the whole JSON string, escaped quotes and backslashes included
  (j) => j.replace(/,"exception":"(?:[^"\\]|\\.)*"/g, ''),
  (j) => j.replace(/"level":/g, '"Level":'),
];

describe('pageScanner', () => {
  it('any page, any way of writing it: the ndjson and compact json equal those of the parsed, normalised records', () => {
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 8 }), fc.nat(variants.length - 1), (records, v) => {
        records.sort((a, b) => b.id - a.id);
        const text = variants[v]!(JSON.stringify({ success: true, code: 0, message: 'OK', logEntries: records, totalLogEntriesCount: 9 }));
        const parsed = JSON.parse(text) as { logEntries: Record<string, unknown>[]; totalLogEntriesCount: number };
        const normal = parsed.logEntries.map((r) => normalizeRecord(r, TYPES));
        const body = scan(text) as Record<string, unknown>;
        expect(body.totalLogEntriesCount).toBe(9);
        const page = pageTextOf(body);
        if (!page) {
          // not passed through: the whole reply, parsed
          expect(body).toEqual(parsed);
          return;
        }
        expect(page.count).toBe(records.length);
        expect(page.keys).toEqual(parsed.logEntries.map((r) => r.id));
        expect(pageNdjson(page).join('')).toBe(ndjsonLines(normal));
        const a = new JsonListStream({ arrayField: 'logEntries' }, false);
        const b = new JsonListStream({ arrayField: 'logEntries' }, false);
        expect(a.items(normal) + a.items(normal)).toBe(
          b.itemsText(pageJsonItems(page), page.count) + b.itemsText(pageJsonItems(page), page.count),
        );
      }),
      { numRuns: 400 },
    );
  });

  it('a page of canonical text is passed through; the other ways of writing it are not', () => {
    const records = [{ id: 2, message: 'a/é', messageTemplate: '', level: 'Warning', timeStamp: null, exception: '', properties: '{}' }];
    const text = JSON.stringify({ success: true, code: 0, message: 'OK', logEntries: records, totalLogEntriesCount: 1 });
    expect(pageTextOf(scan(text) as object)).toBeDefined();
    for (const v of variants.slice(1)) expect(pageTextOf(scan(v(text)) as object), v(text)).toBeUndefined();
  });

  it('a noun with a field it cannot vouch for (an array, a nested record) gets no scanner', () => {
    expect(pageScanner('things', { id: 'int', tags: 'array' }, 'id')).toBeUndefined();
    expect(pageScanner('things', { id: 'int', owner: { record: { name: 'string' } } }, 'id')).toBeUndefined();
  });
});
