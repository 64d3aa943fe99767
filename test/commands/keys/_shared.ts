/**
 * What the `lic keys` verb files share: the service a file runs against with every CLI
 * output of the file recorded (useKeysCli: a full key may show only in the stdout of the
 * `keys create` that made it), and a service with many keys of two users for the list
 * machinery (useManyKeys).
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { envFor, runCli, type RunOptions } from '../../helpers/cli.js';
import { addUserWithKey, http } from '../../helpers/service.js';
import { useService } from '../../helpers/fixtures.js';

/** One CLI run of a file: its argv and what it printed. */
export interface TranscriptEntry {
  args: string[];
  stdout: string;
  stderr: string;
}

/** Asserts that no secret shows in any stderr, and in a stdout only of the `keys create` that made it. */
export function expectNoLeak(transcript: TranscriptEntry[], secrets: Iterable<string>): void {
  for (const t of transcript) {
    for (const s of secrets) {
      expect(t.stderr, `stderr of ${t.args.join(' ')}`).not.toContain(s);
      if (t.stdout.includes(s)) expect(t.args.slice(0, 2), `stdout of ${t.args.join(' ')}`).toEqual(['keys', 'create']);
    }
  }
}

/**
 * Starts the service for the calling file (useService) and gives `lic` (in-process, the
 * Administrator key unless `key`), `create` (a key through the CLI → its id and secret) and
 * `listed` (a key as the service lists it) over it. Every run of `lic` goes to `transcript`
 * and every key made or known to `secrets`; with `checkAfterAll`, an afterAll asserts
 * expectNoLeak over the whole file.
 */
export function useKeysCli(opts: { checkAfterAll?: boolean } = {}) {
  /** every output of every run here, to check no full key except a freshly created one's ever shows */
  const transcript: TranscriptEntry[] = [];
  const secrets = new Set<string>();
  const { svc } = useService();
  beforeAll(async () => {
    secrets.add(svc.adminKey);
  });
  if (opts.checkAfterAll) afterAll(() => expectNoLeak(transcript, secrets));

  async function lic(args: string[], o: RunOptions & { key?: string } = {}) {
    const r = await runCli(args, { ...o, env: { ...envFor(svc, o.key ?? svc.adminKey), ...o.env } });
    transcript.push({ args, stdout: r.stdout, stderr: r.stderr });
    return r;
  }

  /** Creates a key through the CLI and returns its id and secret. */
  async function create(flags: string[], o: RunOptions & { key?: string } = {}): Promise<{ id: number; key: string }> {
    const r = await lic(['keys', 'create', ...flags, '-o', 'json'], o);
    expect(r.code, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout);
    secrets.add(body.key);
    return { id: body.apiKeyId, key: body.key };
  }

  async function listed(id: number) {
    const r = await http(svc, 'GET', `/v1/api-keys?filter=${encodeURIComponent(`Id = ${id}`)}`, { key: svc.adminKey });
    return r.body.apiKeys[0];
  }

  return { svc, transcript, secrets, lic, create, listed };
}

/** A key as the database holds it. */
export interface KeyRow {
  id: number;
  owner_id: string;
  revoked: number;
  expire_date: number | null;
}

/** How many keys useManyKeys puts straight into the database, beyond a page of 1000. */
const BULK = 1200;

/**
 * A second service for the calling file with many keys: u1's three (one revoked, one
 * expired) and u2's two (one expiring in the future), all Sales, then BULK more of u2's
 * straight into the database (every fifth revoked). `secrets` holds every full key;
 * `dbKeys()` the keys in id order as the database has them.
 */
export function useManyKeys() {
  const secrets: string[] = [];
  const { svc, env } = useService();
  const dbKeys = (): KeyRow[] => svc.db.prepare('SELECT id, owner_id, revoked, expire_date FROM api_keys ORDER BY id').all() as KeyRow[];
  beforeAll(async () => {
    secrets.push(svc.adminKey);
    for (const [user, perm] of [
      ['u1', 1],
      ['u1', 3],
      ['u1', 7],
      ['u2', 1],
      ['u2', 5],
    ] as const) {
      secrets.push(await addUserWithKey(svc, user, 'Sales', perm));
    }
    const ids = dbKeys().map((k) => k.id);
    // one of u1's revoked, one of u1's expired, one of u2's expiring in the future
    svc.db.prepare('UPDATE api_keys SET revoked = 1 WHERE id = ?').run(ids[1]);
    svc.db.prepare('UPDATE api_keys SET expire_date = ? WHERE id = ?').run(Date.now() - 86_400_000, ids[2]);
    svc.db.prepare('UPDATE api_keys SET expire_date = ? WHERE id = ?').run(Date.now() + 86_400_000, ids[4]);
    // many more straight into the database, for paging; every fifth revoked
    const ins = svc.db.prepare(
      'INSERT INTO api_keys (name, owner_id, permissions, created_at, key_prefix, key_hash, revoked) VALUES (?, ?, 1, ?, ?, ?, ?)',
    );
    svc.db.transaction(() => {
      for (let i = 0; i < BULK; i++) ins.run(`bulk, "${i}"`, 'u2', Date.now(), 'api_bulk', `hash-${i}`, i % 5 === 0 ? 1 : 0);
    })();
  });
  return { svc, env, secrets, dbKeys };
}

/** The GET requests a --verbose run made, as URLs. */
export const requests = (stderr: string): URL[] => [...stderr.matchAll(/^> GET (\S+)/gm)].map((m) => new URL(m[1]!));
