/**
 * The signing-key check of `lic assemblies create --from-dll` against the real service on
 * port 0 (the records: signing-keys.ts): a token that matches no signing key on the service
 * is a warning, not an error; needs real assemblies from ../shared/data (skipped visibly without).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { envFor, runCli } from '../../helpers/cli.js';
import { addUserWithKey } from '../../helpers/service.js';
import { SHARED_DATA } from '../../helpers/shared-data.js';
import { useSigningKeys } from './signing-keys.js';

const { svc, env, dir, keyA, keyB, res, resource, names, assemblyCount } = useSigningKeys();

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
