/**
 * What the `lic profile` verb files share: two services a profile can point at, the
 * profile store's file and mode, `add` (a profile through `profile add --api-key-stdin`),
 * and a store of three profiles (`one` the default, `two`, and `odd` with a short key on
 * a host that is not there).
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { runCli, type RunOptions } from '../../helpers/cli.js';
import { useService } from '../../helpers/fixtures.js';
import type { TestService } from '../../helpers/service.js';

/** Two services for the calling file (started in its beforeAll), to tell which one a profile points at. */
export function useTwoServices(): { s1: TestService; s2: TestService } {
  return { s1: useService().svc, s2: useService().svc };
}

export const storeFile = (dir: string) => join(dir, 'profiles.json');
/** The fallback notice of `profile add` where no keyring is reachable (the test context has none). */
export const NOTICE =
  'lic: no keyring reachable (no keyring in this test context): the API key is in the profile file (mode 0600); `lic profile migrate --to keyring` moves it once there is a keyring (--insecure-storage: the file without this notice).';
export const store = (dir: string) => JSON.parse(readFileSync(storeFile(dir), 'utf8'));
export const mode = (dir: string) => statSync(storeFile(dir)).mode & 0o777;

export async function add(dir: string, name: string, url: string, key: string, extra: string[] = [], o: RunOptions = {}) {
  const r = await runCli(['profile', 'add', name, '--base-url', url, '--api-key-stdin', ...extra], {
    configDir: dir,
    stdin: `${key}\n`,
    ...o,
  });
  expect(r.code, r.stderr).toBe(0);
  return r;
}

/** A store in `dir` with profiles one (s1, the default), two (s2) and odd (a short key on a host that is not there). */
export async function threeProfiles(dir: string, s1: TestService, s2: TestService): Promise<void> {
  await add(dir, 'one', s1.url, s1.adminKey);
  await add(dir, 'two', s2.url, s2.adminKey);
  await add(dir, 'odd', 'https://licensing.example.com', 'short');
}

/** A store in `dir` with profiles p1 (s1, the default), p2 (s2) and broken (s1's URL, an unknown key). */
export async function precedenceProfiles(dir: string, s1: TestService, s2: TestService): Promise<void> {
  await add(dir, 'p1', s1.url, s1.adminKey);
  await add(dir, 'p2', s2.url, s2.adminKey);
  await add(dir, 'broken', s1.url, 'api_000000000000000000000000');
}
