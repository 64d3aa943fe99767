/**
 * Steps the `lic assemblies` verb tests share, against the file's service (useService): an
 * assembly made through `lic assemblies create -o json`, read back over HTTP, the number
 * stored, unique names, input files.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { http, type TestService } from '../../helpers/service.js';

/** A closed port: a command that sent a request here would fail with exit 5, not 2. */
export const NOWHERE = { LIC_BASE_URL: 'http://127.0.0.1:9', LIC_API_KEY: 'api_aaaaaaaaaaaaaaaaaaaaaaaa' };

/** The steps over `svc` (the CLI run with `env`), input files written into `dir`. */
export function assemblySteps(svc: TestService, env: Record<string, string>, dir: string) {
  let seq = 0;
  /** A fresh assembly name, `PREFIX.NN`. */
  const unique = (p = 'Asm') => `${p}.N${++seq}`;
  /** The number of assemblies stored. */
  const count = () => svc.db.prepare('SELECT count(*) FROM assemblies').pluck().get() as number;
  /** The assembly record the service lists for `id` (undefined when there is none). */
  async function getAssembly(id: number) {
    const r = await http(svc, 'GET', `/v1/assemblies?filter=${encodeURIComponent(`Id = ${id}`)}`, { key: svc.adminKey });
    return r.body.assemblies[0];
  }
  /** `lic assemblies create ... -o json` → the new id. */
  async function createVia(args: string[]): Promise<number> {
    const r = await runCli(['assemblies', 'create', '-o', 'json', ...args], { env });
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout).assemblyId;
  }
  /** Writes `content` to `dir/name`; → its path. */
  function file(name: string, content: string | Buffer): string {
    const p = join(dir, name);
    writeFileSync(p, content);
    return p;
  }
  return { unique, count, getAssembly, createVia, file };
}
