/**
 * `lic keys delete` (alias rm) in-process against the real service: the confirmation off
 * and on a terminal, Ctrl-C, --yes, a second delete, and its --dry-run.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../helpers/cli.js';
import { useDryRun } from '../../helpers/dry-run.js';
import { http } from '../../helpers/service.js';
import { useKeysCli } from './_shared.js';

const { svc, create, listed } = useKeysCli({ checkAfterAll: true });
const { proxy, dryRun } = useDryRun(svc);
let keyId: number;
beforeAll(async () => {
  const made = await http(svc, 'POST', '/v1/api-keys', { key: svc.adminKey, body: { apiKey: { permissions: 1, name: 'victim' } } });
  keyId = made.body.apiKeyId;
});

describe('keys delete: confirmation', () => {
  let configDir: string;
  beforeAll(async () => {
    configDir = tempDir();
    const r = await runCli(['profile', 'add', 'ci', '--base-url', svc.url, '--api-key-stdin'], { configDir, stdin: svc.adminKey });
    expect(r.code, r.stderr).toBe(0);
  });

  it('off a TTY without --yes: exit 2, nothing deleted', async () => {
    const { id } = await create(['--perm', '1']);
    const r = await runCli(['keys', 'delete', String(id)], { configDir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`lic: refusing to delete API key ${id} without confirmation: not a terminal, so pass --yes\n`);
    expect(await listed(id)).toBeDefined();
  });

  it('on a TTY: the prompt names the profile, the host and the key; yes deletes', async () => {
    const { id } = await create(['--perm', '1']);
    const r = await runCli(['keys', 'delete', String(id)], { configDir, tty: true, confirm: [true] });
    expect(r.code, r.stderr).toBe(0);
    expect(r.prompts).toEqual([`delete API key ${id} on ${new URL(svc.url).host} (profile ci)?`]);
    expect(await listed(id)).toBeUndefined();
  });

  it('on a TTY, answering no: exit 1, nothing deleted', async () => {
    const { id } = await create(['--perm', '1']);
    const r = await runCli(['keys', 'rm', String(id)], { configDir, tty: true, confirm: [false] });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('lic: cancelled: nothing was changed\n');
    expect(r.prompts).toHaveLength(1);
    expect(await listed(id)).toBeDefined();
  });

  it('Ctrl-C at the prompt: exit 130, nothing deleted', async () => {
    const { id } = await create(['--perm', '1']);
    const ctrlC = Object.assign(new Error('User force closed the prompt with SIGINT'), { name: 'ExitPromptError' });
    const r = await runCli(['keys', 'delete', String(id)], { configDir, tty: true, confirm: [ctrlC] });
    expect(r.code).toBe(130);
    expect(r.stderr).toBe('lic: interrupted\n');
    expect(await listed(id)).toBeDefined();
  });

  it('--yes on a TTY does not ask; a second delete of the same id is exit 4', async () => {
    const { id } = await create(['--perm', '1']);
    const r = await runCli(['keys', 'delete', String(id), '-y'], { configDir, tty: true });
    expect(r.code).toBe(0);
    expect(r.prompts).toEqual([]);
    const again = await runCli(['keys', 'delete', String(id), '--yes'], { configDir });
    expect(again.code).toBe(4);
    expect(again.stderr).toBe(`lic: no API key with id ${id} (HTTP 404, code 5, DELETE /v1/api-keys/${id})\n`);
  });
});

describe('--dry-run prints the request and sends no write', () => {
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
});
