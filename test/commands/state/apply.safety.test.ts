/**
 * `lic apply` and `lic diff` keeping the operator safe (issue 33): a change to the key lic
 * runs with that could lock it out is named, put last and needs a confirmation; `--key-dir`
 * never writes through a link nor over an existing file, and stops before anything is sent;
 * a create whose reply was lost is named, and the re-run rotates that key.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envFor, runCli, tempDir } from '../../helpers/cli.js';
import { startRecordingProxy, type RecordingProxy } from '../../helpers/recording-proxy.js';
import { addUserWithKey, startTestService, type TestService } from '../../helpers/service.js';

let svc: TestService;
let proxy: RecordingProxy;
/** the request whose reply the proxy loses next (once) */
let loseNext: string | undefined;
const dir = tempDir('lic-safety-');

beforeAll(async () => {
  svc = await startTestService();
  proxy = await startRecordingProxy(svc.url, {
    lose: (req) => {
      if (!loseNext || !req.startsWith(loseNext)) return false;
      loseNext = undefined;
      return true;
    },
  });
});
afterAll(async () => {
  await proxy.close();
  await svc.close();
});

const lic = (key: string, args: string[]) => runCli(args, { env: envFor(proxy, key) });
const writesSince = (from: number) => proxy.seen.slice(from).filter((l) => !l.startsWith('GET '));
const keyRows = (name: string) =>
  svc.db.prepare('SELECT id, revoked, key_prefix AS prefix FROM api_keys WHERE name = ? ORDER BY id').all(name) as {
    id: number;
    revoked: number;
    prefix: string;
  }[];
const stateFile = (name: string, keys: object[]) => {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify({ version: 1, keys }));
  return path;
};

describe('the key lic runs with', () => {
  it('a file revoking it, then a create: diff warns, apply refuses off a terminal without --yes, and with --yes revokes it last', async () => {
    const own = await addUserWithKey(svc, 'boss', 'Administrator', 7);
    const file = stateFile('revoke-own.json', [
      { name: 'boss-7', ownerId: 'boss', permissions: 7, revoked: true },
      { name: 'made-after', ownerId: 'boss', permissions: 1 },
    ]);
    const diff = await lic(own, ['diff', '-f', file, '-o', 'json']);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stderr).toContain('lic: warning: the update of API key "boss-7"');
    expect(diff.stderr).toContain('changes the key lic runs with: it revokes it');
    // the change to the running key is last, whatever the file's order
    expect(JSON.parse(diff.stdout).steps.map((s: { action: string; item: string }) => `${s.action} ${s.item}`)).toEqual([
      'create made-after',
      'update boss-7',
    ]);

    const from = proxy.seen.length;
    const refused = await lic(own, ['apply', '-f', file]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain('refusing to update API key "boss-7", the key lic runs with (it revokes it)');
    expect(writesSince(from)).toEqual([]);
    expect(keyRows('boss-7')[0]!.revoked).toBe(0);

    const done = await lic(own, ['apply', '-f', file, '--yes']);
    expect(done.code, done.stderr).toBe(0);
    expect(writesSince(from).map((w) => w.split(' ')[0])).toEqual(['POST', 'PUT']);
    expect(keyRows('made-after')).toHaveLength(1);
    expect(keyRows('boss-7')[0]!.revoked).toBe(1);
  });

  it('an expiry within a day, fewer permission bits or another owner on it are warned of too; the same on another key is not', async () => {
    const own = await addUserWithKey(svc, 'chief', 'Administrator', 7);
    await addUserWithKey(svc, 'other', 'Administrator', 7);
    const soon = new Date(Date.now() + 60 * 60 * 1000).toISOString();
    const file = stateFile('cut-own.json', [
      { name: 'chief-7', ownerId: 'other', permissions: 1, expireDate: soon },
      { name: 'other-7', ownerId: 'other', permissions: 1, revoked: true },
    ]);
    const diff = await lic(own, ['diff', '-f', file]);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stderr).toContain(
      `it makes it expire at ${soon}, takes permission bits 6 (-wd) away, moves it from owner "chief" to "other" (and that owner's role)`,
    );
    expect(diff.stderr).not.toContain('"other-7"');
  });
});

describe('--key-dir', () => {
  it('a link or a file where a new key would go: exit 2 naming it, nothing sent, the link’s target untouched', async () => {
    const kd = join(dir, 'kd-link');
    mkdirSync(kd);
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'precious\n');
    symlinkSync(victim, join(kd, 'linked.key'));
    writeFileSync(join(kd, 'taken.key'), 'old secret\n');
    for (const name of ['linked', 'taken']) {
      const file = stateFile(`${name}.json`, [{ name, ownerId: 'admin', permissions: 1 }]);
      const from = proxy.seen.length;
      const r = await lic(svc.adminKey, ['apply', '-f', file, '--key-dir', kd]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`lic: --key-dir: ${join(kd, `${name}.key`)} already exists`);
      expect(writesSince(from)).toEqual([]);
      expect(keyRows(name)).toEqual([]);
    }
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(readFileSync(join(kd, 'taken.key'), 'utf8')).toBe('old secret\n');
  });
});

describe('a create whose reply was lost', () => {
  it('apply names the key and its id; the re-run rotates it and writes the new secret', async () => {
    const kd = join(dir, 'kd-lost');
    const file = stateFile('lost.json', [{ name: 'lost-one', ownerId: 'admin', permissions: 1 }]);
    loseNext = 'POST /v1/api-keys';
    const r = await lic(svc.adminKey, ['apply', '-f', file, '--key-dir', kd]);
    expect(r.code, r.stderr).toBe(1);
    const first = keyRows('lost-one');
    expect(first).toHaveLength(1);
    expect(r.stderr).toContain(`the API key "lost-one" was created (id ${first[0]!.id}) but the reply carrying its secret was lost`);
    expect(existsSync(join(kd, 'lost-one.key'))).toBe(false);

    const diff = await lic(svc.adminKey, ['apply', '-f', file, '--key-dir', kd, '--dry-run']);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stderr).toContain('API key "lost-one"');
    expect(diff.stderr).toContain('its secret was never written');
    const from = proxy.seen.length;
    const again = await lic(svc.adminKey, ['apply', '-f', file, '--key-dir', kd]);
    expect(again.code, again.stderr).toBe(0);
    expect(writesSince(from).map((w) => w.split('?')[0])).toEqual([`DELETE /v1/api-keys/${first[0]!.id}`, 'POST /v1/api-keys']);
    const now = keyRows('lost-one');
    expect(now).toHaveLength(1);
    expect(now[0]!.id).not.toBe(first[0]!.id);
    const secret = readFileSync(join(kd, 'lost-one.key'), 'utf8').trim();
    expect(secret.startsWith(now[0]!.prefix)).toBe(true);
    expect(existsSync(join(kd, 'lost-one.key.pending'))).toBe(false);

    // and then nothing is left to do
    const third = await lic(svc.adminKey, ['apply', '-f', file, '--key-dir', kd, '-v']);
    expect(third.code, third.stderr).toBe(0);
    expect(third.stderr).toContain('No changes'); // a success note: -v shows it off a terminal
  });

  it('a marker left beside its key file (apply killed after writing the secret) is removed: moving the key file away later rotates nothing', async () => {
    const kd = join(dir, 'kd-stale');
    const file = stateFile('stale.json', [{ name: 'kept-one', ownerId: 'admin', permissions: 1 }]);
    const r = await lic(svc.adminKey, ['apply', '-f', file, '--key-dir', kd]);
    expect(r.code, r.stderr).toBe(0);
    const made = keyRows('kept-one');
    expect(made).toHaveLength(1);
    writeFileSync(join(kd, 'kept-one.key.pending'), '', { mode: 0o600 }); // as a kill between the two steps leaves it
    const dry = await lic(svc.adminKey, ['apply', '-f', file, '--key-dir', kd, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(existsSync(join(kd, 'kept-one.key.pending'))).toBe(true); // a dry run changes no file
    const again = await lic(svc.adminKey, ['apply', '-f', file, '--key-dir', kd]);
    expect(again.code, again.stderr).toBe(0);
    expect(existsSync(join(kd, 'kept-one.key.pending'))).toBe(false);
    renameSync(join(kd, 'kept-one.key'), join(dir, 'kept-one.key.vaulted'));
    const from = proxy.seen.length;
    const later = await lic(svc.adminKey, ['apply', '-f', file, '--key-dir', kd]);
    expect(later.code, later.stderr).toBe(0);
    expect(writesSince(from)).toEqual([]);
    expect(keyRows('kept-one').map((k) => k.id)).toEqual(made.map((k) => k.id));
  });

  it('a create the service refuses (an unknown owner) leaves no marker: the re-run creates, it does not rotate', async () => {
    const kd = join(dir, 'kd-refused');
    const file = stateFile('refused.json', [{ name: 'refused-one', ownerId: 'nobody-here', permissions: 1 }]);
    const r = await lic(svc.adminKey, ['apply', '-f', file, '--key-dir', kd]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('is not a known user');
    expect(existsSync(join(kd, 'refused-one.key'))).toBe(false);
    expect(existsSync(join(kd, 'refused-one.key.pending'))).toBe(false);
    const plan = await lic(svc.adminKey, ['apply', '-f', file, '--key-dir', kd, '--dry-run']);
    expect(plan.code, plan.stderr).toBe(0);
    // one request, the create: no DELETE of a rotation
    expect(plan.stderr).toContain('1 request(s) above');
    expect(plan.stdout).toMatch(/"method":\s*"POST"/);
    expect(plan.stdout).not.toMatch(/"method":\s*"DELETE"/);
  });
});
