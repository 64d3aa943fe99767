/**
 * Raw HTTP: thousands of requests written byte by byte over sockets — valid ones mutated
 * (methods, paths with broken percent-encoding, versions, missing or doubled headers,
 * Content-Length against Transfer-Encoding, bad chunks, headers over the limit, an
 * unknown Expect, truncation) — then the connection half-closed. Every reply, whoever made
 * it (Node's HTTP parser, fastify's router, a route), must be HTTP with a Content-Length
 * and the envelope of contract §1; never a 5xx.
 */
import { maxHeaderSize } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReplies, rawExchange } from '../helpers/raw-http.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { histogram, recordFigures } from './figures.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

// no HEAD: its reply has no body, so it could not carry the envelope
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'CONNECT', 'PRI', 'get', 'G E T', 'PROPFIND', '', 'X'.repeat(40)];
const PATHS = [
  '/v1/log',
  '/v1/resources',
  '/v1/resources/1',
  '/v1/api-keys?take=1',
  '/v1/resources/%zz',
  '/v1/resources/%E0%A4%A',
  '/v1/log%00',
  '/v1/customer/%ED%A0%80/products',
  `/v1/resources/${'9'.repeat(1100)}`,
  '*',
  'http://x/v1/log',
  '/v1/log?filter=%22',
  '/../../etc/passwd',
  '/v1/resources/\u00e9',
];
const VERSIONS = ['HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/9.9', 'HTTP/1.1 x', 'HTCPCP/1.0', ''];
const BODY = '{"resource":{"name":"raw"}}';

/** The first of `values` (the valid one) three times in four, else any of the others. */
const mostly = <T>(...values: T[]) =>
  fc.oneof({ arbitrary: fc.constant(values[0]!), weight: 3 }, { arbitrary: fc.constantFrom(...values.slice(1)), weight: 1 });

/** One generated request: the parts of a valid one, each of which may be replaced or broken. */
const request = fc
  .record({
    method: fc.oneof(
      { arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'), weight: 3 },
      { arbitrary: fc.constantFrom(...METHODS), weight: 1 },
    ),
    path: mostly(...PATHS),
    version: mostly(...VERSIONS),
    host: mostly('Host: x', '', 'Host: x\r\nHost: y', 'Host:'),
    key: fc.boolean(),
    framing: mostly(
      `Content-Type: application/json\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY}`,
      `Content-Type: application/json\r\nContent-Length: ${BODY.length}\r\nContent-Length: 3\r\n\r\n${BODY}`,
      `Content-Type: application/json\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      `Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n${BODY}\r\n0\r\n\r\n`,
      `Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${BODY.length.toString(16)}\r\n${BODY}\r\n0\r\n\r\n`,
      'Content-Length: -1\r\n\r\n',
      'Content-Length: 99999999999999999999\r\n\r\n',
      'Expect: magic\r\nContent-Length: 2\r\n\r\n{}',
      `X-Big: ${'a'.repeat(maxHeaderSize)}\r\n\r\n`,
      'Bad Header: y\r\n\r\n',
      'X-Ctl: a\u0001b\r\n\r\n',
      '\r\n',
    ),
    cut: fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: fc.integer({ min: 0, max: 400 }), weight: 1 }),
  })
  .map((r) => {
    const head = [`${r.method} ${r.path} ${r.version}`.trim(), r.host, r.key ? `x-api-key: ${svc.adminKey}` : '']
      .filter(Boolean)
      .join('\r\n');
    const text = `${head}\r\n${r.framing}`;
    return { bytes: r.cut === undefined ? text : text.slice(0, r.cut), cut: r.cut !== undefined };
  });

describe('raw HTTP', () => {
  it('generated and mutated requests over raw sockets: every reply in the envelope, never a 5xx', async () => {
    const statuses: number[] = [];
    const wrong: string[] = [];
    let exchanges = 0;
    let silent = 0;
    let silentPri = 0;
    const t0 = performance.now();
    await fc.assert(
      fc.asyncProperty(request, async ({ bytes, cut }) => {
        exchanges++;
        const { text } = await rawExchange(svc.url, bytes, 1000, true);
        if (text === '') {
          // only a request cut short may go unanswered (the peer left before saying what it wanted)
          // A known gap, on Node 22 to 26 alike: a request line with the method PRI that is not
          // HTTP/2's preface (`PRI /v1/log` with no version) makes Node's parser close the socket
          // without a clientError event, so the service never sees it to answer. Counted apart.
          if (!cut && /^PRI /.test(bytes) && !/^PRI \* HTTP\/2\.0\r\n/.test(bytes)) {
            silentPri++;
            return;
          }
          silent++;
          if (!cut) wrong.push(`${JSON.stringify(bytes.slice(0, 120))} → no reply`);
          return;
        }
        let replies;
        try {
          replies = parseReplies(text);
        } catch (e) {
          wrong.push(`${JSON.stringify(bytes.slice(0, 120))} → ${(e as Error).message}`);
          return;
        }
        for (const r of replies) {
          statuses.push(r.status);
          let body: { success?: unknown; code?: unknown; message?: unknown } | undefined;
          try {
            body = JSON.parse(r.body);
          } catch {
            /* not JSON */
          }
          const ok =
            body !== undefined &&
            typeof body.code === 'number' &&
            typeof body.message === 'string' &&
            body.success === r.status < 400 &&
            /^application\/json/.test(r.headers['content-type'] ?? '');
          if (!ok || r.status >= 500) wrong.push(`${JSON.stringify(bytes.slice(0, 120))} → ${r.status} ${r.body.slice(0, 120)}`);
        }
      }),
      { numRuns: 3000 },
    );
    const seconds = (performance.now() - t0) / 1000;
    expect(wrong).toEqual([]);
    recordFigures('raw-http', 'Raw HTTP: generated and mutated requests over sockets', {
      'connections (one request each, then half-closed)': exchanges,
      replies: statuses.length,
      'replies not in the envelope, or none to a whole request': wrong.length,
      '5xx': statuses.filter((s) => s >= 500).length,
      'connections closed without a reply (each a request cut short)': silent,
      'PRI request lines other than the HTTP/2 preface, closed by Node without a reply (known gap)': silentPri,
      ...Object.fromEntries(Object.entries(histogram(statuses)).map(([s, n]) => [`HTTP ${s}`, n])),
      'duration (s)': seconds.toFixed(1),
    });
  });
});
