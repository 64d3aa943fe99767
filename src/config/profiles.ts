/**
 * The profile store: named (base URL, API key) pairs and the default profile, kept by
 * `conf` in the user's config directory (or `LIC_CONFIG_DIR`) with file mode 0600. A key
 * is in the operating system's keyring (`"keyStore": "keyring"`, the key itself not in the
 * file: src/config/key-storage.ts) or, as before the keyring, in this file (`apiKey`).
 * Validated here rather than by conf's `schema` option, which loads ajv at every start (bench/startup.md).
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import envPaths from 'env-paths';
import type Conf from 'conf';
import { readFileBoundedSync, sizeLimitText } from '../bounded-read.js';
import { maskApiKey } from '../wire.js';

export interface Profile {
  baseUrl: string;
  /** the API key itself, when it is kept in this file (`--insecure-storage`, no keyring reachable, or a store from before the keyring) */
  apiKey?: string;
  /** `keyring`: the key is in the operating system's keyring (src/config/keyring.ts), not in this file */
  keyStore?: 'keyring';
  /** deadline of one request attempt in ms (`--timeout` when the profile was added) */
  timeoutMs?: number;
  /** extra attempts after the first (`--retries`) */
  retries?: number;
  /** absolute path of a PEM file of extra trusted CAs (`--ca-file`) */
  caFile?: string;
  /** allow sending the key over plain http:// to a host that is not loopback (`--insecure-http`) */
  insecureHttp?: boolean;
}

/** Where a profile's key is kept: the operating system's keyring or the profile file. */
export type KeyStore = 'keyring' | 'file';

/** `keyring` or `file` for a profile with a key; undefined for one without. */
export function keyStoreOf(p: Profile): KeyStore | undefined {
  if (p.keyStore === 'keyring') return 'keyring';
  return p.apiKey ? 'file' : undefined;
}

/** The optional settings of a profile and the type each must have (checked on read). */
const SETTING_TYPES: Record<string, 'number' | 'string' | 'boolean'> = {
  apiKey: 'string',
  timeoutMs: 'number',
  retries: 'number',
  caFile: 'string',
  insecureHttp: 'boolean',
};

interface StoreShape {
  defaultProfile?: string;
  profiles: Record<string, Profile>;
}

/** Profile names: letters, digits, `_ . -`, 1..64 chars, starting with a letter or digit. */
export const PROFILE_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** The store file may be this large (a profile takes a few hundred bytes); it is never read whole beyond it. */
const MAX_STORE_BYTES = 1024 * 1024;

/** Thrown when the store file holds something that is not a profile store. */
export class ProfileStoreError extends Error {}

/** Where conf keeps the store: `profiles.json` in `dir`, else in env-paths' config dir for `lic` (conf's own rule). */
export function storePath(dir?: string): string {
  return resolve(dir ?? envPaths('lic', { suffix: '' }).config, 'profiles.json');
}

/** JSON.parse of the store; its own message would quote the text around the fault, which is an API key. */
function parseStore(text: string, dir?: string): StoreShape {
  try {
    return JSON.parse(text) as StoreShape;
  } catch {
    throw new ProfileStoreError(
      `the profile store${dir ? ` in ${dir}` : ''} is not valid JSON; fix or remove profiles.json (its content is not shown: it holds API keys)`,
    );
  }
}

/**
 * The one reader of the store file: its content, checked as JSON; a missing file is an
 * empty store. ProfileStoreError when it cannot be read or parsed (never quoting it).
 */
function loadStore(path: string, dir?: string): StoreShape {
  let bytes: Buffer;
  try {
    bytes = readFileBoundedSync(path, MAX_STORE_BYTES);
  } catch (e) {
    if ((e as { code?: string }).code === 'ENOENT') return { profiles: {} };
    throw new ProfileStoreError(`cannot read the profile store ${path}: ${(e as Error).message}`);
  }
  if (bytes.length > MAX_STORE_BYTES)
    throw new ProfileStoreError(`the profile store ${path} is ${sizeLimitText(MAX_STORE_BYTES)}; fix or remove it`);
  return parseStore(bytes.toString('utf8'), dir);
}

/**
 * Reads the store without loading conf (whose import brings ajv: bench/startup.md has its cost), for
 * the many commands that only need the current profile. Writes go through ProfileStore
 * (conf), which reads with the same loadStore.
 */
export function readProfiles(dir?: string): ProfileView {
  const path = storePath(dir);
  const data = loadStore(path, dir);
  return new ProfileView(path, () => data);
}

/** Read access to a store's content (shared by the fast reader and the conf-backed store). */
export class ProfileView {
  constructor(
    /** path of the store file (for messages; it holds secrets, so never print its contents) */
    readonly path: string,
    private readonly data: () => Partial<StoreShape>,
  ) {}

  protected all(): Record<string, Profile> {
    const p = this.data().profiles ?? {};
    if (!p || typeof p !== 'object' || Array.isArray(p)) throw new ProfileStoreError(`${this.path}: "profiles" is not an object`);
    for (const [name, v] of Object.entries(p)) {
      if (!v || typeof v !== 'object' || typeof (v as Profile).baseUrl !== 'string') {
        throw new ProfileStoreError(`${this.path}: profile "${name}" has no baseUrl`);
      }
      for (const [field, type] of Object.entries(SETTING_TYPES)) {
        const value = (v as unknown as Record<string, unknown>)[field];
        if (value !== undefined && typeof value !== type)
          throw new ProfileStoreError(`${this.path}: profile "${name}" has a ${field} that is not a ${type}`);
      }
      const keyStore = (v as Profile).keyStore;
      if (keyStore !== undefined && keyStore !== 'keyring')
        throw new ProfileStoreError(`${this.path}: profile "${name}" has a keyStore that is not "keyring"`);
    }
    return p;
  }

  list(): { name: string; profile: Profile; isDefault: boolean }[] {
    const d = this.defaultName();
    return Object.entries(this.all())
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, profile]) => ({ name, profile, isDefault: name === d }));
  }

  get(name: string): Profile | undefined {
    return Object.hasOwn(this.all(), name) ? this.all()[name] : undefined;
  }

  defaultName(): string | undefined {
    const d = this.data().defaultProfile;
    return typeof d === 'string' ? d : undefined;
  }
}

/** The store for writing: conf writes it (atomically, mode 0600); reads go through loadStore, as readProfiles'. */
export class ProfileStore extends ProfileView {
  private constructor(
    private readonly conf: Conf<StoreShape>,
    dir?: string,
  ) {
    super(conf.path, () => loadStore(conf.path, dir));
  }

  /** Opens (creating if needed) the store in `dir` (conf's default config dir when undefined). */
  static async open(dir?: string): Promise<ProfileStore> {
    const path = storePath(dir);
    // conf reads the file without a limit: check it first (ProfileStoreError when too large or not a store)
    loadStore(path, dir);
    // conf makes the directory with the umask's mode (0777 under umask 000): it holds API keys, so 0700
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const { default: ConfClass } = await import('conf');
    const conf = new ConfClass<StoreShape>({
      deserialize: (text: string) => parseStore(text, dir),
      projectName: 'lic',
      projectSuffix: '',
      configName: 'profiles',
      cwd: dir,
      configFileMode: 0o600,
      accessPropertiesByDotNotation: false,
      defaults: { profiles: {} },
    });
    return new ProfileStore(conf, dir);
  }

  /** Adds or replaces a profile; makes it the default when there is none. */
  set(name: string, profile: Profile, makeDefault = false): void {
    const all = { ...this.all(), [name]: profile };
    this.conf.set('profiles', all);
    if (makeDefault || !this.defaultName() || !all[this.defaultName()!]) this.conf.set('defaultProfile', name);
  }

  /** Replaces the named profiles (which exist) in one write of the file. */
  update(changes: Record<string, Profile>): void {
    this.conf.set('profiles', { ...this.all(), ...changes });
  }

  /** Removes a profile; returns false when there was none. Clears the default if it pointed there. */
  remove(name: string): boolean {
    const all = { ...this.all() };
    if (!Object.hasOwn(all, name)) return false;
    delete all[name];
    this.conf.set('profiles', all);
    if (this.defaultName() === name) this.conf.delete('defaultProfile');
    return true;
  }

  /** Makes `name` the default profile (callers check that it exists). */
  use(name: string): void {
    this.conf.set('defaultProfile', name);
  }
}

/** `api_u3o7…` style mask for lists (the one rule, in wire.ts: maskApiKey); `-` when there is no key. */
export function maskKey(key: string | undefined): string {
  return key ? maskApiKey(key) : '-';
}
