/**
 * The service the signing-key tests of `lic assemblies` run against (list.signed-by.test.ts,
 * create.signing-key.test.ts): a fresh one (useService) holding two generated 1024-bit key
 * pairs as RSA/SNK resources (one as its public key alone), an e-mail template, an RSA/SNK
 * resource whose data is no key, and four assemblies: two signed by key A (one token given
 * in upper case), one by key B, one not strong-named.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect } from 'vitest';
import { runCli, tempDir } from '../../helpers/cli.js';
import { useService } from '../../helpers/fixtures.js';
import { generatedKey } from '../../dotnet/generated-key.js';

/** A closed port: a command that sent a request here would fail with exit 5, not 2. */
export const NOWHERE = { LIC_BASE_URL: 'http://127.0.0.1:9', LIC_API_KEY: 'api_aaaaaaaaaaaaaaaaaaaaaaaa' };

/** Starts the service and makes the records above in a beforeAll; → the service, the keys, the resource ids and the steps the tests use. */
export function useSigningKeys() {
  const dir = tempDir('lic-signed-');
  const keyA = generatedKey(1024);
  const keyB = generatedKey(1024);
  /** resource ids */
  const res = { a: 0, bPublic: 0, mail: 0, junk: 0 };

  /** `lic resources create` of `data` with that type and format → the new id. */
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
    const r = await runCli(['assemblies', 'create', '--name', name, '--version', '1.0.0.0', '--public-key-token', token || 'null'], {
      env,
    });
    expect(r.code, r.stderr).toBe(0);
  }
  /** The names of the assemblies of a `-o json` list. */
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
  return { svc, env, dir, keyA, keyB, res, resource, names, assemblyCount };
}
