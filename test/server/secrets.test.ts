/**
 * Resource passwords at rest: sealed under a key outside the database, so
 * the database's bytes (with its -wal and -shm) never hold one; the key file is 0600; a
 * missing or wrong key stops the service at start rather than losing passwords later.
 */
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase, startService } from '../../src/server/index.js';
import { secretBox } from '../../src/server/secrets.js';
import { tempDir } from '../helpers/cli.js';
import { http } from '../helpers/service.js';

const PASSWORD = 'pfx-Passw0rd-7c1e';

/** Every byte the database has on disk: the file, its WAL and shared memory. */
const dbBytes = (db: string) => Buffer.concat([db, `${db}-wal`, `${db}-shm`].filter(existsSync).map((f) => readFileSync(f)));

async function withPassword(db: string, env?: string) {
  const svc = await startService({ dbPath: db, port: 0, secretKey: env });
  const key = svc.issuedKeys[0]?.key;
  return { svc, key };
}

describe('resource passwords at rest', () => {
  it('are sealed with the key in <db>.key (0600): not in the database bytes, and the key opens them', async () => {
    const dir = tempDir();
    const db = join(dir, 'lic.db');
    const { svc, key } = await withPassword(db);
    expect(svc.secretKeySource).toEqual({ kind: 'file', path: `${db}.key`, created: true });
    const r = await http(svc, 'POST', '/v1/resources', {
      key,
      body: { resource: { name: 'pfx', type: 'RSA', dataFormat: 'PFX', data: 'AAEC', password: PASSWORD } },
    });
    expect(r.status).toBe(200);
    await http(svc, 'PUT', '/v1/resources', { key, body: { resource: { id: r.body.resourceId, password: `${PASSWORD}-2` } } });
    const stored = svc.db.prepare('SELECT password FROM resources WHERE id = ?').pluck().get(r.body.resourceId) as string;
    expect(stored).toMatch(/^enc:v1:/);
    expect(dbBytes(db).includes(Buffer.from(PASSWORD))).toBe(false);
    await svc.close();
    expect(dbBytes(db).includes(Buffer.from(PASSWORD))).toBe(false);
    expect((statSync(`${db}.key`).mode & 0o777).toString(8)).toBe('600');
    const fileKey = Buffer.from(readFileSync(`${db}.key`, 'utf8').trim(), 'base64');
    expect(secretBox(fileKey).open(stored)).toBe(`${PASSWORD}-2`);
    // a restart finds its key
    const again = await startService({ dbPath: db, port: 0 });
    expect(again.secretKeySource).toEqual({ kind: 'file', path: `${db}.key` });
    await again.close();
  });

  it('a database with sealed passwords and no key file refuses to start, naming the file', async () => {
    const dir = tempDir();
    const db = join(dir, 'lic.db');
    const { svc, key } = await withPassword(db);
    await http(svc, 'POST', '/v1/resources', { key, body: { resource: { name: 'pfx', password: PASSWORD } } });
    await svc.close();
    rmSync(`${db}.key`);
    await expect(startService({ dbPath: db, port: 0 })).rejects.toThrow(
      `holds encrypted resource passwords but their key file ${db}.key is missing`,
    );
    // the wrong key is refused too
    await expect(startService({ dbPath: db, port: 0, secretKey: Buffer.alloc(32, 7).toString('base64') })).rejects.toThrow(
      'not the key the database was sealed with',
    );
  });

  it('LIC_SECRET_KEY instead of a file: no key file is made; a malformed one is refused', async () => {
    const dir = tempDir();
    const db = join(dir, 'lic.db');
    const k = Buffer.alloc(32, 9).toString('hex');
    const svc = await startService({ dbPath: db, port: 0, secretKey: k });
    expect(svc.secretKeySource).toEqual({ kind: 'env' });
    expect(existsSync(`${db}.key`)).toBe(false);
    await svc.close();
    await expect(startService({ dbPath: join(dir, 'b.db'), port: 0, secretKey: 'short' })).rejects.toThrow(
      'LIC_SECRET_KEY must hold 32 bytes',
    );
  });

  it('passwords of an older database (plain text) and of a seed file are sealed', async () => {
    const dir = tempDir();
    const db = join(dir, 'old.db');
    const raw = openDatabase(db);
    raw.prepare("INSERT INTO resources (name, password, created_at, updated_at) VALUES ('old', ?, 0, 0)").run(PASSWORD);
    raw.close();
    const svc = await startService({ dbPath: db, port: 0 });
    expect(svc.db.prepare("SELECT password FROM resources WHERE name = 'old'").pluck().get()).toMatch(/^enc:v1:/);
    await svc.close();
  });
});
