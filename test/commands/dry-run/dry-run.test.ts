/**
 * `--dry-run` on every write verb, in-process against the real service behind a
 * recording proxy: the plan printed on stdout is one JSON object with the key redacted
 * to its prefix and passwords hidden; the proxy saw no write, the audit log got no
 * entry, and bad input still fails as in the real run.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, type RunOptions } from '../../helpers/cli.js';
import { startRecordingProxy, type RecordingProxy } from '../../helpers/recording-proxy.js';
import { http } from '../../helpers/service.js';
import { useService } from '../../helpers/fixtures.js';

let proxy: RecordingProxy;
let keyId: number;

const { svc } = useService();
beforeAll(async () => {
  proxy = await startRecordingProxy(svc.url);
  const made = await http(svc, 'POST', '/v1/api-keys', { key: svc.adminKey, body: { apiKey: { permissions: 1, name: 'victim' } } });
  keyId = made.body.apiKeyId;
});
afterAll(async () => {
  await proxy.close();
});

const lic = (args: string[], o: RunOptions = {}) =>
  runCli(args, { ...o, env: { LIC_BASE_URL: proxy.url, LIC_API_KEY: svc.adminKey, ...o.env } });

/** Total log entries now (the audit trail: every write through the API adds one). */
async function logTotal(): Promise<number> {
  return (await http(svc, 'GET', '/v1/log?take=0', { key: svc.adminKey })).body.totalLogEntriesCount;
}

/** Runs `args`, expects exit 0 and exactly one JSON line on stdout, and that nothing but GETs reached the service nor the log grew. */
async function dryRun(args: string[], o: RunOptions = {}) {
  const before = await logTotal();
  const from = proxy.seen.length;
  const r = await lic(args, o);
  expect(r.code, r.stderr).toBe(0);
  // one JSON object: one line when piped, pretty on a terminal
  if (!o.tty) expect(r.stdout.endsWith('\n') && r.stdout.trimEnd().split('\n')).toHaveLength(1);
  const plan = JSON.parse(r.stdout);
  expect(proxy.seen.slice(from).filter((l) => !l.startsWith('GET '))).toEqual([]);
  expect(await logTotal()).toBe(before);
  expect(r.stdout + r.stderr).not.toContain(svc.adminKey);
  return { ...r, plan, sent: proxy.seen.slice(from) };
}

const prefix = () => `${svc.adminKey.slice(0, 8)}…`;

describe('--dry-run prints the request and sends no write', () => {
  it('keys create: method, url, headers (key redacted to its prefix), body', async () => {
    const { plan, sent } = await dryRun(['keys', 'create', '--perm', 'rw', '--name', 'ci', '--dry-run']);
    expect(plan).toEqual({
      method: 'POST',
      url: `${proxy.url}/v1/api-keys`,
      headers: {
        'user-agent': expect.stringMatching(/^lic\//),
        accept: 'application/json',
        'content-type': 'application/json',
        'x-api-key': prefix(),
      },
      body: { apiKey: { permissions: 3, name: 'ci' } },
    });
    expect(sent).toEqual([]);
  });

  it('keys delete: no --yes needed off a terminal, no prompt on one; the key stays', async () => {
    const piped = await dryRun(['keys', 'delete', String(keyId), '--dry-run']);
    expect(piped.plan).toMatchObject({ method: 'DELETE', url: `${proxy.url}/v1/api-keys/${keyId}`, body: null });
    expect(piped.plan.headers['content-type']).toBeUndefined();
    const tty = await dryRun(['keys', 'delete', String(keyId), '--dry-run'], { tty: true });
    expect(tty.prompts).toEqual([]);
    expect(JSON.parse(tty.stdout)).toEqual(piped.plan);
    const still = await http(svc, 'GET', `/v1/api-keys?filter=${encodeURIComponent(`Id = ${keyId}`)}`, { key: svc.adminKey });
    expect(still.body.apiKeys).toHaveLength(1);
  });

  it('keys update: the PUT body of only the flags given', async () => {
    const { plan } = await dryRun(['keys', 'update', String(keyId), '--revoke', '--dry-run']);
    expect(plan).toMatchObject({ method: 'PUT', url: `${proxy.url}/v1/api-keys`, body: { apiKey: { id: keyId, revoked: true } } });
  });

  it('resources create: the password is "[redacted]"; data of any size is a placeholder (a 5-byte or 596-byte key pair is still a key)', async () => {
    const dir = tempDir();
    const small = join(dir, 'small.bin');
    const big = join(dir, 'big.bin');
    writeFileSync(small, Buffer.from('hello'));
    writeFileSync(big, Buffer.alloc(5000, 7));
    const a = await dryRun(['resources', 'create', '--name', 'k', '--type', 'RSA', '--data-file', small, '--password-stdin', '--dry-run'], {
      stdin: 'hunter2-secret',
    });
    expect(a.plan.body).toEqual({
      resource: { name: 'k', type: 'RSA', data: '[base64 of 5 bytes omitted]', password: '[redacted]' },
    });
    expect(a.stdout).not.toContain(Buffer.from('hello').toString('base64'));
    expect(a.stdout).not.toContain('hunter2-secret');
    const b = await dryRun(['resources', 'create', '--name', 'k', '--type', 'RSA', '--data-file', big, '--dry-run']);
    expect(b.plan.body.resource.data).toBe('[base64 of 5000 bytes omitted]');
  });

  it('resources and assemblies update/delete stop at their write', async () => {
    const res = await http(svc, 'POST', '/v1/resources', {
      key: svc.adminKey,
      body: { resource: { name: 'r1', type: 'email', data: 'aGk=' } },
    });
    const asm = await http(svc, 'POST', '/v1/assemblies', { key: svc.adminKey, body: { assembly: { name: 'MyLib', version: '1.0.0.0' } } });
    const rid = res.body.resourceId;
    const aid = asm.body.assemblyId;
    expect((await dryRun(['resources', 'update', String(rid), '--description', 'v2', '--dry-run'])).plan).toMatchObject({
      method: 'PUT',
      body: { resource: { id: rid, description: 'v2' } },
    });
    expect((await dryRun(['resources', 'delete', String(rid), '--dry-run'])).plan).toMatchObject({
      method: 'DELETE',
      url: `${proxy.url}/v1/resources/${rid}`,
    });
    expect((await dryRun(['assemblies', 'create', '--name', 'Other', '--version', '2.0.0.0', '--dry-run'])).plan).toMatchObject({
      method: 'POST',
      url: `${proxy.url}/v1/assemblies`,
    });
    expect((await dryRun(['assemblies', 'update', String(aid), '--mapping-file-id', '0', '--dry-run'])).plan).toMatchObject({
      method: 'PUT',
      body: { assembly: { id: aid } },
    });
    expect((await dryRun(['assemblies', 'delete', String(aid), '--dry-run'])).plan).toMatchObject({
      method: 'DELETE',
      url: `${proxy.url}/v1/assemblies/${aid}`,
    });
    expect((await http(svc, 'GET', '/v1/assemblies', { key: svc.adminKey })).body.assemblies).toHaveLength(1);
  });

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

  it('api: any method, query string in the url, the --input body', async () => {
    const del = await dryRun(['api', '-X', 'DELETE', '/v1/log', '-f', 'deleteAll=true', '--dry-run']);
    expect(del.plan).toMatchObject({ method: 'DELETE', url: `${proxy.url}/v1/log?deleteAll=true` });
    const post = await dryRun(['api', '/v1/assemblies', '--input', '-', '--dry-run'], {
      stdin: '{"assembly":{"name":"X","version":"1.0.0.0"}}',
    });
    expect(post.plan).toMatchObject({ method: 'POST', body: { assembly: { name: 'X', version: '1.0.0.0' } } });
    const nested = await dryRun(['api', '-X', 'PUT', '/v1/resources', '--input', '-', '--dry-run'], {
      stdin: JSON.stringify({ resource: { id: 1, Password: 's3cret-a', extra: [{ password: 's3cret-b', keep: 'me' }] } }),
    });
    expect(nested.plan.body).toEqual({ resource: { id: 1, Password: '[redacted]', extra: [{ password: '[redacted]', keep: 'me' }] } });
    expect(nested.stdout).not.toMatch(/s3cret/);
    const get = await dryRun(['api', '/v1/log', '-f', 'take=5', '--dry-run']);
    expect(get.plan).toMatchObject({ method: 'GET', url: `${proxy.url}/v1/log?take=5`, body: null });
    expect(get.sent).toEqual([]);
  });
});

describe('a dry run validates like the real run', () => {
  it('bad input is exit 2 with nothing printed on stdout', async () => {
    for (const args of [
      ['keys', 'create', '--perm', '9', '--dry-run'],
      ['keys', 'update', String(keyId), '--dry-run'],
      ['resources', 'update', '1', '--dry-run'],
      ['log', 'purge', '--dry-run'],
      ['keys', 'delete', '0', '--dry-run'],
    ]) {
      const r = await lic(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stdout).toBe('');
    }
  });

  it('no API key configured is still exit 3', async () => {
    const r = await lic(['keys', 'delete', String(keyId), '--dry-run'], { env: { LIC_API_KEY: undefined } });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^lic: no API key/);
  });

  it('--verbose traces only the GET it really sends, with the key redacted', async () => {
    const r = await dryRun(['log', 'purge', '--all', '--dry-run', '-v']);
    expect(r.stderr).toMatch(/^> GET .*\/v1\/log\?take=0 \(x-api-key: \[redacted\]\)$/m);
    expect(r.stderr).not.toMatch(/^> DELETE/m);
  });
});

describe('--dry-run against any service implementing the API', () => {
  it('log purge: a count reply that omits the total (default values left out) is wouldDelete 0; the fake gets only the GET', async () => {
    const { reply, startFake } = await import('../../helpers/fake-server.js');
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

describe('--dry-run in the real process (bin/lic.js on pipes)', () => {
  it('prints the plan as one JSON line on stdout, nothing on stderr, exit 0; the proxy sees no request', async () => {
    const { spawnLic } = await import('../../helpers/spawn.js');
    const from = proxy.seen.length;
    const r = await spawnLic(['assemblies', 'delete', '7', '--dry-run'], {
      env: { LIC_BASE_URL: proxy.url, LIC_API_KEY: svc.adminKey, LIC_CONFIG_DIR: tempDir() },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({
      method: 'DELETE',
      url: `${proxy.url}/v1/assemblies/7`,
      headers: { 'x-api-key': prefix() },
      body: null,
    });
    expect(r.stdout.split('\n')).toHaveLength(2);
    expect(r.stdout).not.toContain(svc.adminKey);
    expect(proxy.seen.slice(from)).toEqual([]);
  });
});
