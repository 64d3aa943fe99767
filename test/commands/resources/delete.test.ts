/** `lic resources delete ID` in-process against the real service on port 0: --yes off a terminal, the question on one. */
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../helpers/cli.js';
import { useService } from '../../helpers/fixtures.js';
import { resourceSteps } from './steps.js';
import { useDryRun } from '../../helpers/dry-run.js';
import { http } from '../../helpers/service.js';

const { svc, env } = useService();
const { proxy, dryRun } = useDryRun(svc);
const { unique, storedRow, createVia } = resourceSteps(svc, env, tempDir('lic-res-'));

describe('delete', () => {
  it('off a terminal it needs --yes; with it the resource goes', async () => {
    const id = await createVia(['--name', unique('del'), '--type', 'x']);
    const no = await runCli(['resources', 'delete', String(id)], { env });
    expect(no.code).toBe(2);
    expect(no.stderr).toContain('--yes');
    expect(storedRow(id)).toBeDefined();
    const yes = await runCli(['resources', 'delete', String(id), '--yes'], { env });
    expect(yes.code).toBe(0);
    expect(storedRow(id)).toBeUndefined();
    const again = await runCli(['resources', 'delete', String(id), '--yes'], { env });
    expect(again.code).toBe(4);
  });

  it('on a terminal it asks, naming the host and what goes; no keeps it', async () => {
    const id = await createVia(['--name', unique('ask'), '--type', 'x']);
    const no = await runCli(['resources', 'delete', String(id)], { env, tty: true, confirm: [false] });
    expect(no.code).toBe(1);
    expect(no.prompts[0]).toContain(`delete resource ${id} on ${new URL(svc.url).host}`);
    expect(storedRow(id)).toBeDefined();
    const ok = await runCli(['resources', 'delete', String(id)], { env, tty: true, confirm: [true] });
    expect(ok.code).toBe(0);
    expect(storedRow(id)).toBeUndefined();
  });
});

describe('delete --dry-run', () => {
  it('prints the DELETE it would send and stops there: the resource is still there', async () => {
    const res = await http(svc, 'POST', '/v1/resources', {
      key: svc.adminKey,
      body: { resource: { name: 'dry-r1', type: 'email', data: 'aGk=' } },
    });
    const rid = res.body.resourceId;
    expect((await dryRun(['resources', 'delete', String(rid), '--dry-run'])).plan).toMatchObject({
      method: 'DELETE',
      url: `${proxy.url}/v1/resources/${rid}`,
    });
    const ids = (await http(svc, 'GET', '/v1/resources', { key: svc.adminKey })).body.resources.map((r: { id: number }) => r.id);
    expect(ids).toContain(rid);
  });
});
