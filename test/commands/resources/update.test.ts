/**
 * `lic resources update ID` in-process against the real service on port 0: only the flags
 * given are sent, nothing to change, an unknown id, and new data that is no strong-name key
 * (checked against the stored type and format).
 */
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../helpers/cli.js';
import { useService } from '../../helpers/fixtures.js';
import { generatedKey } from '../../dotnet/generated-key.js';
import { resourceSteps } from './steps.js';
import { useDryRun } from '../../helpers/dry-run.js';
import { http } from '../../helpers/service.js';

const dir = tempDir('lic-res-');
const { svc, env } = useService();
const { dryRun } = useDryRun(svc);
const { unique, storedRow, storedData, createVia, create, file } = resourceSteps(svc, env, dir);
const k2048 = generatedKey(2048);
const junk = Buffer.from('<html><body>not a key</body></html>');

describe('update', () => {
  it('sends only the flags given: the data and the other fields stay', async () => {
    const name = unique('upd');
    const id = await createVia(
      ['--name', name, '--type', 'email', '--format', 'html', '--data-file', file('u.html', '<p>v1</p>'), '--password-stdin'],
      { stdin: 'pw1' },
    );
    const r = await runCli(['resources', 'update', String(id), '--description', 'changed'], { env, stderrTTY: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Updated resource ${id}.`);
    expect(storedRow(id)).toMatchObject({ name, type: 'email', dataFormat: 'html', description: 'changed', password: 'pw1' });
    expect(storedRow(id)!.data.toString()).toBe('<p>v1</p>');
    const d = await runCli(['resources', 'update', String(id), '--data-file', file('u2.html', '<p>v2</p>'), '--format', 'htm'], { env });
    expect(d.code).toBe(0);
    expect(storedRow(id)).toMatchObject({ dataFormat: 'htm', description: 'changed' });
    expect(storedRow(id)!.data.toString()).toBe('<p>v2</p>');
  });

  it('nothing to change is a usage error; an unknown id is exit 4', async () => {
    const none = await runCli(['resources', 'update', '5'], { env });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('nothing to change');
    const missing = await runCli(['resources', 'update', '2147483647', '--type', 'x'], { env });
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain('no resource with id 2147483647');
  });
});

describe('a data file that is no strong-name key is a warning, not an error', () => {
  it('update with new data: checked against the stored type and format when the flags do not give them', async () => {
    const { id: key } = await create('RSA', 'SNK', k2048.pair);
    const path = file('j3', junk);
    const r = await runCli(['resources', 'update', String(key), '--data-file', path], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`^lic: warning: --data-file ${path}: not a strong-name key \\(\\.snk\\)`));
    expect(Buffer.compare(storedData(key), junk)).toBe(0);
    // an e-mail template: no warning; the same template turned into an RSA/SNK key by flags: a warning
    const { id: mail } = await create('email', 'html', junk);
    // in a pipe a success says nothing: stderr empty means no warning
    expect((await runCli(['resources', 'update', String(mail), '--data-file', path], { env })).stderr).toBe('');
    const turned = await runCli(['resources', 'update', String(mail), '--type', 'RSA', '--format', 'SNK', '--data-file', path], { env });
    expect(turned.stderr).toMatch(/^lic: warning: --data-file/);
    // a valid key as new data: silent
    expect((await runCli(['resources', 'update', String(key), '--data-file', file('k', k2048.pair)], { env })).stderr).toBe('');
  });
});

describe('update --dry-run', () => {
  it('prints the PUT it would send and stops there', async () => {
    const res = await http(svc, 'POST', '/v1/resources', {
      key: svc.adminKey,
      body: { resource: { name: 'dry-r1', type: 'email', data: 'aGk=' } },
    });
    const rid = res.body.resourceId;
    expect((await dryRun(['resources', 'update', String(rid), '--description', 'v2', '--dry-run'])).plan).toMatchObject({
      method: 'PUT',
      body: { resource: { id: rid, description: 'v2' } },
    });
  });
});
