// Cross-cutting: the --dry-run promise over the write verbs (a plan on stdout, no write sent, no audit entry, validation as in the real run); a verb's own dry-run output is in test/commands/<noun>/<verb>.test.ts (create, update and delete of keys, resources and assemblies; log purge; api).
/**
 * `--dry-run` in-process against the real service behind a recording proxy: the plan
 * printed on stdout is one JSON object with the key redacted to its prefix and passwords
 * hidden; the proxy saw no write, the audit log got no entry, and bad input still fails as
 * in the real run; the same from the built CLI on pipes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { useDryRun } from '../helpers/dry-run.js';
import { http } from '../helpers/service.js';
import { useService } from '../helpers/fixtures.js';
import { spawnLic } from '../helpers/spawn.js';

let keyId: number;

const { svc } = useService();
const { proxy, lic, prefix } = useDryRun(svc);
beforeAll(async () => {
  const made = await http(svc, 'POST', '/v1/api-keys', { key: svc.adminKey, body: { apiKey: { permissions: 1, name: 'victim' } } });
  keyId = made.body.apiKeyId;
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
