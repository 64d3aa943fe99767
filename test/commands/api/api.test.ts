import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { envFor, runCli, tempDir } from '../../helpers/cli.js';
import { useDryRun } from '../../helpers/dry-run.js';
import { closedPort } from '../../helpers/fake-server.js';
import { http } from '../../helpers/service.js';
import { useService } from '../../helpers/fixtures.js';

describe('lic api', () => {
  const { svc, env } = useService({ seed: 'demo' });

  it('GET with -f query parameters prints the reply unchanged', async () => {
    const r = await runCli(['api', '/v1/log', '-f', 'take=3', '-f', 'filter=Level = "Warning"', '-f', 'select=Id, Level'], { env });
    expect(r.code, r.stderr).toBe(0);
    const direct = await http(
      svc,
      'GET',
      `/v1/log?take=3&filter=${encodeURIComponent('Level = "Warning"')}&select=${encodeURIComponent('Id, Level')}`,
      { key: svc.adminKey },
    );
    expect(JSON.parse(r.stdout)).toEqual(direct.body);
    expect(direct.body.logEntries).toHaveLength(3);
  });

  it('--input FILE posts the body (POST by default) and the record exists afterwards', async () => {
    const f = join(tempDir(), 'a.json');
    writeFileSync(f, JSON.stringify({ assembly: { name: 'ApiLib', version: '1.2.3.4' } }));
    const r = await runCli(['api', '/v1/assemblies', '--input', f], { env });
    expect(r.code, r.stderr).toBe(0);
    const id = JSON.parse(r.stdout).assemblyId as number;
    const list = await http(svc, 'GET', `/v1/assemblies?filter=${encodeURIComponent(`Id = ${id}`)}`, { key: svc.adminKey });
    expect(list.body.assemblies[0]).toMatchObject({ name: 'ApiLib', version: '1.2.3.4' });
  });

  it('--input - reads stdin; PUT with -X', async () => {
    const r = await runCli(['api', '-X', 'PUT', '/v1/api-keys', '--input', '-'], {
      env,
      stdin: JSON.stringify({ apiKey: { id: 2, description: 'via lic api' } }),
    });
    expect(r.code, r.stderr).toBe(0);
    const keys = await http(svc, 'GET', '/v1/api-keys?filter=Id%20%3D%202', { key: svc.adminKey });
    expect(keys.body.apiKeys[0].description).toBe('via lic api');
  });

  it('DELETE needs --yes off a terminal (exit 2, nothing deleted), and works with it', async () => {
    const before = (await http(svc, 'GET', '/v1/log?take=0', { key: svc.adminKey })).body.totalLogEntriesCount;
    const no = await runCli(['api', '-X', 'DELETE', '/v1/log', '-f', 'deleteAll=true'], { env });
    expect(no.code).toBe(2);
    expect((await http(svc, 'GET', '/v1/log?take=0', { key: svc.adminKey })).body.totalLogEntriesCount).toBeGreaterThanOrEqual(before);
    const yes = await runCli(['api', '-X', 'DELETE', '/v1/log', '-f', 'id=1', '--yes'], { env });
    expect(yes.code, yes.stderr).toBe(0);
    expect(JSON.parse(yes.stdout)).toMatchObject({ success: true, deletedLogCount: 1 });
  });

  it('errors keep their exit codes: 404 → 4, 403 → 3, 400 → 1', async () => {
    expect((await runCli(['api', '-X', 'DELETE', '/v1/api-keys/999999', '--yes'], { env })).code).toBe(4);
    const customer = svc.issuedKeys.find((k) => k.role === 'Customer')!.key;
    expect((await runCli(['api', '/v1/api-keys'], { env: envFor(svc, customer) })).code).toBe(3);
    const bad = await runCli(['api', '/v1/log', '-f', 'filter=Level ='], { env });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^lic: filter: .*position/);
  });

  it.each([
    [['api', 'v1/log'], "value 'v1/log' is invalid"],
    [['api', 'http://h/v1/log'], 'expected a path of the API'],
    [['api', '/v1/log?take=5'], 'query parameters go in -f'],
    [['api', '/v1/log', '-f', 'take'], 'expected key=value'],
    [['api', '/v1/log', '-X', 'PATCH'], 'Allowed choices are GET, POST, PUT, DELETE'],
    [['api', '/v1/log', '--input', '/no/such/file'], '--input /no/such/file'],
    [['api', '-X', 'GET', '/v1/log', '--input', '-'], 'GET sends no body'],
  ])('%j: usage error, exit 2, nothing sent', async (args, msg) => {
    const port = await closedPort();
    const r = await runCli(args as string[], { env: { LIC_BASE_URL: `http://127.0.0.1:${port}`, LIC_API_KEY: svc.adminKey }, stdin: '{}' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(msg);
  });
});

describe('--dry-run prints the request and sends no write', () => {
  const { proxy, dryRun } = useDryRun(useService().svc);

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
