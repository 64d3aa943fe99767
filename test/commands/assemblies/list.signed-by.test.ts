/** `lic assemblies list --signed-by RESOURCE_ID` against the real service on port 0 (the records: signing-keys.ts). */
import { createServer, request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { listenOnFreePort } from '../../helpers/fake-server.js';
import { spawnLic } from '../../helpers/spawn.js';
import { NOWHERE, useSigningKeys } from './signing-keys.js';

const { svc, env, keyA, res, names } = useSigningKeys();

describe('assemblies list --signed-by RESOURCE_ID', () => {
  it('keeps the assemblies whose public key token is that key pair’s (one given in upper case too), with the total of those', async () => {
    const r = await runCli(['assemblies', 'list', '--signed-by', String(res.a), '-o', 'json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(names(r.stdout)).toEqual(['Signed.A1', 'Signed.A2']);
    expect(JSON.parse(r.stdout).totalAssembliesCount).toBe(2);
  });

  it('a resource holding only the public key works the same', async () => {
    const r = await runCli(['assemblies', 'list', '--signed-by', String(res.bPublic), '-o', 'json'], { env });
    expect(names(r.stdout)).toEqual(['Other.B1']);
  });

  it('combines with --name, --fields, --all paging and the table', async () => {
    const byName = await runCli(['assemblies', 'list', '--signed-by', String(res.a), '--name', 'Signed.A2', '-o', 'json'], { env });
    expect(names(byName.stdout)).toEqual(['Signed.A2']);
    const csv = await runCli(['assemblies', 'list', '--signed-by', String(res.a), '--fields', 'name', '-o', 'csv'], { env });
    expect(csv.stdout).toBe('name\nSigned.A1\nSigned.A2\n');
    const paged = await runCli(['assemblies', 'list', '--signed-by', String(res.a), '--all', '--take', '1', '-o', 'ndjson'], { env });
    expect(
      paged.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).name),
    ).toEqual(['Signed.A1', 'Signed.A2']);
    const piped = await runCli(['assemblies', 'list', '--signed-by', String(res.a)], { env });
    expect(
      piped.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t')[1]),
    ).toEqual(['Signed.A1', 'Signed.A2']);
  });

  it('keeps only matching records even from a service that ignores the filter (client-side check)', async () => {
    // a proxy that drops `filter` from assembly lists: what a service without filters would do
    let unfiltered = 0;
    const proxy = createServer((req, res2) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/v1/assemblies' && url.searchParams.has('filter')) {
        url.searchParams.delete('filter');
        unfiltered++;
      }
      const up = new URL(svc.url);
      const fwd = httpRequest(
        {
          host: up.hostname,
          port: up.port,
          method: req.method,
          path: url.pathname + url.search,
          headers: { ...req.headers, host: up.host },
        },
        (r) => {
          res2.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res2);
        },
      );
      req.pipe(fwd);
    });
    const port = await listenOnFreePort(proxy);
    try {
      const r = await runCli(['assemblies', 'list', '--signed-by', String(res.a), '-o', 'json'], {
        env: { ...env, LIC_BASE_URL: `http://127.0.0.1:${port}` },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(unfiltered).toBe(1);
      expect(names(r.stdout)).toEqual(['Signed.A1', 'Signed.A2']);
    } finally {
      await new Promise((done) => proxy.close(done));
    }
  });

  it('a resource that is no RSA/SNK signing key is exit 2 naming --signed-by; nothing on stdout', async () => {
    const mail = await runCli(['assemblies', 'list', '--signed-by', String(res.mail)], { env });
    expect(mail.code).toBe(2);
    expect(mail.stdout).toBe('');
    expect(mail.stderr).toBe(
      `lic: --signed-by ${res.mail}: resource ${res.mail} (type "email", format "html") is not a strong-name signing key; give the id of a resource of type RSA and format SNK (lic resources list --type RSA --format SNK)\n`,
    );
    const junk = await runCli(['assemblies', 'list', '--signed-by', String(res.junk)], { env });
    expect(junk.code).toBe(2);
    expect(junk.stderr).toMatch(
      new RegExp(`^lic: --signed-by ${res.junk}: the data of resource ${res.junk} is not a strong-name key \\(\\.snk\\): `),
    );
  });

  it('an unknown resource is exit 4; a bad id or --public-key-token beside it is exit 2 before any request', async () => {
    const missing = await runCli(['assemblies', 'list', '--signed-by', '2147483647'], { env });
    expect(missing.code).toBe(4);
    expect(missing.stderr).toBe('lic: --signed-by 2147483647: no resource with id 2147483647\n');
    const bad = await runCli(['assemblies', 'list', '--signed-by', 'abc'], { env: NOWHERE });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("option '--signed-by <resource-id>' argument 'abc' is invalid");
    const both = await runCli(['assemblies', 'list', '--signed-by', '1', '--public-key-token', keyA.token], { env: NOWHERE });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("option '--signed-by <resource-id>' cannot be used with option '--public-key-token <hex>'");
  });

  it('the built CLI: exit 2, one line on stderr, no stack trace', async () => {
    const r = await spawnLic(['assemblies', 'list', '--signed-by', String(res.mail)], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
