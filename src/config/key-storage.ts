/**
 * Where a profile's API key lives, and moving it: the operating system's keyring by default
 * (profiles.json then says `"keyStore": "keyring"` and holds no secret), the profile file
 * (mode 0600) with `--insecure-storage` or when no keyring is reachable, as gh does for its
 * tokens. Keys in files from before the keyring keep working until `lic profile migrate`
 * moves them.
 */
import { randomBytes } from 'node:crypto';
import { KEYRING_SERVICE, keyringAccount, KeyringError, KeyringUnavailableError, type Keyring } from './keyring.js';
import { keyStoreOf, type KeyStore, type Profile, type ProfileStore } from './profiles.js';

/** The profile without its key or the record of where the key is. */
function withoutKey(p: Profile): Omit<Profile, 'apiKey' | 'keyStore'> {
  const { apiKey: _k, keyStore: _s, ...rest } = p;
  return rest;
}

/** The outcome of saving a key: where it went and, for the file, why not the keyring (undefined: chosen with `--insecure-storage`). */
export interface SavedKey {
  keyStore: KeyStore;
  fallbackReason?: string;
  /** the profile's previous key is still in the keyring: deleting it failed with this message */
  leftover?: string;
}

/**
 * The one notice of a key saved to the profile file because no keyring is reachable
 * (`reason`: why), with how to move it later; for `lic profile add` and `lic serve`'s profile "local".
 */
export function fallbackNotice(reason: string): string {
  return `lic: no keyring reachable (${reason}): the API key is in the profile file (mode 0600); \`lic profile migrate --to keyring\` moves it once there is a keyring (--insecure-storage: the file without this notice).`;
}

/**
 * Adds or replaces profile `name` with `key`: into the keyring unless `insecureStorage`;
 * when no keyring is reachable (KeyringUnavailableError), into the file, with the reason in
 * the result for the caller's notice. A keyring that refuses throws KeyringError before the
 * store is opened, so nothing is written (not even an empty profiles.json). `openStore`: the
 * store whose file is `storeFile`, opened only once the key has a place. A previous keyring
 * entry of the profile that the new key does not replace is deleted (a failure is reported in
 * `leftover`, not thrown: the new key is saved). Resolves with the store, for what the caller says.
 */
export async function saveProfileKey(
  openStore: () => Promise<ProfileStore>,
  storeFile: string,
  keyring: () => Promise<Keyring>,
  name: string,
  profile: Profile,
  key: string,
  o: { insecureStorage?: boolean; makeDefault?: boolean } = {},
): Promise<SavedKey & { store: ProfileStore; existed: boolean }> {
  const account = keyringAccount(name, storeFile);
  let fallbackReason: string | undefined;
  if (!o.insecureStorage) {
    try {
      await (await keyring()).set(account, key);
      const store = await openStore();
      const existed = Boolean(store.get(name));
      store.set(name, { ...withoutKey(profile), keyStore: 'keyring' }, o.makeDefault);
      return { keyStore: 'keyring', store, existed };
    } catch (e) {
      if (!(e instanceof KeyringUnavailableError)) throw e;
      fallbackReason = e.reason;
    }
  }
  const store = await openStore();
  const before = store.get(name);
  store.set(name, { ...withoutKey(profile), apiKey: key }, o.makeDefault);
  let leftover: string | undefined;
  if (before?.keyStore === 'keyring') {
    leftover = await (
      await keyring()
    )
      .delete(account)
      .then(() => undefined)
      .catch((e: unknown) => (e as Error).message);
  }
  return { keyStore: 'file', fallbackReason, leftover, store, existed: Boolean(before) };
}

/**
 * The API key of profile `name` (`profile`, read from `storeFile`): from the file, or from the
 * keyring when the profile says so; undefined when it has none. Throws KeyringUnavailableError
 * or KeyringError (naming the profile and what to do) when the keyring can't give it.
 */
export async function readProfileKey(
  keyring: () => Promise<Keyring>,
  storeFile: string,
  name: string,
  profile: Profile,
): Promise<string | undefined> {
  if (profile.keyStore !== 'keyring') return profile.apiKey;
  const account = keyringAccount(name, storeFile);
  let key: string | undefined;
  try {
    key = await (await keyring()).get(account);
  } catch (e) {
    const why = e instanceof KeyringUnavailableError ? `no keyring is reachable here: ${e.reason}` : (e as Error).message;
    throw new KeyringError(
      `profile "${name}" keeps its API key in the keyring, and ${why}; set LIC_API_KEY, or run lic where the keyring is (\`lic profile migrate --to file\` moves keys into the profile file)`,
    );
  }
  if (key === undefined)
    throw new KeyringError(
      `profile "${name}" keeps its API key in the keyring, but the keyring has no entry for it (service "${KEYRING_SERVICE}", account "${account}"): add the profile again with \`lic profile add ${name}\``,
    );
  return key;
}

/**
 * Removes profile `name` and its keyring entry, if it had one. Returns false when there is no
 * such profile. The profile is removed even when the keyring can't be reached; the message of
 * that failure is returned in `leftover` (the key then stays in the keyring).
 */
export async function removeProfileKey(
  store: ProfileStore,
  keyring: () => Promise<Keyring>,
  name: string,
): Promise<{ removed: boolean; leftover?: string }> {
  const before = store.get(name);
  if (!store.remove(name)) return { removed: false };
  if (before?.keyStore !== 'keyring') return { removed: true };
  const leftover = await (
    await keyring()
  )
    .delete(keyringAccount(name, store.path))
    .then(() => undefined)
    .catch((e: unknown) => (e as Error).message);
  return { removed: true, leftover };
}

/**
 * Asks the keyring whether it would take a key now, as `profile migrate --dry-run` must: stores
 * a probe entry (account `(probe <random>)@<store directory>`, never a profile's, as no profile
 * name has spaces or parentheses), reads it back and deletes it. A read alone is not enough: a
 * Secret Service with no default collection answers reads and refuses writes. Throws
 * KeyringUnavailableError or KeyringError (the keyring's words); the probe is deleted whenever
 * it was stored.
 */
async function probeKeyring(kr: Keyring, storeFile: string): Promise<void> {
  const secret = `probe-${randomBytes(12).toString('hex')}`;
  const account = keyringAccount(`(probe ${randomBytes(4).toString('hex')})`, storeFile);
  await kr.set(account, secret);
  try {
    if ((await kr.get(account)) !== secret) throw new KeyringError('the keyring did not give back a probe entry just stored');
  } finally {
    await kr.delete(account);
  }
}

/**
 * Why no keyring is reachable on this machine (no session bus, nothing providing the Secret
 * Service, no binding for the platform: KeyringUnavailableError's reason), or undefined when
 * one answers, even with a refusal (locked: it is there). Only reads profile `name`'s entry of
 * the store `storeFile`: nothing is written. For advice that fits the machine (`lic doctor`,
 * `lic profile show`): where there is no keyring, `profile migrate --to keyring` can't work.
 */
export async function noKeyringReason(keyring: () => Promise<Keyring>, name: string, storeFile: string): Promise<string | undefined> {
  try {
    await (await keyring()).get(keyringAccount(name, storeFile));
    return undefined;
  } catch (e) {
    return e instanceof KeyringUnavailableError ? e.reason : undefined;
  }
}

/** One profile's part in `lic profile migrate`. */
export interface MoveResult {
  profile: string;
  from: KeyStore | null;
  to: KeyStore;
  /** `moved` (or `would move` in a dry run), `already` (nothing to do), `no key` */
  result: 'moved' | 'would move' | 'already' | 'no key';
  /** moved to the file, but the keyring entry could not be deleted: the keyring's message */
  leftover?: string;
}

/**
 * Moves the keys of `names` (every profile when empty) into `to`. To the keyring: each key is
 * written and read back before profiles.json loses it (one rewrite, at the end); to the file:
 * each key is read from the keyring, profiles.json is rewritten, then the keyring entries are
 * deleted. Profiles already there are left alone, so running it twice changes nothing.
 * `dryRun`: profiles.json is not written, but the keyring is asked what the real run would ask
 * of it, so a dry run fails where the real one would: to the keyring, a probe entry is stored,
 * read back and deleted (probeKeyring; a keyring that is reachable but has no default
 * collection, or is locked, refuses here); to the file, each key is read. Throws
 * KeyringUnavailableError or KeyringError before anything is written to profiles.json.
 */
export async function migrateKeys(
  store: ProfileStore,
  keyring: () => Promise<Keyring>,
  to: KeyStore,
  names: string[],
  dryRun: boolean,
): Promise<MoveResult[]> {
  const all = store.list();
  const chosen = names.length ? all.filter((p) => names.includes(p.name)) : all;
  const results: MoveResult[] = chosen.map(({ name, profile }) => {
    const from = keyStoreOf(profile) ?? null;
    return { profile: name, from, to, result: from === null ? 'no key' : from === to ? 'already' : dryRun ? 'would move' : 'moved' };
  });
  const moving = chosen.filter((_, i) => results[i]!.result === 'moved' || results[i]!.result === 'would move');
  if (!moving.length) return results;
  const kr = await keyring();
  if (dryRun) {
    if (to === 'keyring') await probeKeyring(kr, store.path);
    else for (const { name, profile } of moving) await readProfileKey(async () => kr, store.path, name, profile);
    return results;
  }
  if (to === 'keyring') {
    for (const { name, profile } of moving) {
      const account = keyringAccount(name, store.path);
      await kr.set(account, profile.apiKey!);
      if ((await kr.get(account)) !== profile.apiKey)
        throw new KeyringError(`the keyring did not give back the API key of profile "${name}" just stored; profiles.json is unchanged`);
    }
    store.update(Object.fromEntries(moving.map(({ name, profile }) => [name, { ...withoutKey(profile), keyStore: 'keyring' as const }])));
    return results;
  }
  const keys = new Map<string, string>();
  for (const { name, profile } of moving) {
    const key = await readProfileKey(async () => kr, store.path, name, profile);
    keys.set(name, key!);
  }
  store.update(Object.fromEntries(moving.map(({ name, profile }) => [name, { ...withoutKey(profile), apiKey: keys.get(name)! }])));
  for (const { name } of moving) {
    const leftover = await kr
      .delete(keyringAccount(name, store.path))
      .then(() => undefined)
      .catch((e: unknown) => (e as Error).message);
    if (leftover) results.find((r) => r.profile === name)!.leftover = leftover;
  }
  return results;
}
