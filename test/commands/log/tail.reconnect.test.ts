/**
 * `lic log tail -f` when the service goes away and comes back (a real service restarted
 * on the same port over the same database file), when an API error ends it, and against
 * a socket-level fake that ignores the `Id > lastSeen` filter (pages must move forward).
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startService, openDatabase, type RunningService } from '../../../src/server/index.js';
import { writeLog } from '../../../src/server/log-writer.js';
import { TAIL_RECONNECT_FIRST_MS, reconnectDelay } from '../../../src/commands/log/tail.js';
import { envFor, tempDir } from '../../helpers/cli.js';
import { reply, startFake, type Fake } from '../../helpers/fake-server.js';
import { startTestService } from '../../helpers/service.js';
import { testContext, runIn, type TestContext } from '../../helpers/context.js';
import { insertLog, until } from '../../cli/list/harness.js';
import { ndjson as ndjsonOf } from '../../helpers/fixtures.js';

const ndjson = (out: string) => ndjsonOf<{ id: number; message: string }>(out);

/** Replaces the test context's sleep with a fast one that records every wait asked for, ms. */
function fastSleep(h: TestContext): number[] {
  const asked: number[] = [];
  const real = h.ctx.sleep;
  h.ctx.sleep = (ms, signal) => {
    asked.push(ms);
    return real(Math.min(ms, 5), signal);
  };
  return asked;
}

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

describe('log tail -f: reconnect', () => {
  it('backoff doubles from 0.5 s and stops growing at 30 s', () => {
    expect([0, 1, 2, 3].map(reconnectDelay)).toEqual([500, 1000, 2000, 4000]);
    expect(reconnectDelay(6)).toBe(30_000);
    expect(reconnectDelay(1000)).toBe(30_000);
  });

  it('the service restarts on the same port and database: says so, reconnects, prints what was written while down, nothing twice', async () => {
    const dbPath = join(tempDir('lic-tail-restart-'), 'lic.db');
    let svc: RunningService = await startService({ dbPath, port: 0 });
    const key = svc.issuedKeys[0]!.key;
    const port = Number(new URL(svc.url).port);
    insertLog(svc.db, 5);
    const h = testContext({ env: envFor(svc, key) });
    const asked = fastSleep(h);
    const run = runIn(h, ['log', 'tail', '-f', '--retries', '0', '--interval', '20ms', '-n', '3', '-o', 'ndjson']);
    const printed = () => ndjson(h.stdout()).map((e) => e.id);
    try {
      await until(() => printed().length === 3, 10_000, 'the first 3 lines');
      const expected = [...printed()];
      for (let i = 0; i < 2; i++) expected.push(writeLog(svc.db, new Date(), 'Information', 'before {N}', { N: i }));
      await until(() => printed().length === 5, 10_000, 'the entries written before the restart');

      await svc.close();
      await until(
        () => /lost the service/.test(h.stderr()) && asked.filter((ms) => ms >= TAIL_RECONNECT_FIRST_MS).length >= 3,
        10_000,
        'a few reconnect attempts',
      );
      // written while the service is down, straight into its database file
      const db = openDatabase(dbPath);
      for (let i = 0; i < 2; i++) expected.push(writeLog(db, new Date(), 'Warning', 'while down {N}', { N: i }));
      db.close();

      svc = await startService({ dbPath, port });
      await until(() => printed().length === 7, 10_000, 'the entries written while down');
      for (let i = 0; i < 2; i++) expected.push(writeLog(svc.db, new Date(), 'Information', 'after {N}', { N: i }));
      await until(() => printed().length === 9, 10_000, 'the entries written after the restart');

      h.interrupt();
      expect(await run).toBe(130);
      expect(printed()).toEqual(expected);
      expect(new Set(printed()).size).toBe(9);
      // announced once, and once back; the waits grew while it was down
      expect(h.stderr().match(/lost the service at http:\/\/127\.0\.0\.1:\d+/g)).toHaveLength(1);
      expect(h.stderr()).toMatch(/reconnecting…/);
      expect(h.stderr().match(/is back; going on after log entry \d+/g)).toHaveLength(1);
      // --retries 0: the waits seen are the reconnect's own, not the client's retries of each GET
      const backoff = asked.filter((ms) => ms >= TAIL_RECONNECT_FIRST_MS);
      expect(backoff.slice(0, 3)).toEqual([500, 1000, 2000]);
      expect(h.stderr()).not.toContain(key);
    } finally {
      h.interrupt();
      await run.catch(() => undefined);
      await svc.close();
    }
  });

  it('with the default retries: one line when the service is lost, one when it is back, nothing per retry', async () => {
    const dbPath = join(tempDir('lic-tail-lines-'), 'lic.db');
    let svc: RunningService = await startService({ dbPath, port: 0 });
    const key = svc.issuedKeys[0]!.key;
    const port = Number(new URL(svc.url).port);
    const h = testContext({ env: envFor(svc, key) });
    const asked = fastSleep(h);
    // no --retries: each GET may be retried twice by the client, which used to print a line per retry
    const run = runIn(h, ['log', 'tail', '-f', '--interval', '20ms', '-n', '0', '-o', 'ndjson']);
    try {
      await until(() => asked.length > 0, 10_000, 'the first poll');
      await svc.close();
      await until(() => asked.filter((ms) => ms >= TAIL_RECONNECT_FIRST_MS).length >= 6, 10_000, 'six reconnect attempts');
      svc = await startService({ dbPath, port });
      const id = writeLog(svc.db, new Date(), 'Information', 'back again', {});
      await until(() => ndjson(h.stdout()).length === 1, 10_000, 'the entry written after the restart');
      h.interrupt();
      expect(await run).toBe(130);
      expect(ndjson(h.stdout()).map((e) => e.id)).toEqual([id]);
      const lines = h.stderr().trimEnd().split('\n');
      expect(lines).toEqual([
        `lic: lost the service at ${svc.url}, reconnecting…`,
        `lic: the service at ${svc.url} is back`,
        'lic: interrupted',
      ]);
      // while it was away, each attempt was one request: the waits are the reconnect's own (0.5 s, 1 s, 2 s…), no client retry waits between them
      const afterLoss = asked.slice(asked.findIndex((ms) => ms === TAIL_RECONNECT_FIRST_MS));
      const backoff = afterLoss.filter((ms) => ms !== 20);
      expect(backoff.slice(0, 5)).toEqual([0, 1, 2, 3, 4].map(reconnectDelay));
    } finally {
      h.interrupt();
      await run.catch(() => undefined);
      await svc.close();
    }
  });

  it('-q: reconnects without a word', async () => {
    const dbPath = join(tempDir('lic-tail-quiet-'), 'lic.db');
    let svc: RunningService = await startService({ dbPath, port: 0 });
    const key = svc.issuedKeys[0]!.key;
    const port = Number(new URL(svc.url).port);
    const h = testContext({ env: envFor(svc, key) });
    const asked = fastSleep(h);
    const run = runIn(h, ['log', 'tail', '-f', '--retries', '0', '-q', '--interval', '20ms', '-n', '0', '-o', 'ndjson']);
    try {
      await until(() => asked.length > 0, 10_000, 'the first poll');
      await svc.close();
      await until(() => asked.some((ms) => ms >= TAIL_RECONNECT_FIRST_MS), 10_000, 'a reconnect attempt');
      svc = await startService({ dbPath, port });
      const id = writeLog(svc.db, new Date(), 'Error', 'quietly back', {});
      await until(() => ndjson(h.stdout()).length === 1, 10_000, 'the new entry');
      h.interrupt();
      expect(await run).toBe(130);
      expect(ndjson(h.stdout()).map((e) => e.id)).toEqual([id]);
      expect(h.stderr()).not.toMatch(/lost the service|is back/);
    } finally {
      h.interrupt();
      await run.catch(() => undefined);
      await svc.close();
    }
  });

  it('Ctrl-C while the service is down ends the backoff wait: exit 130', async () => {
    const svc = await startTestService();
    const h = testContext({ env: envFor(svc, svc.adminKey) });
    const asked = fastSleep(h);
    const run = runIn(h, ['log', 'tail', '-f', '--retries', '0', '--interval', '20ms', '-n', '1', '-o', 'ndjson']);
    await until(() => asked.length > 0, 10_000, 'the first poll');
    await svc.close();
    await until(() => /lost the service/.test(h.stderr()), 10_000, 'the lost-service note');
    // from now on every wait is a long one, as a real backoff would be
    h.ctx.sleep = (_ms, signal) => new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }));
    await until(() => h.interruptHandlers() === 1, 10_000, 'the interrupt handler');
    await new Promise((r) => setTimeout(r, 50));
    h.interrupt();
    expect(await run).toBe(130);
    expect(h.stderr()).toMatch(/interrupted/);
  });

  it('an API error (the key deleted: 401) still ends it, exit 3, no reconnecting', async () => {
    const svc = await startTestService();
    open.push(svc);
    const h = testContext({ env: envFor(svc, svc.adminKey) });
    const asked = fastSleep(h);
    const run = runIn(h, ['log', 'tail', '-f', '--retries', '0', '--interval', '20ms', '-n', '1', '-o', 'ndjson']);
    await until(() => asked.length > 0, 10_000, 'the first poll');
    svc.db.prepare('DELETE FROM api_keys').run();
    expect(await run).toBe(3);
    expect(h.stderr()).not.toMatch(/reconnecting/);
    expect(asked.every((ms) => ms === 20)).toBe(true);
  });
});

describe('log tail: pages must move forward', () => {
  let fake: Fake | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  /** A service that ignores filter and sort: always the same three entries. */
  const ignoring = () =>
    startFake((s) =>
      reply(
        s,
        200,
        JSON.stringify({
          logEntries: [3, 2, 1].map((id) => ({ id, timeStamp: '2025-01-01T00:00:00Z', level: 'Information', message: `entry ${id}` })),
        }),
      ),
    );

  it('--follow: a page with ids not after the last one seen ends it, exit 1, nothing printed twice', async () => {
    fake = await ignoring();
    const h = testContext({ env: { LIC_BASE_URL: fake.url, LIC_API_KEY: 'api_fakekey0123456789' } });
    fastSleep(h);
    const code = await runIn(h, ['log', 'tail', '-f', '--retries', '0', '--interval', '10ms', '-n', '3', '-o', 'ndjson']);
    expect(code).toBe(1);
    expect(ndjson(h.stdout()).map((e) => e.id)).toEqual([1, 2, 3]);
    expect(h.stderr()).toMatch(/answered "Id > 3, sort=Id asc" with log entry 3 after 3: it ignores the filter or the sort/);
    expect(h.stderr().trim().split('\n')).toHaveLength(1);
    expect(h.stderr()).not.toMatch(/\n\s+at /);
  });

  it('paging back (-n beyond a page): a page that does not go back ends it, exit 1', async () => {
    fake = await startFake((s, req) => {
      // a full page of the newest 1000 ids, whatever was asked
      const entries = Array.from({ length: 1000 }, (_, i) => ({ id: 2000 - i, level: 'Information', message: `entry ${2000 - i}` }));
      void req;
      reply(s, 200, JSON.stringify({ logEntries: entries }));
    });
    const h = testContext({ env: { LIC_BASE_URL: fake.url, LIC_API_KEY: 'api_fakekey0123456789' } });
    const code = await runIn(h, ['log', 'tail', '-n', '1500', '-o', 'ndjson']);
    expect(code).toBe(1);
    expect(h.stdout()).toBe('');
    expect(h.stderr()).toMatch(/answered "Id < 1001, sort=Id desc" with log entry 2000 after 1001/);
    expect(fake.requests).toHaveLength(2);
  });
});
