/**
 * The factory of a command's dependencies (gh's cmdutil.Factory): built from the global
 * flags, lazily, so `--help` needs no key and nothing loads undici or conf until a
 * command asks for a client or the profile store.
 */
import { InvalidArgumentError } from 'commander';
import type { ApiClient } from '../client/request.js';
import { AuthError } from '../client/errors.js';
import { DEFAULT_MAX_REPLY_BYTES, DEFAULT_RETRIES, DEFAULT_TIMEOUT_MS } from '../client/settings.js';
import type { Profile, ProfileStore } from '../config/profiles.js';
import { VERSION, type Context } from './context.js';
import { DeclinedError, UsageError } from './errors.js';
import { Renderer, colorEnabled, type OutputFormat } from './output.js';
import { MAX_CA_FILE_BYTES, readCaFile, readFileBounded } from './files.js';
import { sizeLimitText } from '../bounded-read.js';
import { parseBaseUrl, parseDuration, parseRetries } from './parse.js';

/** The local service's default address (`lic serve` without --port). */
export const DEFAULT_PORT = 8765;
const DEFAULT_BASE_URL = `http://127.0.0.1:${DEFAULT_PORT}`;

export interface GlobalOptions {
  profile?: string;
  baseUrl?: string;
  output?: OutputFormat;
  /** `--json` (true) or `--json FIELDS` (the comma-separated names) */
  json?: boolean | string;
  /** `--raw`: the service's body untouched (json only) */
  raw?: boolean;
  color?: boolean;
  verbose?: boolean;
  quiet?: boolean;
  /** `--timeout`, in ms */
  timeout?: number;
  retries?: number;
  caFile?: string;
  insecureHttp?: boolean;
  /** a write verb's `--dry-run` (a verb option, seen here through optsWithGlobals): print the request, send no write */
  dryRun?: boolean;
  wide?: boolean;
  utc?: boolean;
}

export interface Target {
  profileName?: string;
  baseUrl: string;
  /**
   * Where the API key comes from: LIC_API_KEY, the profile's keyring entry or its file, or
   * none. The key itself is read by Runtime.apiKey() (a keyring read only when needed).
   */
  keyFrom: 'LIC_API_KEY' | 'keyring' | 'file' | 'none';
  /** the profile used, for its network settings */
  profile?: Profile;
}

/** A resolved setting and where it came from (`--timeout`, `LIC_TIMEOUT`, `profile prod`, `default`). */
export interface Setting<T> {
  value: T;
  from: string;
}

/** The client's network settings, each with its source (precedence flag > env > profile > default). */
export interface NetworkSettings {
  timeoutMs: Setting<number>;
  retries: Setting<number>;
  caFile?: Setting<string>;
  insecureHttp: Setting<boolean>;
  maxReplyBytes: Setting<number>;
}

/**
 * The factory a verb's `runX(opts, rt)` receives (gh's cmdutil.Factory): one per command
 * line, made by `CommandDeps.runtimeOf` when the verb's action runs, from the context and the
 * global flags. It holds the Renderer (`out`, eager) and builds on first use, once, the
 * profile store, the target (base URL and key) and the API client; `confirm()` guards
 * destructive verbs. Throws UsageError, AuthError.
 */
export class Runtime {
  readonly out: Renderer;
  private store?: Promise<ProfileStore>;
  private clientP?: Promise<ApiClient>;
  private targetP?: Promise<Target>;
  private keyP?: Promise<string | undefined>;

  constructor(
    readonly ctx: Context,
    readonly globals: GlobalOptions,
  ) {
    const format: OutputFormat = globals.json ? 'json' : (globals.output ?? 'table');
    if (globals.raw && format !== 'json')
      throw new UsageError(`--raw prints the service's JSON body untouched: it goes with -o json or --json, not -o ${format}`);
    const jsonFields = typeof globals.json === 'string' ? globals.json.split(',').map((f) => f.trim()) : undefined;
    this.out = new Renderer(ctx, {
      format,
      color: colorEnabled(ctx, globals.color),
      quiet: Boolean(globals.quiet),
      verbose: Boolean(globals.verbose),
      raw: Boolean(globals.raw),
      jsonFields,
      wide: Boolean(globals.wide),
      utc: Boolean(globals.utc),
    });
  }

  /** The profile store (conf), opened on first use. */
  profiles(): Promise<ProfileStore> {
    this.store ??= import('../config/profiles.js').then((m) => m.ProfileStore.open(this.ctx.configDir));
    return this.store;
  }

  /**
   * Where to send requests and with which key. Precedence: flag > env > profile
   * (`--profile`/LIC_PROFILE/default profile; `--base-url`/LIC_BASE_URL; LIC_API_KEY).
   * Throws UsageError for a named profile that does not exist.
   */
  target(): Promise<Target> {
    this.targetP ??= (async () => {
      const env = this.ctx.env;
      const flagUrl = this.globals.baseUrl ?? (env.LIC_BASE_URL ? envBaseUrl(env.LIC_BASE_URL) : undefined);
      const envKey = env.LIC_API_KEY || undefined;
      const named = this.globals.profile ?? (env.LIC_PROFILE || undefined);
      let profileName: string | undefined;
      let profile: Profile | undefined;
      let keyFrom: Target['keyFrom'] = envKey ? 'LIC_API_KEY' : 'none';
      // with both URL and key from flag/env and no profile named, the store is not even opened
      if (named || !(flagUrl && envKey)) {
        // read without conf: most commands only need the current profile (see readProfiles)
        const { readProfiles, keyStoreOf } = await import('../config/profiles.js');
        const store = readProfiles(this.ctx.configDir);
        profileName = named ?? store.defaultName();
        profile = profileName ? store.get(profileName) : undefined;
        if (named && !profile) {
          const names = store.list().map((p) => p.name);
          throw new UsageError(
            `no profile named "${named}"${names.length ? `; profiles: ${names.join(', ')}` : '; add one with `lic profile add`'}`,
          );
        }
        if (!envKey && profile) keyFrom = keyStoreOf(profile) ?? 'none';
      }
      return {
        profileName: profile ? profileName : undefined,
        baseUrl: flagUrl ?? profile?.baseUrl ?? DEFAULT_BASE_URL,
        keyFrom,
        profile,
      };
    })();
    return this.targetP;
  }

  /**
   * The API key for the target: LIC_API_KEY, else the profile's, read from its file or from
   * the keyring (the binding loads only then); undefined when there is none. Throws
   * KeyringError (exit 3) when the profile's key is in a keyring that can't give it.
   */
  apiKey(): Promise<string | undefined> {
    this.keyP ??= (async () => {
      const t = await this.target();
      if (t.keyFrom === 'LIC_API_KEY') return this.ctx.env.LIC_API_KEY;
      if (!t.profile || !t.profileName) return undefined;
      if (t.keyFrom !== 'keyring') return t.profile.apiKey;
      const [{ readProfileKey }, { storePath }] = await Promise.all([import('../config/key-storage.js'), import('../config/profiles.js')]);
      return readProfileKey(this.ctx.keyring, storePath(this.ctx.configDir), t.profileName, t.profile);
    })();
    return this.keyP;
  }

  /** The API client for the target; throws AuthError when no key is configured. */
  client(): Promise<ApiClient> {
    this.clientP ??= (async () => {
      const t = await this.target();
      const apiKey = await this.apiKey();
      if (!apiKey) {
        throw new AuthError(
          t.profileName
            ? `profile "${t.profileName}" has no API key; run \`lic profile add ${t.profileName} --base-url ${t.baseUrl}\``
            : 'no API key: start `lic serve` (it saves profile "local"), run `lic profile add`, or set LIC_API_KEY',
        );
      }
      // a header value can't carry whitespace or control characters: say so, don't fail as a network error
      if (/[\s\x00-\x1f\x7f]/.test(apiKey)) {
        throw new AuthError(
          `the API key from ${this.ctx.env.LIC_API_KEY ? 'LIC_API_KEY' : `profile "${t.profileName}"`} contains whitespace or control characters`,
        );
      }
      const net = await this.network();
      const url = new URL(t.baseUrl);
      if (url.protocol === 'http:' && !isLoopback(url.hostname) && !net.insecureHttp.value) {
        throw new UsageError(
          `refusing to send the API key over plain http:// to ${url.host}, which is not a loopback address (anyone on the way could read it): use https://, or pass --insecure-http (or save it in the profile) if the network is trusted`,
        );
      }
      const env = this.ctx.env;
      const pick = (lower: string, upper: string) => env[lower] || env[upper] || undefined;
      // CAs matter only where TLS may be spoken: plain http:// with no proxy neither reads
      // NODE_EXTRA_CA_CERTS nor loads tls (milliseconds per run); --ca-file is still checked
      const tlsPossible = url.protocol === 'https:' || Boolean(pick('http_proxy', 'HTTP_PROXY') || pick('https_proxy', 'HTTPS_PROXY'));
      const ca = tlsPossible || net.caFile ? await this.extraCas(net.caFile) : undefined;
      const { ApiClient } = await import('../client/request.js');
      this.ctx.clientLoaded?.();
      const client = new ApiClient({
        baseUrl: t.baseUrl,
        apiKey,
        userAgent: `lic/${VERSION}`,
        timeoutMs: net.timeoutMs.value,
        retries: net.retries.value,
        maxReplyBytes: net.maxReplyBytes.value,
        ca,
        proxy: {
          httpProxy: pick('http_proxy', 'HTTP_PROXY'),
          httpsProxy: pick('https_proxy', 'HTTPS_PROXY'),
          noProxy: pick('no_proxy', 'NO_PROXY'),
        },
        trace: this.globals.verbose ? (line) => this.ctx.stderr.write(`${line}\n`) : undefined,
        notice: this.globals.quiet ? undefined : (line) => this.ctx.stderr.write(`lic: ${line}\n`),
        sleep: (ms) => this.ctx.sleep(ms),
        now: () => this.ctx.now().getTime(),
        beforeUndici: () => this.ctx.beforeUndici?.(),
      });
      return this.globals.dryRun ? (await import('../client/dry-run.js')).dryRunClient(client) : client;
    })();
    return this.clientP;
  }

  /**
   * Timeout, retries, CA file, insecure-http and reply cap, each with its source:
   * flag > env (LIC_TIMEOUT, deprecated LIC_TIMEOUT_MS, LIC_RETRIES, LIC_MAX_REPLY_BYTES) >
   * profile > default. Throws UsageError naming a variable whose value is invalid.
   */
  async network(): Promise<NetworkSettings> {
    const { profile, profileName } = await this.target();
    const g = this.globals;
    const env = this.ctx.env;
    const fromProfile = `profile ${profileName}`;
    const timeoutMs: Setting<number> =
      g.timeout !== undefined
        ? { value: g.timeout, from: '--timeout' }
        : env.LIC_TIMEOUT
          ? { value: envValue('LIC_TIMEOUT', env.LIC_TIMEOUT, parseDuration), from: 'LIC_TIMEOUT' }
          : env.LIC_TIMEOUT_MS
            ? { value: envValue('LIC_TIMEOUT_MS', env.LIC_TIMEOUT_MS, parseMs), from: 'LIC_TIMEOUT_MS (deprecated)' }
            : profile?.timeoutMs !== undefined
              ? { value: profile.timeoutMs, from: fromProfile }
              : { value: DEFAULT_TIMEOUT_MS, from: 'default' };
    const retries: Setting<number> =
      g.retries !== undefined
        ? { value: g.retries, from: '--retries' }
        : env.LIC_RETRIES
          ? { value: envValue('LIC_RETRIES', env.LIC_RETRIES, parseRetries), from: 'LIC_RETRIES' }
          : profile?.retries !== undefined
            ? { value: profile.retries, from: fromProfile }
            : { value: DEFAULT_RETRIES, from: 'default' };
    const caFile: Setting<string> | undefined =
      g.caFile !== undefined
        ? { value: g.caFile, from: '--ca-file' }
        : profile?.caFile
          ? { value: profile.caFile, from: fromProfile }
          : undefined;
    const insecureHttp: Setting<boolean> = g.insecureHttp
      ? { value: true, from: '--insecure-http' }
      : profile?.insecureHttp
        ? { value: true, from: fromProfile }
        : { value: false, from: 'default' };
    const maxReplyBytes: Setting<number> = env.LIC_MAX_REPLY_BYTES
      ? { value: envValue('LIC_MAX_REPLY_BYTES', env.LIC_MAX_REPLY_BYTES, parseByteSize), from: 'LIC_MAX_REPLY_BYTES' }
      : { value: DEFAULT_MAX_REPLY_BYTES, from: 'default' };
    return { timeoutMs, retries, caFile, insecureHttp, maxReplyBytes };
  }

  /**
   * The CAs to add to Node's bundled roots: NODE_EXTRA_CA_CERTS of the context (Node reads
   * it only at start, and an explicit `ca` would otherwise drop it) and `--ca-file`.
   * Undefined when neither is set (Node's default store). Throws UsageError for a CA file
   * that can't be read, is over MAX_CA_FILE_BYTES or holds no PEM certificate.
   */
  private async extraCas(caFile: Setting<string> | undefined): Promise<string[] | undefined> {
    const cas: string[] = [];
    const extra = this.ctx.env.NODE_EXTRA_CA_CERTS;
    // unreadable: Node has already warned at start and goes on without it; so do we (but never read without limit)
    if (extra) {
      const bytes = await readFileBounded(extra, MAX_CA_FILE_BYTES).catch(() => undefined);
      if (bytes && bytes.length > MAX_CA_FILE_BYTES) {
        throw new UsageError(`NODE_EXTRA_CA_CERTS ${extra}: ${sizeLimitText(MAX_CA_FILE_BYTES)}; a CA bundle is far smaller`);
      }
      if (bytes) cas.push(bytes.toString('utf8'));
    }
    if (caFile) cas.push(await readCaFile(caFile.value, caFile.from === '--ca-file' ? '--ca-file' : `the CA file of ${caFile.from}`));
    return cas.length ? cas : undefined;
  }

  /**
   * Where each setting of the target comes from, for `lic doctor`: the profile
   * (`--profile`, LIC_PROFILE, the default profile, none), the base URL (`--base-url`,
   * LIC_BASE_URL, the profile, the built-in default) and the API key (LIC_API_KEY, the
   * profile, none). Values only, never the key. Throws like target().
   */
  async settingSources(): Promise<{
    profile: { value: string | null; from: string };
    baseUrl: { value: string; from: string };
    apiKey: { from: string };
  }> {
    const t = await this.target();
    const env = this.ctx.env;
    const profileFrom = this.globals.profile ? '--profile' : env.LIC_PROFILE ? 'LIC_PROFILE' : t.profileName ? 'default profile' : 'none';
    const inProfile = `profile ${t.profileName}`;
    const urlFrom = this.globals.baseUrl
      ? '--base-url'
      : env.LIC_BASE_URL
        ? 'LIC_BASE_URL'
        : t.profileName
          ? inProfile
          : 'built-in default';
    const keyFrom = t.keyFrom === 'LIC_API_KEY' ? 'LIC_API_KEY' : t.keyFrom === 'none' ? 'none' : inProfile;
    return {
      profile: { value: t.profileName ?? null, from: profileFrom },
      baseUrl: { value: t.baseUrl, from: urlFrom },
      apiKey: { from: keyFrom },
    };
  }

  /** Releases what the command opened (the client's connections); safe to call twice. */
  async close(): Promise<void> {
    const c = this.clientP;
    this.clientP = undefined;
    if (c) await c.then((client) => client.close()).catch(() => undefined);
  }

  /**
   * Confirms a destructive action (gh style): on a TTY asks, naming profile, host and
   * what will go; off a TTY requires `--yes`. Throws UsageError (no TTY, no --yes) or
   * DeclinedError (answered no).
   */
  async confirm(what: string, yes: boolean | undefined): Promise<void> {
    // a dry run sends no write, so it asks nothing; a missing key still fails as in the real run
    if (this.globals.dryRun) return void (await this.client());
    if (yes) return;
    if (!this.ctx.stdin.isTTY || !this.ctx.stderr.isTTY) {
      throw new UsageError(`refusing to ${what} without confirmation: not a terminal, so pass --yes`);
    }
    // a missing key fails before the question, not after a "yes"
    await this.client();
    const t = await this.target();
    const host = new URL(t.baseUrl).host;
    const ok = await this.ctx.prompter.confirm(`${what} on ${host} (profile ${t.profileName ?? '(none)'})?`);
    if (!ok) throw new DeclinedError();
  }
}

/** Loopback per RFC 6890 / RFC 6761: 127.0.0.0/8, ::1 and `localhost`. */
export function isLoopback(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** An environment variable parsed by a flag parser; a bad value is a usage error naming the variable. */
function envValue<T>(name: string, value: string, parse: (v: string) => T): T {
  try {
    return parse(value);
  } catch (e) {
    if (e instanceof InvalidArgumentError || e instanceof UsageError) throw new UsageError(`${name} is invalid: ${e.message}`);
    throw e;
  }
}

/** LIC_TIMEOUT_MS (deprecated): whole milliseconds, 1..86400000. */
function parseMs(value: string): number {
  const v = value.trim();
  if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 86_400_000)
    throw new InvalidArgumentError('expected milliseconds 1..86400000; prefer LIC_TIMEOUT=30s.');
  return Number(v);
}

/** LIC_MAX_REPLY_BYTES: bytes, or with a binary suffix K, M, G (KiB, MiB, GiB); at least 1 KiB. */
function parseByteSize(value: string): number {
  const m = /^(\d+)\s*(k|m|g)?(?:i?b)?$/i.exec(value.trim());
  const n = m ? Number(m[1]) * 1024 ** ({ k: 1, m: 2, g: 3 }[(m[2] ?? '').toLowerCase() as 'k'] ?? 0) : NaN;
  if (!Number.isSafeInteger(n) || n < 1024)
    throw new InvalidArgumentError('expected a size of at least 1024 bytes, such as 67108864, 64M or 1G.');
  return n;
}

/** LIC_BASE_URL checked like `--base-url`; a bad value is a usage error naming the variable. */
function envBaseUrl(value: string): string {
  try {
    return parseBaseUrl(value);
  } catch (e) {
    // the value is not echoed: it may carry credentials
    throw new UsageError(`LIC_BASE_URL is invalid: ${(e as Error).message}`);
  }
}
