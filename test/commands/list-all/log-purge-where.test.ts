/** `lic log purge --where` with the date flags, and the counted confirmation on a terminal. */
import { beforeEach, afterEach, describe, expect, it } from 'vitest';
import { purgeCriteria } from '../../../src/commands/log/purge.js';
import { envFor, runCli } from '../../helpers/cli.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { insertLog } from '../../cli/list/harness.js';

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

describe('log purge --where', () => {
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
