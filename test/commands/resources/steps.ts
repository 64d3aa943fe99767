/**
 * Steps the `lic resources` verb tests share, against the file's service (useService):
 * a resource made through `lic resources create -o json`, read back straight from SQLite
 * (its password opened: it is sealed at rest), the number stored, unique names, input files.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { openStoredSecret, type TestService } from '../../helpers/service.js';

/** A closed port: a command that sent a request here would fail with exit 5, not 2. */
export const NOWHERE = { LIC_BASE_URL: 'http://127.0.0.1:9', LIC_API_KEY: 'api_aaaaaaaaaaaaaaaaaaaaaaaa' };

/** The steps over `svc` (the CLI run with `env`), input files written into `dir`. */
export function resourceSteps(svc: TestService, env: Record<string, string>, dir: string) {
  let seq = 0;
  /** A fresh resource name, `PREFIX-N`. */
  const unique = (p = 'r') => `${p}-${++seq}`;
  /** The number of resources stored. */
  const count = () => svc.db.prepare('SELECT count(*) FROM resources').pluck().get() as number;
  /** A resource as stored, its password opened with the test key (it is sealed at rest) */
  const storedRow = (id: number) => {
    const row = svc.db
      .prepare('SELECT name, type, code, description, source, password, data, data_format AS dataFormat FROM resources WHERE id = ?')
      .get(id) as
      | {
          name: string;
          type: string;
          code: string;
          description: string;
          source: string;
          password: string;
          data: Buffer;
          dataFormat: string;
        }
      | undefined;
    return row && { ...row, password: openStoredSecret(row.password) };
  };
  /** `lic resources create ... -o json` → the new id. */
  async function createVia(args: string[], o: { stdin?: string } = {}): Promise<number> {
    const r = await runCli(['resources', 'create', '-o', 'json', ...args], { env, stdin: o.stdin });
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout).resourceId;
  }
  /** Writes `content` to `dir/name`; → its path. */
  function file(name: string, content: string | Buffer): string {
    const p = join(dir, name);
    writeFileSync(p, content);
    return p;
  }
  /** The data bytes stored for resource `id`. */
  const storedData = (id: number) => (svc.db.prepare('SELECT data FROM resources WHERE id = ?').get(id) as { data: Buffer }).data;
  /** `lic resources create` of `data` (from a file) with that type and format → the new id and the run's stderr (a warning, if any). */
  async function create(type: string, format: string, data: Buffer): Promise<{ id: number; stderr: string }> {
    const r = await runCli(
      [
        'resources',
        'create',
        '-o',
        'json',
        '--name',
        unique('k'),
        '--type',
        type,
        '--format',
        format,
        '--data-file',
        file(unique('f'), data),
      ],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    return { id: JSON.parse(r.stdout).resourceId, stderr: r.stderr };
  }
  return { unique, count, storedRow, storedData, createVia, create, file };
}
