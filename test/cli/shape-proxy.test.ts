// Cross-cutting: the same stdout, in every machine format, from lic serve and from a service that leaves defaults out or sends ids as strings, over many nouns; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/**
 * One shape for scripts: the same commands, run directly against lic
 * serve and through a transforming proxy that makes its replies look like another
 * implementation of the published API (default-valued fields left out, recursively,
 * even an empty list's array and total; integers as strings), print the same stdout in
 * every machine format. `--raw` shows that the proxies really changed the bodies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envFor, runCli } from '../helpers/cli.js';

import { startTransformProxy, type ProxyMode, type TransformProxy } from '../helpers/transform-proxy.js';
import { useService } from '../helpers/fixtures.js';

const proxies = new Map<ProxyMode, TransformProxy>();
let resourceId: number;
let template: { id: number; product: number; release: number };
let customer: number;
let customerKey: { key: string; code: string };

const { svc } = useService({ seed: 'demo' });
beforeAll(async () => {
  for (const mode of ['strip-defaults', 'int-strings'] as const) proxies.set(mode, await startTransformProxy(svc.url, mode));
  resourceId = svc.db.prepare('SELECT id FROM resources ORDER BY id LIMIT 1').pluck().get() as number;
  template = svc.db
    .prepare('SELECT id, product_id AS product, release_id AS release FROM license_templates ORDER BY id LIMIT 1')
    .get() as typeof template;
  customer = svc.db.prepare('SELECT customer_id FROM orders GROUP BY customer_id ORDER BY count(*) DESC LIMIT 1').pluck().get() as number;
  const k = svc.issuedKeys.find((x) => x.role === 'Customer')!;
  customerKey = { key: k.key, code: svc.db.prepare('SELECT customer_code FROM users WHERE id = ?').pluck().get(k.userId) as string };
  // a key with no permissions, a description-less one, and defaults everywhere: zeros and "" on the wire
  svc.db.prepare("UPDATE api_keys SET description = '' WHERE id = (SELECT min(id) FROM api_keys)").run();
});
afterAll(async () => {
  for (const p of proxies.values()) await p.close();
});

const FORMATS = [
  ['-o', 'json'],
  ['-o', 'ndjson'],
  ['-o', 'csv'],
  ['-o', 'tsv'],
];

/** Representative list and get commands; `admin` false runs with the customer's key. */
const COMMANDS: { name: string; args: () => string[]; customerKey?: boolean; formats?: string[][] }[] = [
  { name: 'keys list', args: () => ['keys', 'list'] },
  { name: 'keys list --revoked', args: () => ['keys', 'list', '--revoked'] },
  {
    name: 'keys list --fields id,revoked,permissions,expireDate',
    args: () => ['keys', 'list', '--fields', 'id,revoked,permissions,expireDate'],
  },
  { name: 'resources list --all --take 2', args: () => ['resources', 'list', '--all', '--take', '2'] },
  { name: 'resources list --type NoSuchType', args: () => ['resources', 'list', '--type', 'NoSuchType'] },
  { name: 'resources get N', args: () => ['resources', 'get', String(resourceId)] },
  { name: 'assemblies list --all --take 3', args: () => ['assemblies', 'list', '--all', '--take', '3'] },
  { name: 'orders list --customer N --limit 5', args: () => ['orders', 'list', '--customer', String(customer), '--limit', '5'] },
  {
    name: 'templates list --product N --release N --fields id,name,generateKeyInfo,productId,signatureKeysId,releaseId',
    args: () => [
      'templates',
      'list',
      '--product',
      String(template.product),
      '--release',
      String(template.release),
      '--fields',
      'id,name,generateKeyInfo,productId,signatureKeysId,releaseId',
    ],
  },
  {
    name: 'templates list --product N --release N (nested records)',
    args: () => ['templates', 'list', '--product', String(template.product), '--release', String(template.release)],
  },
  // templates show prints the body or the json reply only (-o csv/tsv/ndjson are usage errors): json is below
  {
    name: 'templates show N --product N --release N',
    args: () => ['templates', 'show', String(template.id), '--product', String(template.product), '--release', String(template.release)],
    formats: [['-o', 'json']],
  },
  { name: 'log list --limit 5 --fields id,level,exception', args: () => ['log', 'list', '--limit', '5', '--fields', 'id,level,exception'] },
  { name: 'products list --customer CODE', args: () => ['products', 'list', '--customer', customerKey.code], customerKey: true },
];

async function run(url: string, args: string[], asCustomer = false) {
  const r = await runCli(args, { env: envFor({ url }, asCustomer ? customerKey.key : svc.adminKey) });
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r.stdout;
}

describe.each(['strip-defaults', 'int-strings'] as const)('through a proxy that does %s', (mode) => {
  it.each(COMMANDS.flatMap((c) => (c.formats ?? FORMATS).map((f) => [`${c.name} ${f.join(' ')}`, c, f] as const)))(
    '%s: the same stdout as directly',
    async (_name, c, f) => {
      const args = [...c.args(), ...f];
      const direct = await run(svc.url, args, c.customerKey);
      const proxied = await run(proxies.get(mode)!.url, args, c.customerKey);
      // an empty list prints nothing in ndjson; everything else prints something
      if (f[1] !== 'ndjson') expect(direct).not.toBe('');
      expect(proxied).toBe(direct);
    },
  );

  it('--raw shows the service body untouched: the proxy really changed it', async () => {
    const args = ['keys', 'list', '--revoked', '--raw', '-o', 'json'];
    const direct = JSON.parse(await run(svc.url, args));
    const proxied = JSON.parse(await run(proxies.get(mode)!.url, args));
    expect(proxied).not.toEqual(direct);
  });
});

describe('the documented shape of an empty list and of default-valued fields', () => {
  it('keys list --revoked -o json against a service that omits defaults: the array and total are there', async () => {
    const out = JSON.parse(await run(proxies.get('strip-defaults')!.url, ['keys', 'list', '--revoked', '-o', 'json']));
    expect(out).toEqual({ success: true, code: 0, message: 'OK', apiKeys: [], totalApiKeysCount: 0 });
    const raw = JSON.parse(await run(proxies.get('strip-defaults')!.url, ['keys', 'list', '--revoked', '-o', 'json', '--raw']));
    expect(raw).toEqual({ success: true, message: 'OK' });
  });

  it('--fields id,revoked prints false, not a blank, for a field the service left out', async () => {
    const out = await run(proxies.get('strip-defaults')!.url, ['keys', 'list', '--fields', 'id,revoked', '-o', 'csv']);
    const rows = out.trimEnd().split('\n');
    expect(rows[0]).toBe('id,revoked');
    expect(rows.slice(1).every((l) => /^\d+,(true|false)$/.test(l))).toBe(true);
  });

  it('resources get ID finds a record whose id came as a string', async () => {
    const out = JSON.parse(await run(proxies.get('int-strings')!.url, ['resources', 'get', String(resourceId), '-o', 'json']));
    expect(out.resources[0].id).toBe(resourceId);
  });

  it('log purge prints deletedLogCount 0 when the service left it out', async () => {
    const out = JSON.parse(await run(proxies.get('strip-defaults')!.url, ['log', 'purge', '--where', 'Id < 0', '--yes', '-o', 'json']));
    expect(out).toMatchObject({ success: true, code: 0, deletedLogCount: 0 });
    const csv = await run(proxies.get('strip-defaults')!.url, ['log', 'purge', '--where', 'Id < 0', '--yes', '-o', 'csv']);
    expect(csv).toBe('deletedLogCount\n0\n');
  });
});
