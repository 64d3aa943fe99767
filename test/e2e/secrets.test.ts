/**
 * Secrets never leak: a whole administrator workflow with the real binaries
 * — keys created, resources with passwords, --verbose, failed authentications, dry runs,
 * doctor — then everything it produced is searched for any full API key or password:
 * stdout and stderr of every command, the argv of every process, the log table, the
 * SQLite file's bytes (with -wal and -shm), and the profile store. Only where a secret
 * is meant to be does it appear: a new key in the stdout of the `keys create` that made
 * it, the admin key in the profile store and the 0600 keys file it was saved to.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { spawnLic, startLic, type SpawnResult } from '../helpers/spawn.js';

interface Run {
  args: string[];
  result: SpawnResult;
}

describe('secrets never leak', () => {
  it('a whole administrator workflow: no full key or password anywhere it should not be', async () => {
    const dir = tempDir('lic-secrets-');
    const db = join(dir, 'lic.db');
    const keysFile = join(dir, 'keys.json');
    const config = join(dir, 'config');
    const argvs: string[][] = [];
    const serveArgs = ['serve', '--db', db, '--port', '0', '--no-profile', '--keys-file', keysFile, '--log-requests'];
    argvs.push(serveArgs);
    const serve = startLic(serveArgs, { env: { LIC_CONFIG_DIR: config, LIC_DATA_DIR: dir } });
    const runs: Run[] = [];
    try {
      const url = (await serve.waitForStdout(/^(http:\/\/\S+)$/m))[1]!;
      const admin = (JSON.parse(readFileSync(keysFile, 'utf8')) as { keys: { key: string }[] }).keys[0]!.key;
      const env = { LIC_CONFIG_DIR: config, LIC_DATA_DIR: dir };
      const lic = async (args: string[], o: { stdin?: string; env?: Record<string, string> } = {}) => {
        argvs.push(args);
        const result = await spawnLic(args, { env: { ...env, ...o.env }, stdin: o.stdin });
        runs.push({ args, result });
        return result;
      };

      expect((await lic(['profile', 'add', 'ops', '--base-url', url, '--api-key-stdin'], { stdin: admin })).code).toBe(0);
      const made1 = JSON.parse((await lic(['keys', 'create', '--perm', 'rw', '--name', 'ci', '-o', 'json', '-v'])).stdout) as {
        apiKeyId: number;
        key: string;
      };
      const made2 = JSON.parse((await lic(['keys', 'create', '--perm', 'read', '--name', 'reader', '-o', 'json'])).stdout) as {
        apiKeyId: number;
        key: string;
      };
      const passwords = ['pfx-pass-Q7x!2', 'pfx-pass-second-Z9'];
      const data = join(dir, 'key.pfx');
      writeFileSync(data, Buffer.from([0x30, 0x82, 0x01, 0x02, 0xde, 0xad]));
      const res = JSON.parse(
        (
          await lic(
            [
              'resources',
              'create',
              '--name',
              'signing',
              '--type',
              'RSA',
              '--format',
              'PFX',
              '--data-file',
              data,
              '--password-stdin',
              '-o',
              'json',
              '-v',
            ],
            { stdin: passwords[0] },
          )
        ).stdout,
      ) as { resourceId: number };
      expect((await lic(['resources', 'update', String(res.resourceId), '--password-stdin', '-v'], { stdin: passwords[1] })).code).toBe(0);
      await lic(['resources', 'list', '-v']);
      await lic(['resources', 'get', String(res.resourceId), '-o', 'json', '-v']);
      await lic(['keys', 'list', '-v']);
      // dry runs of writes carrying a password and a key
      await lic(['resources', 'create', '--name', 'dry', '--type', 'RSA', '--data-file', data, '--password-stdin', '--dry-run', '-v'], {
        stdin: passwords[0],
      });
      await lic(['keys', 'update', String(made1.apiKeyId), '--name', 'x', '--dry-run']);
      await lic(['api', '-X', 'DELETE', `/v1/api-keys/${made2.apiKeyId}`, '--dry-run']);
      // failed authentications: an unknown key, then a revoked one
      expect((await lic(['keys', 'list', '-v'], { env: { LIC_API_KEY: 'api_zzzzzzzzzzzzzzzzzzzzzzzz', LIC_BASE_URL: url } })).code).toBe(3);
      expect((await lic(['keys', 'update', String(made2.apiKeyId), '--revoke'])).code).toBe(0);
      expect((await lic(['log', 'list', '-v'], { env: { LIC_API_KEY: made2.key, LIC_BASE_URL: url } })).code).toBe(3);
      await lic(['doctor', '-v']);
      await lic(['doctor', '-o', 'json']);
      await lic(['log', 'list', '--all', '-o', 'json']);
      await lic(['profile', 'show']);
      await lic(['profile', 'list']);
      expect(
        runs.filter((r) => r.result.code !== 0 && r.result.code !== 3 && !r.args.includes('doctor')).map((r) => [r.args, r.result.stderr]),
      ).toEqual([]);

      serve.child.kill('SIGTERM');
      const served = await serve.exited;

      const secrets = [admin, made1.key, made2.key, ...passwords];
      const hits: string[] = [];
      const look = (where: string, text: string | Buffer, allowed: string[] = []) => {
        for (const s of secrets) if (!allowed.includes(s) && text.includes(s)) hits.push(`${where}: ${s.slice(0, 8)}…`);
      };
      for (const a of argvs) look(`argv ${a.join(' ')}`, a.join(' '));
      for (const r of runs) {
        const made = r.args[0] === 'keys' && r.args[1] === 'create' ? [made1.key, made2.key] : [];
        look(`stdout of lic ${r.args.join(' ')}`, r.result.stdout, made);
        look(`stderr of lic ${r.args.join(' ')}`, r.result.stderr);
      }
      look('stdout of lic serve', served.stdout);
      look('stderr of lic serve (--log-requests)', served.stderr);
      // the profile store holds the key it was given on purpose, nothing else
      const store = readFileSync(join(config, 'profiles.json'), 'utf8');
      look('the profile store', store, [admin]);
      expect(store).toContain(admin);
      const bytes = Buffer.concat([db, `${db}-wal`, `${db}-shm`].filter(existsSync).map((f) => readFileSync(f)));
      look('the database bytes', bytes);
      const check = new Database(db, { readonly: true });
      try {
        const log = check.prepare('SELECT message, message_template, properties, exception FROM log').all();
        expect(log.length).toBeGreaterThan(5);
        look('the log table', JSON.stringify(log));
      } finally {
        check.close();
      }
      expect(hits).toEqual([]);
      // the files holding secrets on purpose are owner-only, and so is the database
      for (const f of [db, keysFile, join(config, 'profiles.json')]) expect((statSync(f).mode & 0o777).toString(8), f).toBe('600');
    } finally {
      if (serve.child.exitCode === null) serve.child.kill('SIGKILL');
      await serve.exited;
    }
  }, 120_000);
});
