/**
 * `lic log purge` in-process against the real service on a clock the test moves (contract
 * §6): --all, --id, --before, --since/--until, --where and the counted confirmation, the
 * confirmation off and on a terminal, who may purge, and its --dry-run (a count, no delete).
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { purgeCriteria } from '../../../src/commands/log/purge.js';
import { envFor, runCli, tempDir } from '../../helpers/cli.js';
import { useDryRun } from '../../helpers/dry-run.js';
import { reply, startFake } from '../../helpers/fake-server.js';
import { useService } from '../../helpers/fixtures.js';
import { http, startTestService, type TestService } from '../../helpers/service.js';
import { insertLog } from '../../cli/list/harness.js';
import { H, T0, clockedService, entries, lic } from './_shared.js';

/** a service for the dry runs, behind a recording proxy; one write made, so its log has entry 1 */
const dry = useService().svc;
const { proxy, dryRun, logTotal } = useDryRun(dry);
beforeAll(async () => {
  const made = await http(dry, 'POST', '/v1/api-keys', { key: dry.adminKey, body: { apiKey: { permissions: 1, name: 'victim' } } });
  expect(made.status).toBe(200);
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

describe('log purge --where', () => {
  let svc: TestService;
  let env: Record<string, string>;
  const count = (where: string, ...params: unknown[]): number =>
    svc.db
      .prepare(`SELECT count(*) FROM log WHERE ${where}`)
      .pluck()
      .get(...params) as number;
  const requests = (stderr: string): string[] =>
    [...stderr.matchAll(/^> (GET|DELETE) (\S+)/gm)].map((m) => `${m[1]} ${new URL(m[2]!).search}`);
  const CUT = '2025-01-01T00:30:00Z';
  const CUT_MS = Date.parse(CUT);

  beforeEach(async () => {
    svc = await startTestService();
    env = envFor(svc, svc.adminKey);
    insertLog(svc.db, 3600); // one an second from 2025-01-01T00:00:00Z, levels cycling
  });
  afterEach(async () => {
    await svc?.close();
  });

  it('on a terminal: counts first, says how many in the question, then deletes exactly those', async () => {
    const matching = count("level = 'Debug' AND time_stamp < ?", CUT_MS);
    const total = count('1');
    expect(matching).toBe(300);
    const r = await runCli(['log', 'purge', '--where', 'Level = "Debug"', '--before', CUT, '--verbose', '--no-color'], {
      env,
      tty: true,
      confirm: [true],
    });
    expect(r.code).toBe(0);
    expect(r.prompts).toHaveLength(1);
    expect(r.prompts[0]).toContain(`delete 300 log entries before 2025-01-01T00:30:00.000Z matching Level = "Debug"`);
    expect(r.stdout).toMatch(/deletedLogCount\s+300/);
    expect(count("level = 'Debug' AND time_stamp < ?", CUT_MS)).toBe(0);
    // the rest is still there, plus the purge's two audit entries: before it starts and after (contract §6)
    expect(count('1')).toBe(total - 300 + 2);
    // the count asked with the same criteria and take=0
    const [get, del] = requests(r.stderr);
    expect(get).toMatch(/^GET \?/);
    const q = new URLSearchParams(get!.slice(4));
    expect([q.get('filter'), q.get('endDate'), q.get('take')]).toEqual(['Level = "Debug"', '2025-01-01T00:30:00.000Z', '0']);
    expect(new URLSearchParams(del!.slice(7)).get('filter')).toBe('Level = "Debug"');
  });

  it('thousands are grouped in the question: "delete 1,800 log entries"', async () => {
    const r = await runCli(['log', 'purge', '--since', CUT], { env, tty: true, confirm: [false] });
    expect(r.prompts[0]).toContain('delete 1,800 log entries from 2025-01-01T00:30:00.000Z');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/nothing was changed/);
    expect(count('1')).toBe(3600);
  });

  it('--all on a terminal says how many go', async () => {
    const r = await runCli(['log', 'purge', '--all'], { env, tty: true, confirm: [false] });
    expect(r.prompts[0]).toContain('delete ALL 3,600 log entries');
    expect(count('1')).toBe(3600);
  });

  it('off a terminal: refuses without --yes, and asks the service nothing', async () => {
    const r = await runCli(['log', 'purge', '--where', 'Level = "Debug"', '--verbose'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/pass --yes/);
    expect(requests(r.stderr)).toEqual([]);
    expect(count('1')).toBe(3600);
  });

  it('--yes: no count request, just the DELETE with filter and dates AND-ed by the service', async () => {
    const r = await runCli(
      [
        'log',
        'purge',
        '--where',
        'Level = "Error" or Level = "Fatal"',
        '--since',
        '2025-01-01T00:10:00Z',
        '--until',
        CUT,
        '--yes',
        '--verbose',
        '-o',
        'json',
      ],
      { env },
    );
    expect(r.code).toBe(0);
    const reqs = requests(r.stderr);
    expect(reqs).toHaveLength(1);
    expect(reqs[0]).toMatch(/^DELETE /);
    expect(JSON.parse(r.stdout).deletedLogCount).toBe(400);
    expect(
      count("(level = 'Error' OR level = 'Fatal') AND time_stamp >= ? AND time_stamp < ?", Date.parse('2025-01-01T00:10:00Z'), CUT_MS),
    ).toBe(0);
  });

  it('nothing matching: says so, no question, nothing deleted', async () => {
    const r = await runCli(['log', 'purge', '--where', 'Message.Contains("no such text")'], { env, tty: true });
    expect(r.code).toBe(0);
    expect(r.prompts).toEqual([]);
    expect(r.stderr).toMatch(/No log entries match/);
    expect(count('1')).toBe(3600);
  });

  it("a bad --where fails at the count with the service's message (exit 1), nothing deleted", async () => {
    const r = await runCli(['log', 'purge', '--where', 'Color = "red"'], { env, tty: true });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/HTTP 400/);
    expect(r.prompts).toEqual([]);
    expect(count('1')).toBe(3600);
  });

  it('--where cannot be combined with --id or --all; an empty --where is refused', () => {
    expect(() => purgeCriteria({ where: 'Id > 1', id: 3 })).toThrow(/choose one of --all, --id, or the filter\/date flags/);
    expect(() => purgeCriteria({ where: 'Id > 1', all: true })).toThrow(/choose one/);
    expect(() => purgeCriteria({ where: '  ' })).toThrow(/--where needs a filter expression/);
    expect(purgeCriteria({ where: 'Id > 1', before: CUT }, 1).what).toBe(`delete 1 log entry before ${CUT} matching Id > 1`);
  });
});

describe('--dry-run prints the request and sends no write', () => {
  it('log purge: counts with a GET take=0 and prints wouldDelete; nothing is deleted', async () => {
    const total = await logTotal();
    const { plan, sent } = await dryRun(['log', 'purge', '--all', '--dry-run']);
    expect(plan).toMatchObject({ method: 'DELETE', url: `${proxy.url}/v1/log?deleteAll=true`, wouldDelete: total, body: null });
    expect(sent).toEqual(['GET /v1/log?take=0']);
    const until = await dryRun(['log', 'purge', '--before', '2000-01-01', '--dry-run']);
    expect(until.plan).toMatchObject({ url: `${proxy.url}/v1/log?endDate=2000-01-01T00%3A00%3A00.000Z`, wouldDelete: 0 });
    const one = await dryRun(['log', 'purge', '--id', '1', '--dry-run']);
    expect(one.plan).toMatchObject({ url: `${proxy.url}/v1/log?id=1`, wouldDelete: 1 });
  });
});

describe('a dry run validates like the real run', () => {
  it('--verbose traces only the GET it really sends, with the key redacted', async () => {
    const r = await dryRun(['log', 'purge', '--all', '--dry-run', '-v']);
    expect(r.stderr).toMatch(/^> GET .*\/v1\/log\?take=0 \(x-api-key: \[redacted\]\)$/m);
    expect(r.stderr).not.toMatch(/^> DELETE/m);
  });
});

describe('--dry-run against any service implementing the API', () => {
  it('log purge: a count reply that omits the total (default values left out) is wouldDelete 0; the fake gets only the GET', async () => {
    const fake = await startFake((socket) => reply(socket, 200, '{}'));
    try {
      const r = await runCli(['log', 'purge', '--since', '2025-01-01', '--dry-run'], {
        env: { LIC_BASE_URL: fake.url, LIC_API_KEY: 'api_abcdefghijklmnopqrstuvwx' },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ method: 'DELETE', wouldDelete: 0, headers: { 'x-api-key': 'api_abcd…' } });
      expect(fake.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['GET /v1/log?startDate=2025-01-01T00%3A00%3A00.000Z&take=0']);
    } finally {
      await fake.close();
    }
  });
});
