/**
 * `lic log list|purge` in-process against the real service (contract §6): filters and
 * order, the audit trail every write leaves, purges and their confirmation.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { envFor, runCli, tempDir, type RunOptions } from '../../helpers/cli.js';
import { http, startTestService, type TestService } from '../../helpers/service.js';

const T0 = Date.parse('2025-01-18T10:00:00.000Z');
const H = 3_600_000;

/** A service on a clock the test moves. */
async function clockedService() {
  const clock = { t: T0 };
  const svc = await startTestService({ now: () => new Date(clock.t) });
  return { svc, clock };
}

interface Entry {
  id: number;
  message: string;
  messageTemplate: string;
  level: string;
  timeStamp: string;
  exception: string;
  properties: string;
}

async function entries(svc: TestService, query = ''): Promise<Entry[]> {
  const r = await http(svc, 'GET', `/v1/log?take=1000${query}`, { key: svc.adminKey });
  expect(r.status).toBe(200);
  return r.body.logEntries;
}

const lic = (svc: TestService, args: string[], o: RunOptions = {}) =>
  runCli(args, { ...o, env: { ...envFor(svc, svc.adminKey), ...o.env } });

describe('log list', () => {
  let svc: TestService;
  let clock: { t: number };
  let keyIds: number[];
  beforeAll(async () => {
    ({ svc, clock } = await clockedService());
    keyIds = [];
    // three writes an hour apart (10:00, 11:00, 12:00), then a failed authentication at 13:00
    for (let i = 0; i < 3; i++) {
      clock.t = T0 + i * H;
      const r = await lic(svc, ['keys', 'create', '--perm', '1', '--name', `k${i}`, '-o', 'json']);
      keyIds.push(JSON.parse(r.stdout).apiKeyId);
    }
    clock.t = T0 + 3 * H;
    expect((await lic(svc, ['keys', 'list'], { env: { LIC_API_KEY: 'api_000000000000000000000000' } })).code).toBe(3);
  });
  afterAll(() => svc.close());

  it('newest first, tab-separated when piped: id, time, level, message', async () => {
    const r = await lic(svc, ['log', 'list']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toBe('4\t2025-01-18T13:00:00.000Z\tWarning\tAuthentication failed for GET /v1/api-keys: unknown API key');
    expect(lines[3]).toBe(`1\t2025-01-18T10:00:00.000Z\tInformation\tPOST /v1/api-keys by API key 1 of user admin, record ${keyIds[0]}`);
    expect(lines.map((l) => l.split('\t')[1])).toEqual(['13', '12', '11', '10'].map((h) => `2025-01-18T${h}:00:00.000Z`));
  });

  it('entries with the same time stamp: higher id first', async () => {
    const { svc: s2 } = await clockedService();
    try {
      for (let i = 0; i < 3; i++) await lic(s2, ['keys', 'create', '--perm', '1']);
      const r = await lic(s2, ['log', 'list']);
      expect(
        r.stdout
          .trimEnd()
          .split('\n')
          .map((l) => l.split('\t')[0]),
      ).toEqual(['3', '2', '1']);
    } finally {
      await s2.close();
    }
  });

  it.each(['Warning', 'warning', 'WARNING'])('--level %s: only Warning entries', async (level) => {
    const r = await lic(svc, ['log', 'list', '--level', level, '-o', 'json']);
    const body = JSON.parse(r.stdout);
    expect(body.totalLogEntriesCount).toBe(1);
    expect(body.logEntries.map((e: Entry) => e.level)).toEqual(['Warning']);
  });

  it('--level Information: the three writes; --level Error: none (exit 0, empty output)', async () => {
    const info = await lic(svc, ['log', 'list', '--level', 'information']);
    expect(
      info.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split('\t')[0]),
    ).toEqual(['3', '2', '1']);
    const err = await lic(svc, ['log', 'list', '--level', 'Error']);
    expect(err.code).toBe(0);
    expect(err.stdout).toBe('');
  });

  it('--since is inclusive and --until exclusive', async () => {
    const ids = async (...flags: string[]) =>
      (await lic(svc, ['log', 'list', ...flags])).stdout
        .trimEnd()
        .split('\n')
        .filter(Boolean)
        .map((l) => Number(l.split('\t')[0]));
    expect(await ids('--since', '2025-01-18T11:00:00Z', '--until', '2025-01-18T12:00:00Z')).toEqual([2]);
    expect(await ids('--since', '2025-01-18T11:00:00.001Z')).toEqual([4, 3]);
    expect(await ids('--until', '2025-01-18T11:00:00.001Z')).toEqual([2, 1]);
    expect(await ids('--since', '2025-01-18T12:00:00+01:00')).toEqual([4, 3, 2]);
    expect(await ids('--since', '2025-01-18', '--until', '2025-01-19')).toEqual([4, 3, 2, 1]);
    expect(await ids('--until', '2025-01-18')).toEqual([]);
  });

  it('relative --since counts back from the CLI clock', async () => {
    const now = () => new Date(T0 + 3 * H + 30 * 60_000); // 13:30
    const r = await lic(svc, ['log', 'list', '--since', '90m'], { now }); // from 12:00
    expect(
      r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split('\t')[0]),
    ).toEqual(['4', '3']);
    const d = await lic(svc, ['log', 'list', '--since', '1d'], { now });
    expect(d.stdout.trimEnd().split('\n')).toHaveLength(4);
  });

  it('--take and --skip page the newest-first order; the total ignores paging', async () => {
    const r = await lic(svc, ['log', 'list', '--take', '2', '--skip', '1', '-o', 'json']);
    const body = JSON.parse(r.stdout);
    expect(body.logEntries.map((e: Entry) => e.id)).toEqual([3, 2]);
    expect(body.totalLogEntriesCount).toBe(4);
    const zero = JSON.parse((await lic(svc, ['log', 'list', '--take', '0', '-o', 'json'])).stdout);
    expect(zero.logEntries).toEqual([]);
    expect(zero.totalLogEntriesCount).toBe(4);
  });

  it('-o json prints the body exactly as the service sent it', async () => {
    const r = await lic(svc, ['log', 'list', '-o', 'json']);
    const raw = await http(svc, 'GET', '/v1/log', { key: svc.adminKey });
    expect(r.stdout).toBe(`${JSON.stringify(raw.body)}\n`);
  });

  it('a LicenseManager or Sales key may read the log', async () => {
    const { addUserWithKey } = await import('../../helpers/service.js');
    for (const role of ['LicenseManager', 'Sales']) {
      const key = await addUserWithKey(svc, `reader-${role}`, role, 1);
      const r = await runCli(['log', 'list', '--level', 'Warning'], { env: envFor(svc, key) });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('Authentication failed');
    }
  });
});

describe('the audit trail (contract §6)', () => {
  let svc: TestService;
  let clock: { t: number };
  beforeEach(async () => {
    ({ svc, clock } = await clockedService());
  });
  afterEach(() => svc.close());

  it('one Information entry per successful POST, PUT and DELETE, naming key id and owner, never the secret', async () => {
    const made = JSON.parse((await lic(svc, ['keys', 'create', '--perm', '3', '-o', 'json'])).stdout);
    clock.t += 1000;
    await lic(svc, ['keys', 'update', String(made.apiKeyId), '--name', 'renamed', '--revoke']);
    clock.t += 1000;
    await lic(svc, ['keys', 'delete', String(made.apiKeyId), '--yes']);
    const log = await entries(svc);
    expect(log.map((e) => e.message)).toEqual([
      `DELETE /v1/api-keys/${made.apiKeyId} by API key 1 of user admin, record ${made.apiKeyId}`,
      `PUT /v1/api-keys by API key 1 of user admin, record ${made.apiKeyId}`,
      `POST /v1/api-keys by API key 1 of user admin, record ${made.apiKeyId}`,
    ]);
    expect(log.every((e) => e.level === 'Information' && e.exception === '')).toBe(true);
    expect(log[2]!.messageTemplate).toBe('{Method} {Path} by API key {ApiKeyId} of user {OwnerId}, record {RecordId}');
    expect(JSON.parse(log[2]!.properties)).toEqual({
      Method: 'POST',
      Path: '/v1/api-keys',
      ApiKeyId: 1,
      OwnerId: 'admin',
      RecordId: made.apiKeyId,
    });
    expect(JSON.parse(log[1]!.properties)).toEqual({
      Method: 'PUT',
      Path: '/v1/api-keys',
      ApiKeyId: 1,
      OwnerId: 'admin',
      RecordId: made.apiKeyId,
      Changed: ['name', 'revoked'],
    });
    const all = JSON.stringify(log);
    expect(all).not.toContain(made.key);
    expect(all).not.toContain(svc.adminKey);
  });

  it('a write by another key names that key and its owner', async () => {
    const { addUserWithKey } = await import('../../helpers/service.js');
    const key = await addUserWithKey(svc, 'ops', 'Administrator', 7);
    const r = await runCli(['keys', 'create', '--perm', '1', '-o', 'json'], { env: envFor(svc, key) });
    const made = JSON.parse(r.stdout);
    const [e] = await entries(svc);
    expect(e!.message).toBe(`POST /v1/api-keys by API key 2 of user ops, record ${made.apiKeyId}`);
    expect(JSON.parse(e!.properties)).toMatchObject({ ApiKeyId: 2, OwnerId: 'ops' });
  });

  it('failed writes (400, 403, 404) leave no Information entry', async () => {
    const { addUserWithKey } = await import('../../helpers/service.js');
    const reader = await addUserWithKey(svc, 'reader', 'Administrator', 1);
    expect((await lic(svc, ['keys', 'create', '--perm', '1', '--owner', 'ghost'])).code).toBe(1);
    expect((await lic(svc, ['keys', 'update', '999', '--name', 'x'])).code).toBe(4);
    expect((await lic(svc, ['keys', 'delete', '999', '--yes'])).code).toBe(4);
    expect((await runCli(['keys', 'create', '--perm', '1'], { env: envFor(svc, reader) })).code).toBe(3);
    expect((await http(svc, 'POST', '/v1/api-keys', { key: svc.adminKey, rawBody: '{' })).status).toBe(400);
    expect(await entries(svc)).toEqual([]);
  });

  it.each([
    ['no key', undefined, 'missing x-api-key header'],
    ['an unknown key', 'api_000000000000000000000000', 'unknown API key'],
  ])('a failed authentication (%s) writes one Warning naming the reason, never the key', async (_w, key, reason) => {
    clock.t = T0 + 5000;
    const r = await http(svc, 'DELETE', '/v1/api-keys/7', key ? { key } : {});
    expect(r.status).toBe(401);
    const log = await entries(svc);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({
      level: 'Warning',
      message: `Authentication failed for DELETE /v1/api-keys/7: ${reason}`,
      messageTemplate: 'Authentication failed for {Method} {Path}: {Reason}',
      timeStamp: '2025-01-18T10:00:05.000Z',
    });
    expect(JSON.parse(log[0]!.properties)).toEqual({
      Method: 'DELETE',
      Path: '/v1/api-keys/7',
      Reason: reason,
      RemoteAddress: '127.0.0.1',
    });
    if (key) expect(JSON.stringify(log)).not.toContain(key);
  });

  it('revoked and expired keys are logged as Warnings too', async () => {
    const made = JSON.parse(
      (await lic(svc, ['keys', 'create', '--perm', '7', '--expires', '2025-01-18T11:00:00Z', '--force', '-o', 'json'])).stdout,
    );
    clock.t = T0 + 2 * H;
    expect((await runCli(['log', 'list'], { env: envFor(svc, made.key) })).code).toBe(3);
    const warnings = await entries(svc, `&filter=${encodeURIComponent('Level = "Warning"')}`);
    expect(warnings.map((e) => e.message)).toEqual(['Authentication failed for GET /v1/log: API key has expired']);
    expect(JSON.stringify(warnings)).not.toContain(made.key);
  });
});

describe('log purge', () => {
  let svc: TestService;
  let clock: { t: number };
  let configDir: string;
  beforeEach(async () => {
    ({ svc, clock } = await clockedService());
    // five entries at 10:00 .. 14:00 (ids 1..5)
    for (let i = 0; i < 5; i++) {
      clock.t = T0 + i * H;
      await lic(svc, ['keys', 'create', '--perm', '1']);
    }
    clock.t = T0 + 6 * H;
    configDir = tempDir();
    expect(
      (await runCli(['profile', 'add', 'ops', '--base-url', svc.url, '--api-key-stdin'], { configDir, stdin: svc.adminKey })).code,
    ).toBe(0);
  });
  afterEach(() => svc.close());
  const ids = async () => (await entries(svc)).map((e) => e.id);

  it("--all: prints deletedLogCount; afterwards only the purge's own entry is there", async () => {
    const r = await lic(svc, ['log', 'purge', '--all', '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('deletedLogCount\t5\n');
    const log = await entries(svc);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({
      level: 'Information',
      message: 'DELETE /v1/log by API key 1 of user admin: purged 5 log entries',
      timeStamp: '2025-01-18T16:00:00.000Z',
    });
    expect(JSON.parse(log[0]!.properties)).toMatchObject({
      Method: 'DELETE',
      Path: '/v1/log',
      ApiKeyId: 1,
      OwnerId: 'admin',
      DeletedLogCount: 5,
    });
  });

  it('--id: that one entry', async () => {
    const r = await lic(svc, ['log', 'purge', '--id', '3', '--yes', '-o', 'json']);
    expect(JSON.parse(r.stdout)).toEqual({ success: true, code: 0, message: 'OK', deletedLogCount: 1 });
    expect(await ids()).toEqual([6, 5, 4, 2, 1]);
    expect((await entries(svc))[0]!.message).toBe('DELETE /v1/log by API key 1 of user admin: purged 1 log entries');
  });

  it('--id of an entry that is not there deletes nothing', async () => {
    const r = await lic(svc, ['log', 'purge', '--id', '99', '--yes']);
    expect(r.stdout).toBe('deletedLogCount\t0\n');
    expect(await ids()).toEqual([6, 5, 4, 3, 2, 1]);
  });

  it('--before: everything older (exclusive), absolute or relative to the CLI clock', async () => {
    const r = await lic(svc, ['log', 'purge', '--before', '2025-01-18T12:00:00Z', '--yes']);
    expect(r.stdout).toBe('deletedLogCount\t2\n');
    // so few entries go in one transaction, which leaves one entry: "purged 2 …" (6)
    expect(await ids()).toEqual([6, 5, 4, 3]);
    // 16:00 - 3h = 13:00 → removes 12:00 (id 3), keeps 13:00 (id 4)
    const rel = await lic(svc, ['log', 'purge', '--before', '3h', '--yes'], { now: () => new Date(T0 + 6 * H) });
    expect(rel.stdout).toBe('deletedLogCount\t1\n');
    expect(await ids()).toEqual([7, 6, 5, 4]);
  });

  it('--since/--until: the range, start inclusive, end exclusive', async () => {
    const r = await lic(svc, ['log', 'purge', '--since', '2025-01-18T11:00:00Z', '--until', '2025-01-18T13:00:00Z', '--yes']);
    expect(r.stdout).toBe('deletedLogCount\t2\n');
    expect(await ids()).toEqual([6, 5, 4, 1]);
    const since = await lic(svc, ['log', 'purge', '--since', '2025-01-18T14:00:00Z', '--yes']);
    // 14:00 (id 5) and the first purge's entry at 16:00 (id 6); not its own (7), written after it began
    expect(since.stdout).toBe('deletedLogCount\t2\n');
    expect(await ids()).toEqual([7, 4, 1]);
  });

  it('no criterion, or conflicting ones: exit 2 and nothing deleted', async () => {
    for (const flags of [[], ['--all', '--id', '1'], ['--id', '1', '--since', '1d'], ['--before', '1d', '--until', '2d']]) {
      const r = await lic(svc, ['log', 'purge', ...flags, '--yes']);
      expect(r.code).toBe(2);
    }
    expect(await ids()).toEqual([5, 4, 3, 2, 1]);
  });

  it('off a TTY without --yes: exit 2, nothing deleted', async () => {
    const r = await runCli(['log', 'purge', '--all'], { configDir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('lic: refusing to delete ALL log entries without confirmation: not a terminal, so pass --yes\n');
    expect(await ids()).toEqual([5, 4, 3, 2, 1]);
  });

  it('on a TTY: the prompt names profile, host and what goes; yes purges', async () => {
    const r = await runCli(['log', 'purge', '--before', '2025-01-18T12:00:00Z'], {
      configDir,
      tty: true,
      confirm: [true],
      env: { NO_COLOR: '1' },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.prompts).toHaveLength(1);
    expect(r.prompts[0]).toMatch(/^delete (2 )?log entries before 2025-01-18T12:00:00\.000Z on /);
    expect(r.prompts[0]).toContain(` on ${new URL(svc.url).host} (profile ops)?`);
    expect(r.stdout).toBe('deletedLogCount  2\n');
    expect(await ids()).toEqual([6, 5, 4, 3]);
  });

  it.each([
    [['--all'], /^delete ALL (5 )?log entries on /],
    [['--id', '2'], /^delete log entry 2 on /],
    [
      ['--since', '2025-01-18T11:00:00Z', '--until', '2025-01-18T13:00:00Z'],
      /^delete (2 )?log entries from 2025-01-18T11:00:00\.000Z before 2025-01-18T13:00:00\.000Z on /,
    ],
  ])('on a TTY, answering no to %j: exit 1, nothing deleted', async (flags, what) => {
    const r = await runCli(['log', 'purge', ...flags], { configDir, tty: true, confirm: [false] });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('lic: cancelled: nothing was changed\n');
    expect(r.stdout).toBe('');
    expect(r.prompts).toHaveLength(1);
    expect(r.prompts[0]).toMatch(what);
    expect(r.prompts[0]).toContain(` on ${new URL(svc.url).host} (profile ops)?`);
    expect(await ids()).toEqual([5, 4, 3, 2, 1]);
  });

  it('a key without the Delete bit: exit 3, nothing deleted', async () => {
    const made = JSON.parse((await lic(svc, ['keys', 'create', '--perm', '3', '-o', 'json'])).stdout);
    const r = await runCli(['log', 'purge', '--all', '--yes'], { env: envFor(svc, made.key) });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('Delete (4)');
    expect((await ids()).length).toBe(6);
  });
});
