/**
 * The HTTP layer against faults a real service can't produce on demand, made by a
 * socket-level fake (node:net on port 0): resets, slow replies, malformed bodies,
 * transient 5xx. Driven through the CLI (runCli) so exit codes and messages are checked
 * end to end, and through ApiClient for what the CLI doesn't show (headers, retries).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient, buildUrl } from '../../src/client/request.js';
import { ApiError, AuthError, NetworkError, ProtocolError } from '../../src/client/errors.js';
import { runCli } from '../helpers/cli.js';
import { closedPort, reply, startFake, type Fake } from '../helpers/fake-server.js';

const KEY = 'api_abcdefghijklmnopqrstuvwx';
const OK_LIST = JSON.stringify({ success: true, code: 0, message: 'OK', apiKeys: [], totalApiKeysCount: 0 });

let fake: Fake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});
const env = (f: { url: string }, extra: Record<string, string> = {}) => ({ LIC_BASE_URL: f.url, LIC_API_KEY: KEY, ...extra });

function expectNoLeak(r: { stdout: string; stderr: string }) {
  expect(r.stdout + r.stderr).not.toContain(KEY);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe('network faults → exit 5', () => {
  it('connection refused: exit 5 naming the origin, after the GET retries', async () => {
    const port = await closedPort();
    const r = await runCli(['keys', 'list', '-q'], {
      env: { LIC_BASE_URL: `http://127.0.0.1:${port}`, LIC_API_KEY: KEY },
      sleep: async () => undefined,
    });
    expect(r.code).toBe(5);
    expect(r.stderr).toBe(
      `lic: cannot connect to http://127.0.0.1:${port}: connection refused (is the service running? try \`lic serve\`)\n`,
    );
  });

  it('a reset in the middle of the reply: exit 5 "was reset"; a GET is tried 3 times', async () => {
    fake = await startFake((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 500\r\n\r\n{"success":true,"apiKeys":[');
      setTimeout(() => socket.resetAndDestroy(), 20);
    });
    const r = await runCli(['keys', 'list', '-q'], { env: env(fake), sleep: async () => undefined });
    expect(r.code).toBe(5);
    expect(r.stderr).toBe(`lic: connection to ${fake.url} was reset\n`);
    expect(fake.requests).toHaveLength(3);
    expectNoLeak(r);
  });

  it('a reset during a POST is not retried (a write may have happened): exit 5 after one request', async () => {
    fake = await startFake((socket) => socket.resetAndDestroy());
    const r = await runCli(['keys', 'create', '--perm', '1'], { env: env(fake) });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('was reset');
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.method).toBe('POST');
  });

  it('a body slower than LIC_TIMEOUT_MS: exit 5 "timed out after 150ms" (a POST: one attempt)', async () => {
    fake = await startFake((socket) => {
      // headers and half the body, then silence
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"success":true,');
    });
    const r = await runCli(['keys', 'create', '--perm', '1'], { env: env(fake, { LIC_TIMEOUT_MS: '150' }) });
    expect(r.code).toBe(5);
    expect(r.stderr).toBe(`lic: timed out after 150ms waiting for ${fake.url} (--timeout)\n`);
    expect(fake.requests).toHaveLength(1);
  });

  it('the timeout is quoted as --timeout takes it: `--timeout 1s` times out "after 1s", not "1000 ms"', async () => {
    fake = await startFake(() => undefined);
    const r = await runCli(['keys', 'delete', '3', '--yes', '--timeout', '1s'], { env: env(fake) });
    expect(r.code).toBe(5);
    expect(r.stderr).toBe(`lic: timed out after 1s waiting for ${fake.url} (--timeout)\n`);
  });

  it('no reply headers within LIC_TIMEOUT_MS: exit 5', async () => {
    fake = await startFake(() => undefined);
    const r = await runCli(['keys', 'delete', '3', '--yes'], { env: env(fake, { LIC_TIMEOUT_MS: '150' }) });
    expect(r.code).toBe(5);
    expect(r.stderr).toBe(`lic: timed out after 150ms waiting for ${fake.url} (--timeout)\n`);
    expect(fake.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['DELETE /v1/api-keys/3']);
  });

  it('a GET that times out is retried like any network error', async () => {
    fake = await startFake((s, req) => (req.n === 0 ? undefined : reply(s, 200, OK_LIST)));
    const r = await runCli(['keys', 'list', '-o', 'json'], { env: env(fake, { LIC_TIMEOUT_MS: '150' }) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${OK_LIST}\n`);
    expect(fake.requests).toHaveLength(2);
  });
});

describe('malformed replies → exit 1 with a clear message, never a crash', () => {
  it('a 200 whose body is not JSON', async () => {
    fake = await startFake((s) => reply(s, 200, '<html>hello</html>', { 'content-type': 'text/html' }));
    const r = await runCli(['keys', 'list'], { env: env(fake) });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('lic: the service at /v1/api-keys replied 200 with a body that is not JSON: "<html>hello</html>"\n');
    expect(r.stdout).toBe('');
  });

  it('a 200 with an empty body, and with a JSON array', async () => {
    fake = await startFake((s, req) => reply(s, 200, req.n === 0 ? '' : '[1,2]'));
    const a = await runCli(['log', 'list'], { env: env(fake) });
    expect(a.code).toBe(1);
    expect(a.stderr).toBe('lic: the service at /v1/log replied 200 with an empty body\n');
    const b = await runCli(['log', 'list'], { env: env(fake) });
    expect(b.code).toBe(1);
    expect(b.stderr).toBe('lic: the service at /v1/log replied 200 with JSON that is not an object\n');
  });

  it.each([
    ['keys', 'apiKeys', '/v1/api-keys'],
    ['log', 'logEntries', '/v1/log'],
  ])('%s list: a 200 whose list field is not an array', async (noun, field) => {
    fake = await startFake((s) => reply(s, 200, JSON.stringify({ success: true, [field]: { id: 1 } })));
    const r = await runCli([noun, 'list'], { env: env(fake) });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^lic: .*reply .*has no "/);
    expect(r.stderr).toContain(`has no "${field}" array`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('tolerates a success that omits default fields (code, message, total), as the original does', async () => {
    fake = await startFake((s) =>
      reply(s, 200, JSON.stringify({ success: true, apiKeys: [{ id: 3, name: 'ci', permissions: 1, keyPrefix: 'api_abcd' }] })),
    );
    const r = await runCli(['keys', 'list'], { env: env(fake) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('3\tci\t\t1 r--\tapi_abcd\t\t\tactive\t\n');
  });

  it('an error reply that is not JSON (a proxy page): exit 1 with the status and an excerpt, the key redacted', async () => {
    fake = await startFake((s, req) =>
      reply(s, 502, `<h1>Bad gateway</h1> you sent ${req.headers['x-api-key']}`, { 'content-type': 'text/html' }),
    );
    const r = await runCli(['keys', 'create', '--perm', '1'], { env: env(fake) });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('lic: HTTP 502: <h1>Bad gateway</h1> you sent [redacted] (HTTP 502, POST /v1/api-keys)\n');
    expectNoLeak(r);
  });

  it('a 200 non-JSON body that echoes the key shows it redacted', async () => {
    fake = await startFake((s, req) => reply(s, 200, `key=${req.headers['x-api-key']}`, { 'content-type': 'text/plain' }));
    const r = await runCli(['keys', 'list'], { env: env(fake) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('not JSON: "key=[redacted]"');
    expectNoLeak(r);
  });
});

describe('status → exit code for replies the reference service does not make', () => {
  it.each([
    [409, 6, 'name "x" is already taken', 1],
    [400, 3, 'bad', 1],
    [500, 13, 'internal error', 1],
    [401, 16, 'unknown API key', 3],
    [403, 7, 'no', 3],
    [404, 5, 'gone', 4],
    [413, 8, 'too big', 1],
  ])('HTTP %i code %i (%s) → exit %i', async (status, code, message, exit) => {
    fake = await startFake((s) => reply(s, status, JSON.stringify({ success: false, code, message })));
    const r = await runCli(['keys', 'create', '--perm', '1'], { env: env(fake) });
    expect(r.code).toBe(exit);
    expect(r.stderr).toBe(`lic: ${message} (HTTP ${status}, code ${code}, POST /v1/api-keys)\n`);
  });

  it('a 200 with success:false is a failure (exit 1) even though the status is 2xx', async () => {
    fake = await startFake((s) => reply(s, 200, JSON.stringify({ success: false, code: 3, message: 'nope' })));
    const r = await runCli(['keys', 'list'], { env: env(fake) });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('lic: nope (HTTP 200, code 3, GET /v1/api-keys)\n');
  });
});

describe('retries', () => {
  it('a GET answered 503 then 200 is retried and succeeds (exit 0)', async () => {
    fake = await startFake((s, req) =>
      req.n === 0 ? reply(s, 503, JSON.stringify({ success: false, code: 14, message: 'busy' })) : reply(s, 200, OK_LIST),
    );
    const r = await runCli(['keys', 'list', '-o', 'json'], { env: env(fake) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${OK_LIST}\n`);
    expect(fake.requests.map((q) => q.method)).toEqual(['GET', 'GET']);
  });

  it('429 with Retry-After: 0, then 200', async () => {
    fake = await startFake((s, req) =>
      req.n === 0
        ? reply(s, 429, JSON.stringify({ success: false, code: 8, message: 'slow down' }), { 'retry-after': '0' })
        : reply(s, 200, OK_LIST),
    );
    const r = await runCli(['keys', 'list'], { env: env(fake) });
    expect(r.code, r.stderr).toBe(0);
    expect(fake.requests).toHaveLength(2);
  });

  it('a GET that keeps failing gives up after 3 attempts with the last error', async () => {
    fake = await startFake((s) => reply(s, 503, JSON.stringify({ success: false, code: 14, message: 'busy' })));
    const r = await runCli(['keys', 'list', '--verbose'], { env: env(fake), sleep: async () => undefined });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('lic: busy (HTTP 503, code 14, GET /v1/api-keys)');
    expect(r.stderr.match(/\* retrying in \d+ ms/g)).toHaveLength(2);
    expect(fake.requests).toHaveLength(3);
  });

  it('a POST answered 503 is not retried', async () => {
    fake = await startFake((s) => reply(s, 503, JSON.stringify({ success: false, code: 14, message: 'busy' })));
    const r = await runCli(['keys', 'create', '--perm', '7'], { env: env(fake) });
    expect(r.code).toBe(1);
    expect(fake.requests).toHaveLength(1);
  });
});

describe('what goes on the wire', () => {
  it('x-api-key, user-agent lic/<version>, accept and content-type; a JSON body', async () => {
    fake = await startFake((s) =>
      reply(s, 200, JSON.stringify({ success: true, code: 0, message: 'OK', apiKeyId: 9, key: 'api_zzzzzzzzzzzzzzzzzzzzzzzz' })),
    );
    const r = await runCli(['keys', 'create', '--perm', 'rw', '--name', 'ci', '--description', 'd'], { env: env(fake) });
    expect(r.code, r.stderr).toBe(0);
    const req = fake.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/v1/api-keys');
    expect(req.headers['x-api-key']).toBe(KEY);
    expect(req.headers['user-agent']).toMatch(/^lic\/\d+\.\d+\.\d+/);
    expect(req.headers.accept).toBe('application/json');
    expect(req.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req.body)).toEqual({ apiKey: { permissions: 3, name: 'ci', description: 'd' } });
  });

  it('log list flags become the query of contract §6', async () => {
    fake = await startFake((s) => reply(s, 200, JSON.stringify({ success: true, logEntries: [], totalLogEntriesCount: 0 })));
    const now = () => new Date('2025-01-18T12:00:00.000Z');
    const r = await runCli(
      ['log', 'list', '--level', 'warning', '--since', '24h', '--until', '2025-01-18T13:00:00+01:00', '--take', '5', '--skip', '10'],
      { env: env(fake), now },
    );
    expect(r.code, r.stderr).toBe(0);
    const u = new URL(fake.requests[0]!.path, 'http://x');
    expect(u.pathname).toBe('/v1/log');
    expect(Object.fromEntries(u.searchParams)).toEqual({
      filter: 'Level = "Warning"',
      startDate: '2025-01-17T12:00:00.000Z',
      endDate: '2025-01-18T12:00:00.000Z',
      take: '5',
      skip: '10',
    });
  });

  it.each([
    [['--all'], { deleteAll: 'true' }],
    [['--id', '42'], { id: '42' }],
    [['--before', '7d'], { endDate: '2025-01-11T12:00:00.000Z' }],
    [['--since', '2025-01-01', '--until', '2025-01-02'], { startDate: '2025-01-01T00:00:00.000Z', endDate: '2025-01-02T00:00:00.000Z' }],
    [['--since', '1h'], { startDate: '2025-01-18T11:00:00.000Z' }],
  ])('log purge %j sends DELETE /v1/log?%j', async (flags, query) => {
    fake = await startFake((s) => reply(s, 200, JSON.stringify({ success: true, code: 0, message: 'OK', deletedLogCount: 3 })));
    const r = await runCli(['log', 'purge', ...flags, '--yes'], { env: env(fake), now: () => new Date('2025-01-18T12:00:00.000Z') });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('deletedLogCount\t3\n');
    const u = new URL(fake.requests[0]!.path, 'http://x');
    expect(fake.requests[0]!.method).toBe('DELETE');
    expect(Object.fromEntries(u.searchParams)).toEqual(query);
  });

  it('--verbose traces each request and reply on stderr with the key redacted', async () => {
    fake = await startFake((s) => reply(s, 200, OK_LIST));
    const r = await runCli(['keys', 'list', '--take', '5', '-v'], { env: env(fake) });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`> GET ${fake.url}/v1/api-keys?take=5 (x-api-key: [redacted])`);
    expect(r.stderr).toMatch(/< 200 \/v1\/api-keys \(\d+ ms, \d+ bytes\)/);
    expectNoLeak(r);
  });
});

describe('ApiClient directly', () => {
  it('buildUrl joins base and path, drops undefined query values, encodes the rest', () => {
    expect(buildUrl('http://h:1/', '/v1/log', { take: 5, skip: undefined, filter: 'Level = "W&x"' })).toBe(
      'http://h:1/v1/log?take=5&filter=Level+%3D+%22W%26x%22',
    );
    expect(buildUrl('http://h:1/base//', '/v1/log')).toBe('http://h:1/base/v1/log');
  });

  it('typed errors keep status, code, method and path, and never the key', async () => {
    fake = await startFake((s) =>
      reply(s, 404, JSON.stringify({ success: false, code: 5, message: 'no API key with id 7', details: [{ field: 'id', reason: 'r' }] })),
    );
    const c = new ApiClient({ baseUrl: fake.url, apiKey: KEY, userAgent: 'lic/test', retries: 0 });
    const e = await c.request('DELETE', '/v1/api-keys/7').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({
      status: 404,
      code: 5,
      message: 'no API key with id 7',
      method: 'DELETE',
      path: '/v1/api-keys/7',
      details: [{ field: 'id', reason: 'r' }],
    });
    expect(JSON.stringify(e) + String((e as Error).stack)).not.toContain(KEY);
  });

  it('no key: AuthError and nothing sent', async () => {
    fake = await startFake((s) => reply(s, 200, OK_LIST));
    const c = new ApiClient({ baseUrl: fake.url, userAgent: 'lic/test' });
    await expect(c.request('GET', '/v1/api-keys')).rejects.toBeInstanceOf(AuthError);
    expect(fake.connections).toBe(0);
  });

  it('retries use the injected sleep with exponential back-off', async () => {
    fake = await startFake((s) => s.resetAndDestroy());
    const waits: number[] = [];
    const c = new ApiClient({
      baseUrl: fake.url,
      apiKey: KEY,
      userAgent: 'lic/test',
      retries: 3,
      random: () => 0.999999,
      sleep: async (ms) => void waits.push(ms),
    });
    await expect(c.request('GET', '/v1/log')).rejects.toBeInstanceOf(NetworkError);
    expect(waits).toEqual([500, 1000, 2000]);
    expect(fake.requests).toHaveLength(4);
  });

  it('a 2xx that is not JSON is a ProtocolError', async () => {
    fake = await startFake((s) => reply(s, 200, 'OK'));
    const c = new ApiClient({ baseUrl: fake.url, apiKey: KEY, userAgent: 'lic/test' });
    await expect(c.request('GET', '/v1/log')).rejects.toBeInstanceOf(ProtocolError);
  });
});
