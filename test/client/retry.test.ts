/**
 * Time and retries against socket-level fakes: which replies and failures
 * are retried for which methods, the announcement on stderr, Retry-After in both forms,
 * the per-attempt deadline over the whole body, and the settings' sources. The client's
 * sleep is the context's, recorded here, so no test waits for a back-off.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/client/request.js';
import { NetworkError, RequestAbortedError } from '../../src/client/errors.js';
import { runCli, tempDir, type RunOptions } from '../helpers/cli.js';
import { closedPort, reply, startFake, type Fake } from '../helpers/fake-server.js';

const KEY = 'api_abcdefghijklmnopqrstuvwx';
const OK_LIST = JSON.stringify({ success: true, code: 0, message: 'OK', apiKeys: [], totalApiKeysCount: 0 });
const BUSY = JSON.stringify({ success: false, code: 14, message: 'busy' });

let fake: Fake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** runCli against `url` with the key, recording the waits the client asks for instead of waiting. */
async function run(args: string[], url: string, o: RunOptions = {}) {
  const waits: number[] = [];
  const r = await runCli(args, { ...o, env: { LIC_BASE_URL: url, LIC_API_KEY: KEY, ...o.env }, sleep: async (ms) => void waits.push(ms) });
  return { ...r, waits };
}

describe('which failures are retried', () => {
  it('GET: 503 then 200 succeeds; the retry is announced on stderr with its wait', async () => {
    fake = await startFake((s, req) => (req.n === 0 ? reply(s, 503, BUSY) : reply(s, 200, OK_LIST)));
    const r = await run(['keys', 'list', '-o', 'json'], fake.url);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${OK_LIST}\n`);
    expect(fake.requests.map((q) => q.method)).toEqual(['GET', 'GET']);
    expect(r.waits).toHaveLength(1);
    // first step 0.5 s, jittered to 50..100 %
    expect(r.waits[0]).toBeGreaterThanOrEqual(250);
    expect(r.waits[0]).toBeLessThanOrEqual(500);
    // the retry notice, then (the fake's list is empty) the list's own note
    expect(r.stderr.split('\n')[0]).toBe(`lic: 503 from ${fake.url}, retry 1/2 in ${(r.waits[0]! / 1000).toFixed(1)}s`);
  });

  it('-q silences the announcement, not the retry', async () => {
    fake = await startFake((s, req) => (req.n === 0 ? reply(s, 502, BUSY) : reply(s, 200, OK_LIST)));
    const r = await run(['keys', 'list', '-q'], fake.url);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(fake.requests).toHaveLength(2);
  });

  it('a GET that keeps failing stops after --retries extra attempts with the last error', async () => {
    fake = await startFake((s) => reply(s, 504, BUSY));
    const r = await run(['keys', 'list'], fake.url);
    expect(r.code).toBe(1);
    expect(fake.requests).toHaveLength(3);
    expect(r.stderr).toMatch(/retry 1\/2 in .*\n.*retry 2\/2 in .*\nlic: busy \(HTTP 504, code 14, GET \/v1\/api-keys\)\n$/);
  });

  it('--retries 0, LIC_RETRIES=1, and a bad value of each (exit 2, nothing sent)', async () => {
    fake = await startFake((s) => reply(s, 503, BUSY));
    expect((await run(['keys', 'list', '--retries', '0'], fake.url)).code).toBe(1);
    expect(fake.requests).toHaveLength(1);
    expect((await run(['keys', 'list'], fake.url, { env: { LIC_RETRIES: '1' } })).code).toBe(1);
    expect(fake.requests).toHaveLength(3);
    const flag = await run(['keys', 'list', '--retries', 'many'], fake.url);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("option '--retries <n>' argument 'many' is invalid. expected an integer 0..10");
    const env = await run(['keys', 'list'], fake.url, { env: { LIC_RETRIES: '-1' } });
    expect(env.code).toBe(2);
    expect(env.stderr).toBe('lic: LIC_RETRIES is invalid: expected an integer 0..10 (extra attempts after the first).\n');
    expect(fake.requests).toHaveLength(3);
  });

  it('PUT is retried on 503 (an update repeated is the same update)', async () => {
    fake = await startFake((s, req) => (req.n === 0 ? reply(s, 503, BUSY) : reply(s, 200, JSON.stringify({ success: true }))));
    const r = await run(['keys', 'update', '3', '--name', 'x'], fake.url);
    expect(r.code, r.stderr).toBe(0);
    expect(fake.requests.map((q) => q.method)).toEqual(['PUT', 'PUT']);
  });

  it('a POST is never retried once sent: a reset after reading it → exactly one request, exit 5', async () => {
    fake = await startFake((s) => s.resetAndDestroy());
    const r = await run(['keys', 'create', '--perm', '1'], fake.url);
    expect(r.code).toBe(5);
    expect(fake.requests.map((q) => q.method)).toEqual(['POST']);
    expect(r.waits).toEqual([]);
    expect(r.stderr).not.toContain('retry');
  });

  it('POST and DELETE answered 503 are not retried', async () => {
    fake = await startFake((s) => reply(s, 503, BUSY));
    expect((await run(['keys', 'create', '--perm', '7'], fake.url)).code).toBe(1);
    expect((await run(['keys', 'delete', '4', '--yes'], fake.url)).code).toBe(1);
    expect(fake.requests.map((q) => q.method)).toEqual(['POST', 'DELETE']);
  });

  it('POST and DELETE are retried on connection refused (nothing reached the service)', async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}`;
    for (const args of [
      ['keys', 'create', '--perm', '1'],
      ['keys', 'delete', '4', '--yes'],
    ]) {
      const r = await run(args, url);
      expect(r.code).toBe(5);
      expect(r.waits).toHaveLength(2);
      expect(r.stderr).toMatch(
        new RegExp(
          `^lic: connection refused by ${url}, retry 1/2 in \\d\\.\\ds\\nlic: connection refused by ${url}, retry 2/2 in \\d\\.\\ds\\nlic: cannot connect to ${url}: connection refused`,
        ),
      );
    }
  });

  it('a 401 is never retried', async () => {
    fake = await startFake((s) => reply(s, 401, JSON.stringify({ success: false, code: 16, message: 'unknown API key' })));
    const r = await run(['keys', 'list'], fake.url);
    expect(r.code).toBe(3);
    expect(fake.requests).toHaveLength(1);
  });
});

describe('Retry-After', () => {
  const at = new Date('2026-01-01T12:00:00Z');

  it('seconds: waits what the service asked', async () => {
    fake = await startFake((s, req) =>
      req.n === 0
        ? reply(s, 429, JSON.stringify({ success: false, code: 8, message: 'slow down' }), { 'retry-after': '3' })
        : reply(s, 200, OK_LIST),
    );
    const r = await run(['keys', 'list'], fake.url);
    expect(r.code, r.stderr).toBe(0);
    expect(r.waits).toEqual([3000]);
    expect(r.stderr.split('\n')[0]).toBe(`lic: 429 from ${fake.url}, retry 1/2 in 3.0s`);
  });

  it('an HTTP-date: waits until then, by the context clock', async () => {
    const when = new Date(at.getTime() + 7000).toUTCString();
    fake = await startFake((s, req) => (req.n === 0 ? reply(s, 503, BUSY, { 'retry-after': when }) : reply(s, 200, OK_LIST)));
    const r = await run(['keys', 'list'], fake.url, { now: () => at });
    expect(r.code, r.stderr).toBe(0);
    expect(r.waits).toEqual([7000]);
  });

  it('longer than the 10 s cap: no wait, fails at once saying when to retry', async () => {
    const when = new Date(at.getTime() + 90_000).toUTCString();
    fake = await startFake((s, req) =>
      reply(s, 429, JSON.stringify({ success: false, code: 8, message: 'slow down' }), { 'retry-after': req.n === 0 ? '120' : when }),
    );
    const a = await run(['keys', 'list'], fake.url);
    expect(a.code).toBe(1);
    expect(a.waits).toEqual([]);
    expect(a.stderr).toBe('lic: slow down; retry after 120 s (HTTP 429, code 8, GET /v1/api-keys)\n');
    const b = await run(['keys', 'list'], fake.url, { now: () => at });
    expect(b.stderr).toBe('lic: slow down; retry after 90 s (HTTP 429, code 8, GET /v1/api-keys)\n');
    expect(fake.requests).toHaveLength(2);
  });

  it('the failed-authentication lockout reads as such', async () => {
    fake = await startFake((s) =>
      reply(s, 429, JSON.stringify({ success: false, code: 8, message: 'too many failed authentication attempts' }), {
        'retry-after': '600',
      }),
    );
    const r = await run(['keys', 'create', '--perm', '1'], fake.url);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'lic: too many failed authentications from this address; retry after 600 s (HTTP 429, code 8, POST /v1/api-keys)\n',
    );
  });
});

describe('the per-attempt deadline (--timeout)', () => {
  /** Headers, then one byte of a 100 kB body every 20 ms: never idle long enough for an idle timeout. */
  const drip = () =>
    startFake((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{');
      const t = setInterval(() => (socket.destroyed ? clearInterval(t) : socket.write(' ')), 20);
      socket.on('close', () => clearInterval(t));
    });

  it('covers the whole body: a body that trickles in is cut at --timeout, each attempt', async () => {
    fake = await drip();
    const r = await run(['keys', 'list', '--timeout', '200ms', '--retries', '1'], fake.url);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(
      new RegExp(
        `lic: timed out waiting for ${fake.url}, retry 1/1 in \\d\\.\\ds\\nlic: timed out after 200ms waiting for ${fake.url} \\(--timeout\\)\\n$`,
      ),
    );
    expect(fake.requests).toHaveLength(2);
  });

  it('LIC_TIMEOUT takes a duration; LIC_TIMEOUT_MS still works (deprecated); bad values are exit 2', async () => {
    fake = await startFake(() => undefined);
    const a = await run(['keys', 'delete', '3', '--yes'], fake.url, { env: { LIC_TIMEOUT: '0.15s' } });
    expect(a.stderr).toBe(`lic: timed out after 150ms waiting for ${fake.url} (--timeout)\n`);
    expect(a.code).toBe(5);
    const b = await run(['keys', 'delete', '3', '--yes'], fake.url, { env: { LIC_TIMEOUT_MS: '120' } });
    expect(b.stderr).toBe(`lic: timed out after 120ms waiting for ${fake.url} (--timeout)\n`);
    const c = await run(['keys', 'list'], fake.url, { env: { LIC_TIMEOUT: 'soon' } });
    expect(c.code).toBe(2);
    expect(c.stderr).toBe('lic: LIC_TIMEOUT is invalid: expected a duration such as 500ms, 2s or 1m.\n');
    const d = await run(['keys', 'list', '--timeout', '0'], fake.url);
    expect(d.code).toBe(2);
    expect(fake.requests).toHaveLength(2);
  });

  it('timeout and retries saved with a profile are used; flags override them', async () => {
    fake = await startFake(() => undefined);
    const configDir = tempDir();
    const add = await runCli(
      ['profile', 'add', 'slow', '--base-url', fake.url, '--api-key-stdin', '--timeout', '100ms', '--retries', '0'],
      { configDir, stdin: KEY },
    );
    expect(add.code, add.stderr).toBe(0);
    const show = await runCli(['profile', 'show', '-o', 'json'], { configDir });
    expect(JSON.parse(show.stdout)).toMatchObject({ timeoutMs: 100, timeoutFrom: 'profile slow', retries: 0, retriesFrom: 'profile slow' });
    const r = await runCli(['keys', 'list'], { configDir });
    expect(r.stderr).toBe(`lic: timed out after 100ms waiting for ${fake.url} (--timeout)\n`);
    expect(fake.requests).toHaveLength(1);
    const waits: number[] = [];
    const f = await runCli(['keys', 'list', '--retries', '1', '--timeout', '120ms', '-q'], {
      configDir,
      sleep: async (ms) => void waits.push(ms),
    });
    expect(f.stderr).toBe(`lic: timed out after 120ms waiting for ${fake.url} (--timeout)\n`);
    expect(fake.requests).toHaveLength(3);
  });
});

describe('back-off', () => {
  it('doubles from 0.5 s, jittered to 50..100 %, capped at 10 s', async () => {
    fake = await startFake((s) => s.resetAndDestroy());
    const waits: number[] = [];
    const full = new ApiClient({
      baseUrl: fake.url,
      apiKey: KEY,
      userAgent: 'lic/test',
      retries: 6,
      random: () => 0.999999,
      sleep: async (ms) => void waits.push(ms),
    });
    await expect(full.request('GET', '/v1/log')).rejects.toBeInstanceOf(NetworkError);
    expect(waits).toEqual([500, 1000, 2000, 4000, 8000, 10000]);
    waits.length = 0;
    const half = new ApiClient({
      baseUrl: fake.url,
      apiKey: KEY,
      userAgent: 'lic/test',
      retries: 3,
      random: () => 0,
      sleep: async (ms) => void waits.push(ms),
    });
    await expect(half.request('GET', '/v1/log')).rejects.toBeInstanceOf(NetworkError);
    expect(waits).toEqual([250, 500, 1000]);
    expect(fake.requests).toHaveLength(7 + 4);
  });
});

describe('abandoned requests (a page fetched ahead that is no longer wanted)', () => {
  /** A client whose notices and waits are recorded; the fake never answers, so the request stays in flight. */
  async function silentFake() {
    fake = await startFake(() => undefined);
    const notices: string[] = [];
    const c = new ApiClient({
      baseUrl: fake.url,
      apiKey: KEY,
      userAgent: 'lic/test',
      retries: 2,
      notice: (l) => notices.push(l),
      sleep: async () => {},
    });
    return { c, notices, f: fake };
  }
  const until = async (cond: () => boolean) => {
    for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  };

  it('its signal aborting: RequestAbortedError at once, no retry, no notice', async () => {
    const { c, notices, f } = await silentFake();
    const ac = new AbortController();
    const p = c.request('GET', '/v1/api-keys', { signal: ac.signal });
    await until(() => f.requests.length === 1);
    ac.abort();
    await expect(p).rejects.toBeInstanceOf(RequestAbortedError);
    await new Promise((r) => setTimeout(r, 50));
    expect(f.requests).toHaveLength(1);
    expect(notices).toEqual([]);
    await c.close();
  });

  it('an already aborted signal sends nothing', async () => {
    const { c, f } = await silentFake();
    await expect(c.request('GET', '/v1/api-keys', { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(RequestAbortedError);
    expect(f.requests).toHaveLength(0);
    await c.close();
  });

  it('close() with a request in flight: the request is abandoned, not retried on a new connection, no notice', async () => {
    const { c, notices, f } = await silentFake();
    const p = c.request('GET', '/v1/api-keys');
    p.catch(() => undefined);
    await until(() => f.requests.length === 1);
    await c.close();
    await expect(p).rejects.toBeInstanceOf(RequestAbortedError);
    await new Promise((r) => setTimeout(r, 50));
    expect(f.requests).toHaveLength(1);
    expect(notices).toEqual([]);
  });
});
