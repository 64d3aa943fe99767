/**
 * The factory of a command's dependencies (gh's cmdutil.Factory): built from the global
 * flags, lazily, so `--help` needs no key and nothing loads undici or conf until a
 * command asks for a client or the profile store.
 */
import type { ApiClient } from '../client/request.js';
import { AuthError } from '../client/errors.js';
import type { Profile, ProfileStore } from '../config/profiles.js';
import { VERSION, type Context } from './context.js';
import { DeclinedError, UsageError } from './errors.js';
import { Renderer, colorEnabled, type OutputFormat } from './output.js';
import { parseBaseUrl } from './parse.js';

/** The local service's default address (`lic serve` without --port). */
export const DEFAULT_PORT = 8765;
export const DEFAULT_BASE_URL = `http://127.0.0.1:${DEFAULT_PORT}`;

export interface GlobalOptions {
  profile?: string;
  baseUrl?: string;
  output?: OutputFormat;
  json?: boolean;
  color?: boolean;
  verbose?: boolean;
  quiet?: boolean;
  wide?: boolean;
  utc?: boolean;
}

export interface Target {
  profileName?: string;
  baseUrl: string;
  apiKey?: string;
}

/**
 * A command's dependencies, built from the context and the global flags: the Renderer
 * (`out`, eager), and lazily the profile store, the target (base URL and key) and the
 * API client. `confirm()` guards destructive verbs. Throws UsageError, AuthError.
 */
export class Runtime {
  readonly out: Renderer;
  private store?: Promise<ProfileStore>;
  private clientP?: Promise<ApiClient>;
  private targetP?: Promise<Target>;

  constructor(
    readonly ctx: Context,
    readonly globals: GlobalOptions,
  ) {
    const format: OutputFormat = globals.json ? 'json' : (globals.output ?? 'table');
    this.out = new Renderer(ctx, { format, color: colorEnabled(ctx, globals.color), quiet: Boolean(globals.quiet), wide: Boolean(globals.wide), utc: Boolean(globals.utc) });
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
      // with both URL and key from flag/env and no profile named, the store is not even opened
      if (named || !(flagUrl && envKey)) {
        // read without conf: most commands only need the current profile (see readProfiles)
        const { readProfiles } = await import('../config/profiles.js');
        const store = readProfiles(this.ctx.configDir);
        profileName = named ?? store.defaultName();
        profile = profileName ? store.get(profileName) : undefined;
        if (named && !profile) {
          const names = store.list().map((p) => p.name);
          throw new UsageError(`no profile named "${named}"${names.length ? `; profiles: ${names.join(', ')}` : '; add one with `lic profile add`'}`);
        }
      }
      return { profileName: profile ? profileName : undefined, baseUrl: flagUrl ?? profile?.baseUrl ?? DEFAULT_BASE_URL, apiKey: envKey ?? profile?.apiKey };
    })();
    return this.targetP;
  }

  /** The API client for the target; throws AuthError when no key is configured. */
  client(): Promise<ApiClient> {
    this.clientP ??= (async () => {
      const t = await this.target();
      if (!t.apiKey) {
        throw new AuthError(
          t.profileName
            ? `profile "${t.profileName}" has no API key; run \`lic profile add ${t.profileName} --base-url ${t.baseUrl}\``
            : 'no API key: start `lic serve` (it saves profile "local"), run `lic profile add`, or set LIC_API_KEY',
        );
      }
      // a header value can't carry whitespace or control characters: say so, don't fail as a network error
      if (/[\s\x00-\x1f\x7f]/.test(t.apiKey)) {
        throw new AuthError(`the API key from ${this.ctx.env.LIC_API_KEY ? 'LIC_API_KEY' : `profile "${t.profileName}"`} contains whitespace or control characters`);
      }
      const { ApiClient } = await import('../client/request.js');
      const timeout = Number(this.ctx.env.LIC_TIMEOUT_MS);
      return new ApiClient({
        baseUrl: t.baseUrl,
        apiKey: t.apiKey,
        userAgent: `lic/${VERSION}`,
        timeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : undefined,
        trace: this.globals.verbose ? (line) => this.ctx.stderr.write(`${line}\n`) : undefined,
      });
    })();
    return this.clientP;
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

/** LIC_BASE_URL checked like `--base-url`; a bad value is a usage error naming the variable. */
function envBaseUrl(value: string): string {
  try {
    return parseBaseUrl(value);
  } catch (e) {
    // the value is not echoed: it may carry credentials
    throw new UsageError(`LIC_BASE_URL is invalid: ${(e as Error).message}`);
  }
}
