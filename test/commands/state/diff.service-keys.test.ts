/**
 * The service's API keys as diff, apply and export read them (src/commands/state/current.ts),
 * each kept once as its page comes: several names shared by three keys and by two, in an
 * order where a later group's first key comes before an earlier group's second, are named in
 * one line in the order of their first ids, each with all its ids; and a key's expiry is
 * compared as the file writes it (no drift on an unchanged service).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { useService } from '../../helpers/fixtures.js';

const NOW = new Date('2026-11-27T09:00:00.000Z');
const { svc, env } = useService({ now: () => NOW });
const lic = (args: string[]) => runCli(args, { env, now: () => NOW });

beforeEach(() => {
  svc.db.exec('DELETE FROM api_keys WHERE id <> 1;');
});

/** Creates a key named `name` (read permission, expiring `expires` when given); its id. */
async function key(name: string, expires?: string): Promise<number> {
  const r = await lic(['keys', 'create', '--name', name, '--perm', 'read', ...(expires ? ['--expires', expires] : []), '-o', 'json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).apiKeyId as number;
}

describe("the service's API keys", () => {
  it('names shared by three keys and by two: one line, groups in the order of their first ids, every id', async () => {
    const b1 = await key('b');
    const a1 = await key('a');
    const b2 = await key('b');
    await key('c');
    const a2 = await key('a');
    const b3 = await key('b');
    const r = await lic(['state', 'export']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `lic: the service has API keys that share a name, which a state file names them by: "b" (ids ${b1}, ${b2}, ${b3}); "a" (ids ${a1}, ${a2}); make them unique (lic keys update ${b2} --name b-${b2}, lic keys update ${b3} --name b-${b3}, lic keys update ${a2} --name a-${a2}) and run it again; nothing was written or sent\n`,
    );
  });

  it('keys sharing an expiry, and one without: exported, then no drift', async () => {
    await key('e1', '2030-01-01T00:00:00Z');
    await key('e2', '2030-01-01T00:00:00Z');
    await key('e3');
    const exported = await lic(['state', 'export']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toMatch(/expireDate: 2030-01-01T00:00:00.000Z/);
    const d = await runCli(['diff', '-f', '-', '--exit-code'], { env, now: () => NOW, stdin: exported.stdout });
    expect(d.code, d.stderr).toBe(0);
  });
});
