/** `assemblies list --signed-by` and the signing-key check of `assemblies create --from-dll`, against the real service on port 0. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { envFor, runCli, tempDir } from '../../helpers/cli.js';
import { listenOnFreePort } from '../../helpers/fake-server.js';
import { addUserWithKey } from '../../helpers/service.js';
import { SHARED_DATA } from '../../helpers/shared-data.js';
import { spawnLic } from '../../helpers/spawn.js';
import { generatedKey } from '../../dotnet/generated-key.js';
import { useService } from '../../helpers/fixtures.js';

/** A closed port: a command that sent a request here would fail with exit 5, not 2. */
const NOWHERE = { LIC_BASE_URL: 'http://127.0.0.1:9', LIC_API_KEY: 'api_aaaaaaaaaaaaaaaaaaaaaaaa' };

const dir = tempDir('lic-signed-');
const keyA = generatedKey(1024);
const keyB = generatedKey(1024);
/** resource ids */
const res = { a: 0, bPublic: 0, mail: 0, junk: 0 };

async function resource(type: string, format: string, data: Buffer): Promise<number> {
  const path = join(dir, `r${Object.values(res).join('-')}-${type}-${format}-${data.length}`);
  writeFileSync(path, data);
  const r = await runCli(['resources', 'create', '-o', 'json', '--name', path, '--type', type, '--format', format, '--data-file', path], {
    env,
  });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).resourceId;
}
async function assembly(name: string, token: string): Promise<void> {
  const r = await runCli(['assemblies', 'create', '--name', name, '--version', '1.0.0.0', '--public-key-token', token || 'null'], { env });
  expect(r.code, r.stderr).toBe(0);
}
const names = (stdout: string) => (JSON.parse(stdout).assemblies as { name: string }[]).map((a) => a.name);
const assemblyCount = () => svc.db.prepare('SELECT count(*) FROM assemblies').pluck().get() as number;

const { svc, env } = useService();
beforeAll(async () => {
  res.a = await resource('RSA', 'SNK', keyA.pair);
  res.bPublic = await resource('RSA', 'SNK', keyB.pub);
  res.mail = await resource('email', 'html', Buffer.from('<p>Dear {CustomerName}</p>'));
  res.junk = await resource('RSA', 'SNK', Buffer.from('not a key at all'));
  await assembly('Signed.A1', keyA.token);
  await assembly('Other.B1', keyB.token);
  await assembly('Signed.A2', keyA.token.toUpperCase());
  await assembly('Unsigned.N1', '');
});

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

// ---------------------------------------------------------------------------
// create --from-dll: needs real assemblies from ../shared/data (skipped visibly without).
// ---------------------------------------------------------------------------

const ROCKS = join(SHARED_DATA, 'Mono.Cecil.Rocks.dll');
const SNK = join(SHARED_DATA, 'Keys.snk');
const haveData = existsSync(ROCKS) && existsSync(SNK);
if (!haveData)
  console.warn(`SKIPPED: the signing-key check of assemblies create --from-dll needs ${SHARED_DATA} (Mono.Cecil.Rocks.dll, Keys.snk)`);

/** Where Mono.Cecil.Rocks.dll keeps its 160-byte strong-name public key (token 0738eb9f132ed756). */
function rocksKeyAt(dll: Buffer): number {
  const at = dll.indexOf(Buffer.from('00240000048000009400000006020000', 'hex'));
  expect(at).toBeGreaterThan(0);
  return at;
}

describe.skipIf(!haveData)('assemblies create --from-dll checks the token against the service’s signing keys', () => {
  it('no signing key matches: a warning naming the token and the keys checked; the assembly is created (exit 0)', async () => {
    const before = assemblyCount();
    const r = await runCli(['assemblies', 'create', '--from-dll', ROCKS], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(assemblyCount()).toBe(before + 1);
    expect(r.stderr).toBe(
      `lic: warning: --from-dll ${ROCKS}: its public key token 0738eb9f132ed756 matches no signing key on the service; ` +
        `the service's signing keys are resources ${res.a}, ${res.bPublic} (tokens ${keyA.token}, ${keyB.token}). This does not stop the create\n`,
    );
    expect(r.stdout).toMatch(/^id\t\d+\n/);
  });

  it('--dry-run warns the same and sends no write', async () => {
    const before = assemblyCount();
    const r = await runCli(['assemblies', 'create', '--from-dll', ROCKS, '--dry-run'], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ method: 'POST', body: { assembly: { publicKeyToken: '0738eb9f132ed756' } } });
    expect(r.stderr).toMatch(/matches no signing key on the service/);
    expect(assemblyCount()).toBe(before);
  });

  it('a key that may not read resources: the check is skipped with a note, the create goes through', async () => {
    const writeOnly = await addUserWithKey(svc, 'asm-writer', 'LicenseManager', 2);
    const before = assemblyCount();
    const r = await runCli(['assemblies', 'create', '--from-dll', ROCKS, '--name', 'Rocks.WriteOnly'], { env: envFor(svc, writeOnly) });
    expect(r.code, r.stderr).toBe(0);
    expect(assemblyCount()).toBe(before + 1);
    expect(r.stderr).toBe(
      `lic: warning: --from-dll ${ROCKS}: the check of public key token 0738eb9f132ed756 against the service's signing keys was skipped: this API key may not read resources (HTTP 403)\n`,
    );
    expect(r.stderr).not.toContain(writeOnly);
  });

  it('once the assembly’s public key is a signing key on the service (sn -p form), no warning', async () => {
    const dll = readFileSync(ROCKS);
    const at = rocksKeyAt(dll);
    const id = await resource('RSA', 'SNK', dll.subarray(at, at + 160));
    const r = await runCli(['assemblies', 'create', '--from-dll', ROCKS, '--name', 'Rocks.Again'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const listed = await runCli(['assemblies', 'list', '--signed-by', String(id), '-o', 'json'], { env });
    // every assembly registered from the DLL above (the names given by --name)
    expect(names(listed.stdout)).toEqual(['Mono.Cecil.Rocks', 'Rocks.WriteOnly', 'Rocks.Again']);
  });

  it('an assembly carrying Keys.snk’s public key matches the Keys.snk resource, and --signed-by lists it', async () => {
    // Mono.Cecil.Rocks.dll with Keys.snk's public key in its metadata: the identity an assembly signed with Keys.snk declares
    const id = await resource('RSA', 'SNK', readFileSync(SNK));
    const get = await runCli(['resources', 'get', String(id), '-o', 'ndjson'], { env });
    const token = JSON.parse(get.stdout).publicKeyToken as string;
    const dll = Buffer.from(readFileSync(ROCKS));
    const { readStrongNameKey } = await import('../../../src/dotnet/strong-name.js');
    Buffer.from(readStrongNameKey(readFileSync(SNK)).publicKey).copy(dll, rocksKeyAt(dll));
    const patched = join(dir, 'Signed.With.Keys.dll');
    writeFileSync(patched, dll);
    const r = await runCli(['assemblies', 'create', '--from-dll', patched, '--name', 'Signed.With.Keys', '-o', 'json'], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const listed = await runCli(['assemblies', 'list', '--signed-by', String(id), '-o', 'json'], { env });
    expect(names(listed.stdout)).toEqual(['Signed.With.Keys']);
    expect(JSON.parse(listed.stdout).assemblies[0].publicKeyToken).toBe(token);
  });
});
