// Cross-cutting: option parsing of every verb, table-driven through its register seam; a verb's end-to-end behaviour is in test/commands/<noun>/<verb>.test.ts.
/**
 * Options parsing per verb, table-driven and without a network (docs/architecture.md, "Adding a verb"): each verb
 * is registered alone with a `run` that records what it was called with (its seam,
 * `registerX(parent, deps, run)`), and main() runs the command line. A good command line
 * must reach `run` with exactly the options object in the table; a bad one must exit 2
 * naming the flag, with nothing on stdout and `run` never called.
 */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { CommandDeps } from '../../src/cli/deps.js';
import { main } from '../../src/cli/main.js';
import { registerApi } from '../../src/commands/api/index.js';
import { registerAssembliesCreate } from '../../src/commands/assemblies/create.js';
import { registerAssembliesDelete } from '../../src/commands/assemblies/delete.js';
import { registerAssembliesImport } from '../../src/commands/assemblies/import.js';
import { registerAssembliesList } from '../../src/commands/assemblies/list.js';
import { registerAssembliesUpdate } from '../../src/commands/assemblies/update.js';
import { registerDoctor } from '../../src/commands/doctor/index.js';
import { registerKeysCreate } from '../../src/commands/keys/create.js';
import { registerKeysDelete } from '../../src/commands/keys/delete.js';
import { registerKeysList } from '../../src/commands/keys/list.js';
import { registerKeysRotate } from '../../src/commands/keys/rotate.js';
import { registerKeysUpdate } from '../../src/commands/keys/update.js';
import { registerLogList } from '../../src/commands/log/list.js';
import { registerLogPurge } from '../../src/commands/log/purge.js';
import { registerLogStats } from '../../src/commands/log/stats.js';
import { registerLogTail } from '../../src/commands/log/tail.js';
import { registerOrdersList } from '../../src/commands/orders/list.js';
import { registerProductsList } from '../../src/commands/products/list.js';
import { registerProfileAdd } from '../../src/commands/profile/add.js';
import { registerProfileList } from '../../src/commands/profile/list.js';
import { registerProfileMigrate } from '../../src/commands/profile/migrate.js';
import { registerProfileRemove } from '../../src/commands/profile/remove.js';
import { registerProfileShow } from '../../src/commands/profile/show.js';
import { registerProfileUse } from '../../src/commands/profile/use.js';
import { registerResourcesCreate } from '../../src/commands/resources/create.js';
import { registerResourcesDelete } from '../../src/commands/resources/delete.js';
import { registerResourcesExport } from '../../src/commands/resources/export.js';
import { registerResourcesGet } from '../../src/commands/resources/get.js';
import { registerResourcesImport } from '../../src/commands/resources/import.js';
import { registerResourcesList } from '../../src/commands/resources/list.js';
import { registerResourcesUpdate } from '../../src/commands/resources/update.js';
import { registerServe } from '../../src/commands/serve/index.js';
import { registerTemplatesList } from '../../src/commands/templates/list.js';
import { registerTemplatesShow } from '../../src/commands/templates/show.js';
import { testContext } from '../helpers/context.js';

/** A verb's registration; `run` is the recording stand-in (each verb's own run type). */
type Register = (parent: Command, deps: CommandDeps, run: never) => void;

const NOW = new Date('2026-01-10T12:00:00Z');

/** Runs `lic NOUN ARGV` with only `register`'s verb declared; returns the exit code, the streams and every call of run (its arguments but the Runtime). */
async function parse(noun: string | undefined, register: Register, argv: string[]) {
  const calls: unknown[][] = [];
  // a doctor run returns its report; an empty, passing one prints nothing to judge
  const record = async (...args: unknown[]) => (calls.push(args.slice(0, -1)), { ok: true, checks: [], endpoints: [], role: null });
  const t = testContext({ now: () => NOW });
  const code = await main(noun ? [noun, ...argv] : argv, t.ctx, {
    nouns: [(program, deps) => register(noun ? program.command(noun) : program, deps, record as never)],
  });
  return { code, calls, stdout: t.stdout(), stderr: t.stderr() };
}

interface VerbTable {
  noun?: string;
  verb: string;
  register: Register;
  /** argv after the noun → the arguments run receives (before the Runtime); wire forms where the flag parser makes them (neutral → "", never → "", null → "") */
  ok: [string[], unknown[]][];
  /** argv after the noun → substrings of stderr (exit 2) */
  bad: [string[], string[]][];
}

const TABLE: VerbTable[] = [
  {
    noun: 'resources',
    verb: 'export',
    register: registerResourcesExport,
    ok: [
      [['export'], [{}]],
      [
        ['export', '--type', 'email', '--name-contains', 'Renewal', '--where', 'Code != ""'],
        [{ type: 'email', nameContains: 'Renewal', where: 'Code != ""' }],
      ],
    ],
    bad: [[['export', 'extra'], ['too many arguments']]],
  },
  {
    noun: 'resources',
    verb: 'import',
    register: registerResourcesImport,
    ok: [
      [['import', 'bundle.ndjson'], [{ file: 'bundle.ndjson' }]],
      [['import', '-', '--details'], [{ file: '-', details: true }]],
    ],
    bad: [[['import'], ["missing required argument 'file'"]]],
  },
  {
    noun: 'assemblies',
    verb: 'import',
    register: registerAssembliesImport,
    ok: [
      [['import', 'bin/Release'], [{ paths: ['bin/Release'] }]],
      [['import', '-r', '--details', 'a.dll', 'out'], [{ paths: ['a.dll', 'out'], recursive: true, details: true }]],
    ],
    bad: [[['import'], ["missing required argument 'path'"]]],
  },
  {
    noun: 'keys',
    verb: 'rotate',
    register: registerKeysRotate,
    ok: [
      [['rotate', '12'], [{ id: 12, grace: 7 * 86_400_000 }]],
      [
        ['rotate', '12', '--grace', '0', '--key-file', 'ci.key', '--expires', '90d'],
        [{ id: 12, grace: 0, keyFile: 'ci.key', expires: '2026-04-10T12:00:00.000Z' }],
      ],
      [['rotate', '12', '--grace', '24h'], [{ id: 12, grace: 86_400_000 }]],
    ],
    bad: [
      [['rotate', '12', '--grace', 'soon'], ['--grace']],
      [['rotate', 'x'], ['id']],
    ],
  },
  {
    noun: 'log',
    verb: 'stats',
    register: registerLogStats,
    ok: [
      [
        ['stats'],
        [
          {
            since: '2025-12-11T12:00:00.000Z',
            until: '2026-01-10T12:00:00.000Z',
            by: 'day',
            levels: ['Verbose', 'Debug', 'Information', 'Warning', 'Error', 'Fatal'],
          },
        ],
      ],
      [
        ['stats', '--since', '48h', '--by', 'hour', '--level', 'Warning,Error', '--where', 'Message.Contains("401")'],
        [
          {
            since: '2026-01-08T12:00:00.000Z',
            until: '2026-01-10T12:00:00.000Z',
            by: 'hour',
            levels: ['Warning', 'Error'],
            where: 'Message.Contains("401")',
          },
        ],
      ],
    ],
    bad: [
      [
        ['stats', '--by', 'month'],
        ['--by', 'hour', 'day', 'week'],
      ],
      [['stats', '--level', 'Loud'], ['--level']],
    ],
  },
  {
    noun: 'keys',
    verb: 'list',
    register: registerKeysList,
    ok: [
      [['list'], [{}]],
      [
        ['ls', '--owner', 'bob', '--active', '--limit', '5', '--sort', 'name:desc'],
        [{ owner: 'bob', active: true, limit: 5, sort: [{ field: 'name', desc: true }] }],
      ],
    ],
    bad: [
      [['list', '--revoked', '--active'], ["option '--revoked' cannot be used with option '--active'"]],
      [['list', '--limit', '1.5'], ["option '--limit <n>' argument '1.5' is invalid"]],
      [
        ['list', '--sort', 'nope'],
        ['--sort', 'nope'],
      ],
      [
        ['list', '--fields', 'id,secret'],
        ['--fields', 'secret'],
      ],
    ],
  },
  {
    noun: 'keys',
    verb: 'create',
    register: registerKeysCreate,
    ok: [
      [['create', '--perm', 'rw'], [{ perm: 3 }]],
      [
        [
          'create',
          '--perm',
          'read,delete',
          '--name',
          'ci',
          '--owner',
          'u1',
          '--description',
          'd',
          '--expires',
          '90d',
          '--force',
          '--dry-run',
        ],
        [{ perm: 5, name: 'ci', owner: 'u1', description: 'd', expires: '2026-04-10T12:00:00.000Z', force: true, dryRun: true }],
      ],
    ],
    bad: [
      [['create'], ["required option '--perm <perm>' not specified"]],
      [
        ['create', '--perm', '8'],
        ["option '--perm <perm>' argument '8' is invalid", 'a number 0..7'],
      ],
      [['create', '--perm', '7', '--expires', 'soon'], ["option '--expires <time>' argument 'soon' is invalid"]],
    ],
  },
  {
    noun: 'keys',
    verb: 'update',
    register: registerKeysUpdate,
    ok: [
      [['update', '5', '--revoke'], [{ id: 5, revoke: true }]],
      [['update', '5', '--perm', '7', '--expires', 'never', '--name', 'n'], [{ id: 5, perm: 7, expires: '', name: 'n' }]],
    ],
    bad: [
      [['update', '0', '--revoke'], ["command-argument value '0' is invalid for argument 'id'"]],
      [['update', '5', '--perm', 'x'], ["option '--perm <perm>' argument 'x' is invalid"]],
    ],
  },
  {
    noun: 'keys',
    verb: 'delete',
    register: registerKeysDelete,
    ok: [
      [['delete', '9', '--yes'], [{ id: 9, yes: true }]],
      [['rm', '9'], [{ id: 9 }]],
    ],
    bad: [
      [
        ['delete', 'abc'],
        ["command-argument value 'abc' is invalid for argument 'id'", '1..2147483647'],
      ],
    ],
  },
  {
    noun: 'log',
    verb: 'list',
    register: registerLogList,
    ok: [[['list', '--level', 'Error', '--contains', 'x', '--take', '10'], [{ level: 'Error', contains: 'x', take: 10 }]]],
    bad: [
      [
        ['list', '--level', 'Loud'],
        ["option '--level <level>' argument 'Loud' is invalid", 'Information'],
      ],
      [['list', '--take', '1001'], ["option '--take <n>' argument '1001' is invalid"]],
    ],
  },
  {
    noun: 'log',
    verb: 'purge',
    register: registerLogPurge,
    ok: [
      [['purge', '--all', '--yes'], [{ all: true, yes: true }]],
      [['purge', '--id', '4'], [{ id: 4 }]],
    ],
    bad: [[['purge', '--id', '-1'], ["option '--id <id>' argument '-1' is invalid"]]],
  },
  {
    noun: 'log',
    verb: 'tail',
    register: registerLogTail,
    ok: [[['tail', '-f', '-n', '3', '--interval', '500ms'], [{ follow: true, lines: 3, interval: 500 }]]],
    bad: [[['tail', '--interval', 'often'], ["option '--interval <duration>' argument 'often' is invalid"]]],
  },
  {
    noun: 'resources',
    verb: 'list',
    register: registerResourcesList,
    ok: [[['list', '--type', 'RSA', '--name-contains', 'key'], [{ type: 'RSA', nameContains: 'key' }]]],
    bad: [[['list', '--skip', '-3'], ["option '--skip <n>' argument '-3' is invalid"]]],
  },
  {
    noun: 'resources',
    verb: 'get',
    register: registerResourcesGet,
    ok: [[['get', '3', '--data-out', 'k.snk', '--clobber'], [{ id: 3, dataOut: 'k.snk', clobber: true }]]],
    bad: [[['get', '1.5'], ["command-argument value '1.5' is invalid for argument 'id'"]]],
  },
  {
    noun: 'resources',
    verb: 'create',
    register: registerResourcesCreate,
    ok: [
      [
        ['create', '--name', 'n', '--type', 'RSA', '--format', 'SNK', '--data-file', 'k.snk'],
        [{ name: 'n', type: 'RSA', format: 'SNK', dataFile: 'k.snk' }],
      ],
    ],
    bad: [[['create', '--name', 'n', '--nmae', 'x'], ["unknown option '--nmae'"]]],
  },
  {
    noun: 'resources',
    verb: 'update',
    register: registerResourcesUpdate,
    ok: [[['update', '2', '--code', ''], [{ id: 2, code: '' }]]],
    bad: [[['update', 'x', '--name', 'n'], ["command-argument value 'x' is invalid for argument 'id'"]]],
  },
  {
    noun: 'resources',
    verb: 'delete',
    register: registerResourcesDelete,
    ok: [[['delete', '2', '-y'], [{ id: 2, yes: true }]]],
    bad: [[['delete'], ["missing required argument 'id'"]]],
  },
  {
    noun: 'assemblies',
    verb: 'list',
    register: registerAssembliesList,
    ok: [
      [
        ['list', '--name', 'Folio.Pdf', '--public-key-token', 'B77A5C561934E089'],
        [{ name: 'Folio.Pdf', publicKeyToken: 'b77a5c561934e089' }],
      ],
      [['list', '--signed-by', '3'], [{ signedBy: 3 }]],
    ],
    bad: [
      [['list', '--public-key-token', 'xyz'], ["option '--public-key-token <hex>' argument 'xyz' is invalid"]],
      [['list', '--signed-by', 'abc'], ['--signed-by']],
    ],
  },
  {
    noun: 'assemblies',
    verb: 'create',
    register: registerAssembliesCreate,
    ok: [
      [
        ['create', '--name', 'A', '--version', '1.2.3.4', '--culture', 'neutral', '--mapping-file-id', '0'],
        [{ name: 'A', version: '1.2.3.4', culture: '', mappingFileId: 0 }],
      ],
    ],
    bad: [[['create', '--name', 'A', '--version', '1.2.3.70000'], ["option '--version <a.b.c.d>' argument '1.2.3.70000' is invalid"]]],
  },
  {
    noun: 'assemblies',
    verb: 'update',
    register: registerAssembliesUpdate,
    ok: [[['update', '7', '--public-key-token', 'null'], [{ id: 7, publicKeyToken: '' }]]],
    bad: [[['update', '7', '--mapping-file-id', 'x'], ["option '--mapping-file-id <id>' argument 'x' is invalid"]]],
  },
  {
    noun: 'assemblies',
    verb: 'delete',
    register: registerAssembliesDelete,
    ok: [[['delete', '7', '--dry-run'], [{ id: 7 }]]],
    bad: [[['delete', '2147483648'], ["command-argument value '2147483648' is invalid for argument 'id'"]]],
  },
  {
    noun: 'orders',
    verb: 'list',
    register: registerOrdersList,
    ok: [[['list', '--customer', '12', '--status', 'Paid', '--currency', 'EUR'], [{ customer: 12, status: 'Paid', currency: 'EUR' }]]],
    bad: [[['list', '--customer', 'C-1'], ["option '--customer <id>' argument 'C-1' is invalid"]]],
  },
  {
    noun: 'products',
    verb: 'list',
    register: registerProductsList,
    ok: [[['list', '--customer', 'C-7K2M9Q4X', '--limit', '2'], [{ customer: 'C-7K2M9Q4X', limit: 2 }]]],
    bad: [[['list', '--limit', 'many'], ["option '--limit <n>' argument 'many' is invalid"]]],
  },
  {
    noun: 'templates',
    verb: 'list',
    register: registerTemplatesList,
    ok: [[['list', '--product', '1', '--release', '2'], [{ product: 1, release: 2 }]]],
    bad: [[['list', '--product', '0', '--release', '2'], ["option '--product <id>' argument '0' is invalid"]]],
  },
  {
    noun: 'templates',
    verb: 'show',
    register: registerTemplatesShow,
    ok: [[['show', '4', '--product', '1', '--release', '2'], [{ id: 4, product: 1, release: 2 }]]],
    bad: [
      [
        ['show', '4', '--prodct', '1'],
        ["unknown option '--prodct'", '(did you mean --product?)'],
      ],
    ],
  },
  {
    noun: 'profile',
    verb: 'add',
    register: registerProfileAdd,
    ok: [
      [['add', 'prod', '--api-key-stdin', '--default'], [{ name: 'prod', apiKeyStdin: true, default: true }]],
      [['add', 'ci', '--api-key-stdin', '--insecure-storage'], [{ name: 'ci', apiKeyStdin: true, insecureStorage: true }]],
    ],
    bad: [
      [['add'], ["missing required argument 'name'"]],
      [['add', 'ci', '--insecure-storage=yes'], ["unknown option '--insecure-storage=yes'"]],
    ],
  },
  {
    noun: 'profile',
    verb: 'migrate',
    register: registerProfileMigrate,
    ok: [
      [['migrate'], [{ to: 'keyring', names: [], dryRun: undefined }]],
      [['migrate', '--to', 'file', 'a', 'b', '--dry-run'], [{ to: 'file', names: ['a', 'b'], dryRun: true }]],
    ],
    bad: [
      [['migrate', '--to', 'disk'], ["option '--to <store>' argument 'disk' is invalid. Allowed choices are keyring, file."]],
      [['migrate', '--to'], ["option '--to <store>' argument missing"]],
    ],
  },
  {
    noun: 'profile',
    verb: 'use',
    register: registerProfileUse,
    ok: [[['use', 'prod'], ['prod']]],
    bad: [[['use'], ["missing required argument 'name'"]]],
  },
  {
    noun: 'profile',
    verb: 'remove',
    register: registerProfileRemove,
    ok: [[['rm', 'prod'], ['prod']]],
    bad: [[['remove', 'a', 'b'], ['too many arguments']]],
  },
  {
    noun: 'profile',
    verb: 'list',
    register: registerProfileList,
    ok: [[['list'], []]],
    bad: [[['list', '--all'], ["unknown option '--all'"]]],
  },
  { noun: 'profile', verb: 'show', register: registerProfileShow, ok: [[['show'], []]], bad: [[['show', 'x'], ['too many arguments']]] },
  {
    verb: 'serve',
    register: registerServe,
    ok: [[['serve', '--port', '0', '--no-profile', '--seed', 'demo'], [{ host: '127.0.0.1', port: 0, profile: false, seed: 'demo' }]]],
    bad: [
      [
        ['serve', '--port', '70000'],
        ["option '--port <port>' argument '70000' is invalid", '0..65535'],
      ],
    ],
  },
  {
    verb: 'api',
    register: registerApi,
    ok: [[['api', '/v1/log', '-f', 'take=5', '-X', 'GET'], [{ path: '/v1/log', method: 'GET', field: [['take', '5']], header: [] }]]],
    bad: [[['api', '/v1/log', '-X', 'PATCH'], ["option '-X, --method <method>' argument 'PATCH' is invalid"]]],
  },
  { verb: 'doctor', register: registerDoctor, ok: [[['doctor'], []]], bad: [[['doctor', '--fix'], ["unknown option '--fix'"]]] },
];

describe.each(TABLE)('$noun $verb', ({ noun, register, ok, bad }) => {
  it.each(ok)('%j → run gets the options in the table', async (argv, expected) => {
    const r = await parse(noun, register, argv);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.calls).toEqual([expected]);
  });
  it.each(bad)('%j → exit 2 naming the flag, run not called', async (argv, messages) => {
    const r = await parse(noun, register, argv);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    for (const m of messages) expect(r.stderr).toContain(m);
    expect(r.stderr).toMatch(/^lic: [^\n]+\n$/);
    expect(r.calls).toEqual([]);
  });
});
