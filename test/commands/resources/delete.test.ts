/** `lic resources delete ID` in-process against the real service on port 0: --yes off a terminal, the question on one. */
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../helpers/cli.js';
import { useService } from '../../helpers/fixtures.js';
import { resourceSteps } from './steps.js';

const { svc, env } = useService();
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
