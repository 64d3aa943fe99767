/**
 * Slow clients (contract §1, §9): a request whose line and headers, or whose body, do not
 * arrive in time is answered 408 (code 4) in the envelope and its connection closed; beyond
 * the cap on connections a new one is closed at once, and once the slow ones are gone a real
 * request is answered again. The timeouts are shortened here (startService's `connections`);
 * thousands of slow clients at the defaults: test/reliability/slow-clients.test.ts.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConnectionLimits } from '../../src/server/app.js';
import { startService, type RunningService } from '../../src/server/index.js';
import { parseReplies, rawExchange } from '../helpers/raw-http.js';
import { http } from '../helpers/service.js';

const SECRET = Buffer.alloc(32, 3).toString('base64');
const start = (connections: Parameters<typeof startService>[0]['connections']) =>
  startService({ dbPath: ':memory:', port: 0, authFailLimit: { limit: 0, windowMs: 60_000 }, secretKey: SECRET, connections });

/** A socket to `url` that has connected. */
function open(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), hostname, () => resolve(s));
    s.once('error', reject);
  });
}

/** What comes back on `s` until the server closes it (or `ms` pass: then `closed` is false). */
function untilClosed(s: Socket, ms: number): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    let text = '';
    const timer = setTimeout(() => (s.destroy(), resolve({ text, closed: false })), ms);
    s.on('data', (d) => (text += d.toString('utf8')));
    s.on('error', () => {});
    s.on('close', () => (clearTimeout(timer), resolve({ text, closed: true })));
  });
}

function expect408(text: string): void {
  const [r] = parseReplies(text);
  expect(r!.status, text).toBe(408);
  expect(r!.headers.connection).toBe('close');
  expect(JSON.parse(r!.body)).toEqual({
    success: false,
    code: 4,
    message: 'the request did not arrive in time; the connection is closed',
  });
}

describe('the defaults', () => {
  it('bound the request line and headers to 10 s, the request to 60 s, and the connections below the open-file limit', () => {
    const d = defaultConnectionLimits();
    expect(d).toMatchObject({ headersTimeoutMs: 10_000, requestTimeoutMs: 60_000, checkIntervalMs: 1000 });
    expect(d.maxConnections).toBeGreaterThanOrEqual(16);
    expect(d.maxConnections).toBeLessThanOrEqual(4096);
  });
});

describe('a slow client gets 408 and is closed', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await start({ headersTimeoutMs: 400, requestTimeoutMs: 1200, checkIntervalMs: 100 });
  });
  afterAll(() => svc.close());

  it('half a request line', async () => {
    const r = await rawExchange(svc.url, 'GET /v1/resour', 8000);
    expect(r.serverClosed).toBe(true);
    expect408(r.text);
  });

  it('the headers sent but never ended', async () => {
    const r = await rawExchange(svc.url, `GET /v1/resources HTTP/1.1\r\nHost: x\r\nx-api-key: ${svc.issuedKeys[0]!.key}\r\n`, 8000);
    expect(r.serverClosed).toBe(true);
    expect408(r.text);
  });

  it('a body that stops short of its Content-Length', async () => {
    const body = JSON.stringify({ resource: { name: 'slow' } });
    const r = await rawExchange(
      svc.url,
      `POST /v1/resources HTTP/1.1\r\nHost: x\r\nx-api-key: ${svc.issuedKeys[0]!.key}\r\ncontent-type: application/json\r\ncontent-length: ${body.length + 50}\r\n\r\n${body}`,
      8000,
    );
    expect(r.serverClosed).toBe(true);
    expect408(r.text);
    // nothing was stored
    expect(svc.db.prepare("SELECT count(*) FROM resources WHERE name = 'slow'").pluck().get()).toBe(0);
  });

  it('a whole request is still answered', async () => {
    const r = await http(svc, 'GET', '/v1/resources', { key: svc.issuedKeys[0]!.key });
    expect(r.status).toBe(200);
  });
});

describe('the cap on connections', () => {
  const CAP = 8;
  let svc: RunningService;
  beforeAll(async () => {
    svc = await start({ headersTimeoutMs: 1500, requestTimeoutMs: 3000, checkIntervalMs: 100, maxConnections: CAP });
  });
  afterAll(() => svc.close());

  it('closes a connection beyond it at once; once the slow ones got their 408, requests are answered again', async () => {
    const slow = await Promise.all(Array.from({ length: CAP }, () => open(svc.url)));
    const ends = slow.map((s) => (s.write('GET /v1/res'), untilClosed(s, 10_000)));
    // let the server count them all before the next one knocks
    await new Promise((r) => setTimeout(r, 100));
    const extra = await rawExchange(svc.url, 'GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n', 8000);
    expect(extra).toEqual({ text: '', serverClosed: true });
    for (const e of await Promise.all(ends)) {
      expect(e.closed).toBe(true);
      expect408(e.text);
    }
    const r = await http(svc, 'GET', '/v1/resources', { key: svc.issuedKeys[0]!.key });
    expect(r.status).toBe(200);
  });
});
