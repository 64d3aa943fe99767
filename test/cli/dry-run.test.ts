// Cross-cutting: the --dry-run promise over the write verbs (a plan on stdout, no write sent, no audit entry, validation as in the real run); a verb's own dry-run output is in test/commands/<noun>/<verb>.test.ts (keys create|update|delete, log purge, api), those of resources and assemblies are here for now.
/**
 * `--dry-run` in-process against the real service behind a recording proxy: the plan
 * printed on stdout is one JSON object with the key redacted to its prefix and passwords
 * hidden; the proxy saw no write, the audit log got no entry, and bad input still fails as
 * in the real run; the same from the built CLI on pipes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { useDryRun } from '../helpers/dry-run.js';
import { http } from '../helpers/service.js';
import { useService } from '../helpers/fixtures.js';
import { spawnLic } from '../helpers/spawn.js';

let keyId: number;

const { svc } = useService();
const { proxy, lic, dryRun, prefix } = useDryRun(svc);
beforeAll(async () => {
  const made = await http(svc, 'POST', '/v1/api-keys', { key: svc.adminKey, body: { apiKey: { permissions: 1, name: 'victim' } } });
  keyId = made.body.apiKeyId;
});

describe('--dry-run prints the request and sends no write', () => {
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
});

describe('--dry-run in the real process (bin/lic.js on pipes)', () => {
  it('prints the plan as one JSON line on stdout, nothing on stderr, exit 0; the proxy sees no request', async () => {
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
