// Cross-cutting: bad flags and arguments of many verbs are usage errors with nothing sent; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/**
 * Options parsing per verb: every bad flag or argument is a usage error (exit 2)
 * naming the flag and the allowed forms, and nothing is sent. "Nothing sent" is proven two
 * ways: against a closed port (a sent request would be exit 5, not 2), and against the real
 * service, whose key list and log stay unchanged.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { envFor, runCli } from '../helpers/cli.js';
import { closedPort } from '../helpers/fake-server.js';
import { http } from '../helpers/service.js';
import { useService } from '../helpers/fixtures.js';

const PERM_FORMS = ['a number 0..7', 'letters from "rwd"', 'names "read,write,delete"'];
const ID_FORMS = ['1..2147483647'];
const TIME_FORMS = ['RFC 3339', 'a date (2025-01-18)', 'relative age'];

/** [argv, substrings stderr must hold] — each must exit 2 with nothing on stdout. */
const USAGE_CASES: [string[], string[]][] = [
  // keys create --perm
  [['keys', 'create'], ["required option '--perm <perm>' not specified"]],
  ...['8', '-1', 'rwx', 'rr', 'read,admin', '', '07', 'read,', 'constructor', '__proto__', 'toString', '1.0'].map(
    (v): [string[], string[]] => [
      ['keys', 'create', '--perm', v],
      [`option '--perm <perm>' argument '${v}' is invalid`, ...PERM_FORMS],
    ],
  ),
  [
    ['keys', 'create', '--perm', '7', '--expires', 'soon'],
    ["option '--expires <time>' argument 'soon' is invalid", '90d'],
  ],
  [['keys', 'create', '--perm', '7', '--expires', '2027-02-30'], ["option '--expires <time>' argument '2027-02-30' is invalid"]],
  // ids: positive int32, as an argument and as a flag
  ...['0', '-1', '2147483648', '1.5', 'abc', '1e3', '0x10'].flatMap((v): [string[], string[]][] => [
    [
      ['keys', 'delete', v, '--yes'],
      [`command-argument value '${v}' is invalid for argument 'id'`, ...ID_FORMS],
    ],
    [
      ['keys', 'update', v, '--name', 'x'],
      [`command-argument value '${v}' is invalid for argument 'id'`, ...ID_FORMS],
    ],
    [
      ['log', 'purge', '--id', v, '--yes'],
      [`option '--id <id>' argument '${v}' is invalid`, ...ID_FORMS],
    ],
  ]),
  // keys update
  [
    ['keys', 'update', '1'],
    ['nothing to change', '--perm', '--revoke'],
  ],
  [['keys', 'update', '1', '--revoke', '--unrevoke'], ['--revoke and --unrevoke cannot be used together']],
  [
    ['keys', 'update', '1', '--perm', '9'],
    ["option '--perm <perm>' argument '9' is invalid", ...PERM_FORMS],
  ],
  [
    ['keys', 'update', '1', '--expires', 'nevermore'],
    ["option '--expires <time>' argument 'nevermore' is invalid", 'or never to clear it'],
  ],
  // --expires in the past, without --force: keys create and update
  [
    ['keys', 'create', '--perm', '7', '--expires', '2020-01-01'],
    ['--expires 2020-01-01T00:00:00.000Z is in the past', '--force'],
  ],
  [
    ['keys', 'update', '1', '--expires', '2020-01-01T10:00:00Z'],
    ['--expires 2020-01-01T10:00:00.000Z is in the past', '--force'],
  ],
  // an unknown option is reported (with the nearest) before a missing required one
  [
    ['keys', 'create', '--prem', '7'],
    ["unknown option '--prem'", '(did you mean --perm?)'],
  ],
  [
    ['templates', 'show', '1', '--prodct', '1', '--release', '2'],
    ["unknown option '--prodct'", '(did you mean --product?)'],
  ],
  // conflicting output flags, and formats a verb can't print
  [['--json', '-o', 'csv', 'keys', 'list'], ['--json and --output csv conflict']],
  [['keys', 'list', '-o', 'tsv', '--json'], ['--json and --output tsv conflict']],
  [
    ['state', 'export', '-o', 'csv'],
    ["option '-o, --output <format>' argument 'csv' is invalid", 'Allowed choices are table, json.'],
  ],
  [['completion', 'bash', '-o', 'csv'], ["unknown option '-o'"]],
  [
    ['templates', 'show', '1', '--product', '1', '--release', '2', '-o', 'csv'],
    ["option '-o, --output <format>' argument 'csv' is invalid", 'Allowed choices are table, json.'],
  ],
  [
    ['api', '/v1/log', '-X', 'patch'],
    ["option '-X, --method <method>' argument 'patch' is invalid", 'Allowed choices are GET, POST, PUT, DELETE'],
  ],
  // --take / --skip
  ...['1001', '-1', 'abc', '1.5', ''].flatMap((v): [string[], string[]][] => [
    [
      ['keys', 'list', '--take', v],
      [`option '--take <n>' argument '${v}' is invalid`, '0..1000'],
    ],
    [
      ['log', 'list', '--take', v],
      [`option '--take <n>' argument '${v}' is invalid`, '0..1000'],
    ],
  ]),
  ...['-1', 'abc', '2147483648'].map((v): [string[], string[]] => [
    ['log', 'list', '--skip', v],
    [`option '--skip <n>' argument '${v}' is invalid`, '0..2147483647'],
  ]),
  // --since / --until
  ...['yesterday', '30x', '-5m', '2025-02-30', '2025-13-01', '2025-01-18T25:00:00Z', '2025-01-18T10:00:00', '18/01/2025', ''].flatMap(
    (v): [string[], string[]][] => [
      [
        ['log', 'list', '--since', v],
        [`option '--since <time>' argument '${v}' is invalid`, ...TIME_FORMS],
      ],
      [
        ['log', 'list', '--until', v],
        [`option '--until <time>' argument '${v}' is invalid`, ...TIME_FORMS],
      ],
      [
        ['log', 'purge', '--before', v, '--yes'],
        [`option '--before <time>' argument '${v}' is invalid`, ...TIME_FORMS],
      ],
    ],
  ),
  [['log', 'list', '--since', '2025-01-19', '--until', '2025-01-18'], ['--since must be earlier than --until']],
  [['log', 'list', '--since', '2025-01-18', '--until', '2025-01-18'], ['--since must be earlier than --until']],
  // --level
  ...['warn', 'Info', 'critical', ''].map((v): [string[], string[]] => [
    ['log', 'list', '--level', v],
    [`option '--level <level>' argument '${v}' is invalid`, 'Verbose, Debug, Information, Warning, Error, Fatal'],
  ]),
  // log purge criteria
  [
    ['log', 'purge', '--yes'],
    ['say what to purge', '--all', '--id', '--before'],
  ],
  [
    ['log', 'purge', '--all', '--id', '3', '--yes'],
    ['choose one of --all, --id', '--all and --id'],
  ],
  [
    ['log', 'purge', '--all', '--since', '7d', '--yes'],
    ['choose one of --all, --id', '--all and a'],
  ],
  [
    ['log', 'purge', '--id', '3', '--before', '7d', '--yes'],
    ['choose one of --all, --id', '--id and a'],
  ],
  [['log', 'purge', '--before', '7d', '--until', '1d', '--yes'], ['--before and --until both set the end of the range']],
  [['log', 'purge', '--since', '1d', '--until', '7d', '--yes'], ['--since must be earlier than --until']],
  // global flags
  [
    ['-o', 'yaml', 'keys', 'list'],
    ["option '-o, --output <format>' argument 'yaml' is invalid", 'Allowed choices are table, json'],
  ],
  [
    ['keys', 'list', '--output', 'xml'],
    ["argument 'xml' is invalid", 'table, json'],
  ],
  ...['foo', 'ftp://example.com', '127.0.0.1:8765', ''].map((v): [string[], string[]] => [
    ['--base-url', v, 'keys', 'list'],
    [`option '--base-url <url>' argument '${v}' is invalid`, 'http'],
  ]),
  [['--base-url', 'http://user:pw@127.0.0.1:1', 'keys', 'list'], ['--base-url: the URL must not carry credentials']],
  // profile add: name rules
  ...['bad name', '.hidden', '_x', 'a/b', 'x'.repeat(65), 'ü'].map((v): [string[], string[]] => [
    ['profile', 'add', v, '--base-url', 'http://127.0.0.1:1', '--api-key-stdin'],
    [`profile name "${v}" is invalid`, '1-64 letters, digits, "_", "." or "-"'],
  ]),
  [['profile', 'add', 'ok'], ['--base-url is required']],
  [
    ['profile', 'add', 'ok', '--base-url', 'http://127.0.0.1:1'],
    ['not a terminal', '--api-key-stdin'],
  ],
  [['profile', 'add', 'ok', '--base-url', 'http://127.0.0.1:1', '--api-key', 'api_x'], ["unknown option '--api-key'"]],
  // serve
  [
    ['serve', '--port', '70000'],
    ["option '--port <port>' argument '70000' is invalid", '0..65535'],
  ],
  [['serve', '--port', 'http'], ["option '--port <port>' argument 'http' is invalid"]],
  // commands and flags that do not exist
  [['frobnicate'], ["unknown command 'frobnicate'"]],
  [['keys', 'list', '--bogus'], ["unknown option '--bogus'"]],
  [
    ['kyes', 'list'],
    ["unknown command 'kyes'", '(did you mean keys?)'],
  ],
  [
    ['keys', 'craete', '--perm', '7'],
    ["unknown command 'craete'", '(did you mean create?)'],
  ],
  [['keys', 'delete'], ["missing required argument 'id'"]],
];

describe('usage errors: exit 2, naming the flag, nothing sent (closed port)', () => {
  let env: Record<string, string>;
  beforeAll(async () => {
    env = { LIC_BASE_URL: `http://127.0.0.1:${await closedPort()}`, LIC_API_KEY: 'api_000000000000000000000000' };
  });

  it.each(USAGE_CASES)('lic %j', async (args, expected) => {
    const r = await runCli(args, { env });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    for (const s of expected) expect(r.stderr).toContain(s);
    // one line, lic's style, commander's errors included (README "Scripts and exit codes")
    expect(r.stderr).toMatch(/^lic: [^\n]+\n$/);
  });
});

describe('usage errors against the real service: nothing changes', () => {
  const { svc } = useService();

  it('bad flags on writes leave the key list and the log exactly as they were', async () => {
    const keysBefore = (await http(svc, 'GET', '/v1/api-keys', { key: svc.adminKey })).body;
    const logBefore = (await http(svc, 'GET', '/v1/log', { key: svc.adminKey })).body;
    const env = envFor(svc, svc.adminKey);
    const writes = USAGE_CASES.filter(([a]) => ['create', 'update', 'delete', 'purge'].includes(a[1] ?? ''));
    expect(writes.length).toBeGreaterThan(40);
    for (const [args] of writes) expect((await runCli(args, { env })).code).toBe(2);
    // a real purge without --yes off a terminal is refused too
    expect((await runCli(['log', 'purge', '--all'], { env })).code).toBe(2);
    expect((await runCli(['keys', 'delete', '1'], { env })).code).toBe(2);
    expect((await http(svc, 'GET', '/v1/api-keys', { key: svc.adminKey })).body).toEqual(keysBefore);
    expect((await http(svc, 'GET', '/v1/log', { key: svc.adminKey })).body).toEqual(logBefore);
    expect(keysBefore.totalApiKeysCount).toBe(1);
    expect(logBefore.totalLogEntriesCount).toBe(0);
  });
});

describe('--perm forms reach the service exactly as typed', () => {
  const { svc } = useService();

  it.each([
    ['7', 7],
    ['0', 0],
    ['1', 1],
    ['2', 2],
    ['4', 4],
    ['5', 5],
    ['rwd', 7],
    ['r', 1],
    ['w', 2],
    ['d', 4],
    ['dr', 5],
    ['RW', 3],
    ['read,write,delete', 7],
    ['read', 1],
    ['write', 2],
    ['delete', 4],
    ['delete,read', 5],
    ['Read, Write', 3],
  ])('--perm %s → permissions %i', async (typed, bits) => {
    const r = await runCli(['keys', 'create', '--perm', typed, '--name', `p-${typed}`, '-o', 'json'], { env: envFor(svc, svc.adminKey) });
    expect(r.code, r.stderr).toBe(0);
    const { apiKeyId } = JSON.parse(r.stdout);
    const list = await http(svc, 'GET', `/v1/api-keys?filter=${encodeURIComponent(`Id = ${apiKeyId}`)}`, { key: svc.adminKey });
    expect(list.body.apiKeys).toHaveLength(1);
    expect(list.body.apiKeys[0].permissions).toBe(bits);
    expect(list.body.apiKeys[0].name).toBe(`p-${typed}`);
  });
});

describe('accepted time and id forms', () => {
  const { svc } = useService();

  it.each([
    ['30m'],
    ['24h'],
    ['7d'],
    ['90s'],
    ['2w'],
    ['2025-01-18'],
    ['2025-01-18T14:04:02Z'],
    ['2025-01-18T14:04:02.659Z'],
    ['2025-01-18T16:04:02+02:00'],
    ['2024-02-29'],
  ])('log list --since %s is accepted (exit 0)', async (v) => {
    const r = await runCli(['log', 'list', '--since', v], { env: envFor(svc, svc.adminKey) });
    expect(r.code, r.stderr).toBe(0);
  });

  it.each([
    ['--level', 'warning'],
    ['--level', 'FATAL'],
    ['--level', ' Information '],
    ['--take', '0'],
    ['--take', '1000'],
    ['--skip', '0'],
  ])('log list %s %j is accepted', async (flag, v) => {
    const r = await runCli(['log', 'list', flag, v], { env: envFor(svc, svc.adminKey) });
    expect(r.code, r.stderr).toBe(0);
  });

  it('the largest int32 id is a valid id (404 from the service, not a usage error)', async () => {
    const r = await runCli(['keys', 'delete', '2147483647', '--yes'], { env: envFor(svc, svc.adminKey) });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('no API key with id 2147483647');
  });
});
