/** `lic assemblies delete ID` in-process against the real service on port 0: --yes off a terminal, the question on one. */
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../helpers/cli.js';
import { useService } from '../../helpers/fixtures.js';
import { assemblySteps } from './steps.js';
import { useDryRun } from '../../helpers/dry-run.js';
import { http } from '../../helpers/service.js';

const { svc, env } = useService();
const { proxy, dryRun } = useDryRun(svc);
const { unique, getAssembly, createVia } = assemblySteps(svc, env, tempDir('lic-asm-'));

describe('update and delete', () => {
  it('delete needs --yes off a terminal, asks on one, and then deletes', async () => {
    const id = await createVia(['--name', unique('Del')]);
    const no = await runCli(['assemblies', 'delete', String(id)], { env });
    expect(no.code).toBe(2);
    expect(await getAssembly(id)).toBeDefined();
    const asked = await runCli(['assemblies', 'delete', String(id)], { env, tty: true, confirm: [false] });
    expect(asked.code).toBe(1);
    expect(asked.prompts[0]).toContain(`delete assembly ${id} on ${new URL(svc.url).host}`);
    expect(await getAssembly(id)).toBeDefined();
    const yes = await runCli(['assemblies', 'delete', String(id), '--yes'], { env });
    expect(yes.code).toBe(0);
    expect(await getAssembly(id)).toBeUndefined();
    expect((await runCli(['assemblies', 'delete', String(id), '--yes'], { env })).code).toBe(4);
  });
});

describe('delete --dry-run', () => {
  it('prints the DELETE it would send and stops there: the assembly is still there', async () => {
    const asm = await http(svc, 'POST', '/v1/assemblies', {
      key: svc.adminKey,
      body: { assembly: { name: 'DryLib', version: '1.0.0.0' } },
    });
    const aid = asm.body.assemblyId;
    expect((await dryRun(['assemblies', 'delete', String(aid), '--dry-run'])).plan).toMatchObject({
      method: 'DELETE',
      url: `${proxy.url}/v1/assemblies/${aid}`,
    });
    const ids = (await http(svc, 'GET', '/v1/assemblies', { key: svc.adminKey })).body.assemblies.map((a: { id: number }) => a.id);
    expect(ids).toContain(aid);
  });
});
