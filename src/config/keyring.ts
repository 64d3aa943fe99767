/**
 * The operating system's keyring, where `lic profile add` and `lic serve` keep API keys:
 * Secret Service on Linux (GNOME Keyring, KWallet, KeePassXC over D-Bus), Keychain on macOS,
 * Credential Manager on Windows. Through @napi-rs/keyring: prebuilt Node-API binaries of the
 * Rust `keyring` crate, nothing compiled at install. The binding is loaded on the first call
 * only (a command whose key comes from LIC_API_KEY or a file never loads it).
 *
 * Two kinds of failure, because they are handled apart: no keyring reachable here (no session
 * bus, nothing on it providing the Secret Service, no binary for this platform) lets a write
 * fall back to the profile file with a notice; a keyring that is there but locked, refuses or
 * does not answer is an error (exit 3), never a silent fallback.
 */
/** The keyring entry's service name; the account is `<profile>@<store directory>` (keyringAccount). */
export const KEYRING_SERVICE = 'lic';

/**
 * The keyring refused, is locked, did not answer, or lacks an entry lic needs. Exit code 3,
 * as no API key (src/cli/errors.ts recognises it by name, so the CLI does not load this module
 * at start).
 */
export class KeyringError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyringError';
  }
}

/** No keyring is reachable on this machine now (`reason` says why, for the fallback notice). Exit code 3 when not caught. */
export class KeyringUnavailableError extends KeyringError {
  constructor(readonly reason: string) {
    super(`no keyring reachable: ${reason}`);
    this.name = 'KeyringUnavailableError';
  }
}

/**
 * One account's secret in the keyring. Rejects with KeyringUnavailableError or KeyringError
 * (messages carry the keyring's words, never the secret).
 */
export interface Keyring {
  /** the secret, or undefined when the keyring has no such entry */
  get(account: string): Promise<string | undefined>;
  set(account: string, secret: string): Promise<void>;
  /** true when an entry was deleted, false when there was none */
  delete(account: string): Promise<boolean>;
}

/**
 * The keyring account of a profile: its name and the directory of the profile store it
 * belongs to, so two stores (LIC_CONFIG_DIR) never share or overwrite each other's keys.
 * `storeFile`: the absolute path of profiles.json.
 */
export function keyringAccount(profile: string, storeFile: string): string {
  return `${profile}@${storeFile.replace(/[/\\]profiles\.json$/, '')}`;
}

/**
 * What the binding said, read as "nothing there to talk to" (fall back) or not (refuse).
 * Linux only: the keyring crate's D-Bus errors when there is no session bus
 * (DBUS_SESSION_BUS_ADDRESS unset, libdbus's X11 autolaunch not built in), its socket is
 * gone, or no program on the bus provides org.freedesktop.secrets. Everything else (locked,
 * a dismissed unlock prompt, no default collection, no reply) is a refusal.
 */
const UNREACHABLE = [
  /DBUS_SESSION_BUS_ADDRESS/,
  /autolaunch/i,
  /Failed to connect to socket/i,
  /not provided by any \.service files/i,
  /ServiceUnknown/,
  /NameHasNoOwner/,
];

/** The binding's message on one line, without the crate's "Platform failure: DBus error:" wrapping. */
function words(e: unknown): string {
  return (e instanceof Error ? e.message : String(e))
    .replace(/\s+/g, ' ')
    .replace(/^(Platform failure|Couldn't access platform storage): /i, '')
    .trim();
}

/** A binding failure as KeyringUnavailableError (nothing to talk to) or KeyringError (it refused); `what`: the operation, for the message. */
export function keyringFailure(e: unknown, what: string): KeyringError {
  if (e instanceof KeyringError) return e;
  const w = words(e);
  if (UNREACHABLE.some((re) => re.test(w))) {
    const why = /DBUS_SESSION_BUS_ADDRESS|autolaunch/i.test(w) ? 'no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set' : w;
    return new KeyringUnavailableError(why);
  }
  return new KeyringError(`the keyring refused ${what}: ${w}; unlock it (or create a default keyring) and try again`);
}

/** What the binding exports that lic uses (its index.d.ts). */
interface Binding {
  AsyncEntry: new (
    service: string,
    account: string,
    options?: { linux?: { store?: 'secret-service' | 'keyutils' } },
  ) => {
    getPassword(): Promise<string | null>;
    setPassword(password: string): Promise<void>;
    deleteCredential(): Promise<boolean>;
  };
}

/**
 * The keyring of this machine through @napi-rs/keyring, loaded on the first call. On Linux
 * the entry is pinned to the Secret Service: the crate's default would otherwise fall back
 * to the kernel's keyutils, which forgets everything at logout or reboot. `platform`:
 * process.platform (the pinning is Linux only; the option is ignored elsewhere anyway).
 */
export function systemKeyring(platform: string = process.platform): Keyring {
  let binding: Promise<Binding> | undefined;
  const load = (): Promise<Binding> =>
    (binding ??= import('@napi-rs/keyring').then(
      (m) => m as unknown as Binding,
      (e: unknown) => {
        throw new KeyringUnavailableError(`the keyring binding does not load on ${process.platform}-${process.arch} (${words(e)})`);
      },
    ));
  const options = platform === 'linux' ? { linux: { store: 'secret-service' as const } } : undefined;
  const entry = async (account: string, what: string) => {
    const { AsyncEntry } = await load();
    try {
      // the constructor already talks to D-Bus on Linux (and throws when there is no bus)
      return new AsyncEntry(KEYRING_SERVICE, account, options);
    } catch (e) {
      throw keyringFailure(e, what);
    }
  };
  return {
    async get(account) {
      const e = await entry(account, 'to give the API key');
      const secret = await e.getPassword().catch((err: unknown) => {
        throw keyringFailure(err, 'to give the API key');
      });
      return secret ?? undefined;
    },
    async set(account, secret) {
      const e = await entry(account, 'to store the API key');
      await e.setPassword(secret).catch((err: unknown) => {
        throw keyringFailure(err, 'to store the API key');
      });
    },
    async delete(account) {
      const e = await entry(account, 'to delete the API key');
      return e.deleteCredential().catch((err: unknown) => {
        throw keyringFailure(err, 'to delete the API key');
      });
    },
  };
}
