/**
 * Slow clients: thousands of connections on loopback each send half a request line and then
 * nothing, as a slowloris attack does. With the service's default timeouts (10 s for the
 * request line and headers) every one of them gets a 408 in the envelope and is closed, the
 * service's file descriptors come back, and real requests sent meanwhile are answered as
 * usual. The count is bounded by the open-file limit (both ends of every connection live in
 * this process).
 */
import { readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConnectionLimits } from '../../src/server/app.js';
import { startService, type RunningService } from '../../src/server/index.js';
import { tempDir } from '../helpers/temp.js';
import { histogram, recordFigures } from './figures.js';

const limits = defaultConnectionLimits();
/** Half-sent requests at once: 3,000, fewer when the connection cap (from the open-file limit) is lower. */
const SLOW = Math.min(3000, limits.maxConnections - 16);
const REAL = 40;

let svc: RunningService;
let key = '';
beforeAll(async () => {
  svc = await startService({
    dbPath: join(tempDir('lic-slow-tier-'), 'lic.db'),
    port: 0,
    authFailLimit: { limit: 0, windowMs: 60_000 },
    secretKey: Buffer.alloc(32, 4).toString('base64'),
  });
  key = svc.issuedKeys[0]!.key;
});
afterAll(() => svc.close());

const fds = () => readdirSync('/proc/self/fd').length;
const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

interface Slow {
  status: number | undefined;
  closedMs: number;
}

/** Opens a connection, sends half a request line, and resolves with what the server answered and when it closed. */
function slowClient(port: number, t0: number): { opened: Promise<void>; done: Promise<Slow> } {
  let text = '';
  let s: Socket;
  const opened = new Promise<void>((resolve, reject) => {
    s = connect(port, '127.0.0.1', () => {
      s.write('GET /v1/resources?ta');
      resolve();
    });
    s.once('error', reject);
  });
  const done = opened.then(
    () =>
      new Promise<Slow>((resolve) => {
        s.on('data', (d) => (text += d.toString('latin1')));
        s.on('error', () => {});
        s.on('close', () => {
          const m = /^HTTP\/1\.1 (\d{3}) /.exec(text);
          // the envelope's code must be 4 (DEADLINE_EXCEEDED) for a 408 to count as one
          const ok = m && (m[1] !== '408' || /"code":4\b/.test(text));
          resolve({ status: ok ? Number(m[1]) : undefined, closedMs: performance.now() - t0 });
        });
      }),
  );
  return { opened, done };
}

describe('slow clients', () => {
  it(`${SLOW} half-sent requests: each gets 408 and is closed; real requests are answered meanwhile`, async () => {
    const port = Number(new URL(svc.url).port);
    const pool = new Pool(svc.url, { connections: 1 });
    const real = async () => {
      const t = performance.now();
      const r = await pool.request({ method: 'GET', path: '/v1/resources?take=10', headers: { 'x-api-key': key } });
      await r.body.dump();
      return { status: r.statusCode, ms: performance.now() - t };
    };
    // a few before, as a baseline
    const before: number[] = [];
    for (let i = 0; i < 10; i++) before.push((await real()).ms);
    const fdsBefore = fds();

    const t0 = performance.now();
    const clients: ReturnType<typeof slowClient>[] = [];
    // opened in batches of 200, so the listen backlog never overflows
    for (let i = 0; i < SLOW; i += 200) {
      const batch = Array.from({ length: Math.min(200, SLOW - i) }, () => slowClient(port, t0));
      await Promise.all(batch.map((c) => c.opened));
      clients.push(...batch);
    }
    const openedMs = performance.now() - t0;
    const fdsHeld = fds();

    // real requests while every slow one still hangs
    const during: { status: number; ms: number }[] = [];
    for (let i = 0; i < REAL; i++) during.push(await real());
    const realDoneMs = performance.now() - t0;

    // each must be answered and closed well within the headers timeout (Node's defaults left them open 60-90 s):
    // a generous bound, 30 s past the timeout, counted from when the last one was opened
    const boundMs = openedMs + limits.headersTimeoutMs + 30_000;
    const gaveUp = Symbol('gave up');
    let timer: NodeJS.Timeout | undefined;
    const slowOrNot = await Promise.race([
      Promise.all(clients.map((c) => c.done)),
      new Promise<typeof gaveUp>((r) => (timer = setTimeout(() => r(gaveUp), boundMs - (performance.now() - t0)))),
    ]);
    clearTimeout(timer);
    if (slowOrNot === gaveUp) throw new Error(`half-sent requests still open ${(boundMs / 1000).toFixed(0)} s after the first was opened`);
    const slow = slowOrNot;
    const stillOpen = slow.filter((s) => s.closedMs > realDoneMs).length;
    const lastCloseMs = Math.max(...slow.map((s) => s.closedMs));
    const after: number[] = [];
    for (let i = 0; i < 10; i++) after.push((await real()).ms);
    await pool.close();
    // the server's side of each slow connection is gone (the client's too: it saw the close)
    await new Promise((r) => setTimeout(r, 200));
    const fdsAfter = fds();

    const statuses = histogram(slow.map((s) => s.status ?? 'none'));
    expect(statuses).toEqual({ '408': SLOW });
    expect(during.map((d) => d.status)).toEqual(Array(REAL).fill(200));
    // the real requests were answered while slow ones still hung
    expect(stillOpen).toBeGreaterThan(0);
    expect(fdsAfter).toBeLessThanOrEqual(fdsBefore + 16);

    const closed = slow.map((s) => s.closedMs / 1000);
    recordFigures(
      'slow-clients',
      `Slow clients: ${SLOW.toLocaleString('en-US')} connections each sending half a request line, at the default timeouts`,
      {
        'half-sent requests (connections held at once)': SLOW,
        'connection cap / headers timeout / request timeout': `${limits.maxConnections} / ${limits.headersTimeoutMs / 1000} s / ${limits.requestTimeoutMs / 1000} s`,
        'time to open them all (s)': (openedMs / 1000).toFixed(1),
        'their replies (408 in the envelope, code 4) then closed': slow.filter((s) => s.status === 408).length,
        'other replies or closes without a 408': SLOW - slow.filter((s) => s.status === 408).length,
        'closed after, first / median / last (s)': `${Math.min(...closed).toFixed(1)} / ${percentile(closed, 50).toFixed(1)} / ${(lastCloseMs / 1000).toFixed(1)}`,
        'real requests while they hung: answered 200 / sent': `${during.filter((d) => d.status === 200).length} / ${REAL}`,
        'half-sent requests still open when the real ones were done': stillOpen,
        'real request time before, median (ms)': percentile(before, 50).toFixed(1),
        'real request time while they hung, median / max (ms)': `${percentile(
          during.map((d) => d.ms),
          50,
        ).toFixed(1)} / ${Math.max(...during.map((d) => d.ms)).toFixed(1)}`,
        'real request time after, median (ms)': percentile(after, 50).toFixed(1),
        'open file descriptors of the process (both ends): before / held / after': `${fdsBefore} / ${fdsHeld} / ${fdsAfter}`,
      },
    );
  });
});
