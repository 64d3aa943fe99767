import { resolve } from 'node:path';
import type { Command } from 'commander';
import { readCaFile } from '../../cli/files.js';
import { UsageError } from '../../cli/errors.js';
import type { CommandDeps } from '../../cli/deps.js';
import { isLoopback, type Runtime } from '../../cli/runtime.js';
import { PROFILE_NAME_RE, storePath, type Profile } from '../../config/profiles.js';

interface ProfileAddOptions {
  name: string;
  baseUrl?: string;
  apiKeyStdin?: boolean;
  default?: boolean;
  /** keep the key in profiles.json (mode 0600) instead of the keyring */
  insecureStorage?: boolean;
}

/** Largest input of `--api-key-stdin`: 4 KiB; an API key is a few dozen characters. */
export const MAX_API_KEY_BYTES = 4096;

/** Checks a profile name against PROFILE_NAME_RE; UsageError naming the rule otherwise. */
function checkProfileName(name: string): string {
  if (!PROFILE_NAME_RE.test(name)) {
    throw new UsageError(`profile name "${name}" is invalid: use 1-64 letters, digits, "_", "." or "-", starting with a letter or digit`);
  }
  return name;
}

/**
 * `lic profile add NAME --base-url URL`: the key comes from stdin (`--api-key-stdin`) or a
 * hidden prompt on a TTY, never from argv. It goes to the operating system's keyring, or to
 * profiles.json (mode 0600) with `--insecure-storage` or, with a notice, when no keyring is
 * reachable; a keyring that refuses is KeyringError (exit 3) and nothing is saved.
 */
async function runProfileAdd(opts: ProfileAddOptions, rt: Runtime): Promise<void> {
  checkProfileName(opts.name);
  if (!opts.baseUrl) throw new UsageError('--base-url is required, e.g. --base-url http://127.0.0.1:8765');
  let key: string;
  const terminal = rt.ctx.stdin.isTTY && rt.ctx.stderr.isTTY;
  // on a terminal a key typed on stdin would show as it is typed: the hidden prompt asks instead
  if (opts.apiKeyStdin && !terminal) {
    const bytes = await rt.ctx.stdin.readAll(MAX_API_KEY_BYTES);
    if (bytes.length > MAX_API_KEY_BYTES)
      throw new UsageError(`--api-key-stdin: more than ${MAX_API_KEY_BYTES} bytes on stdin; an API key is far shorter`);
    key = bytes.toString('utf8').trim();
  } else if (terminal) {
    key = (await rt.ctx.prompter.secret(`API key for ${opts.name}:`)).trim();
  } else {
    throw new UsageError('stdin is not a terminal: pipe the key in with --api-key-stdin (keys are never taken as an option value)');
  }
  if (!key) throw new UsageError('the API key is empty');
  if (/\s/.test(key)) throw new UsageError('the API key contains whitespace; give one key on one line');
  const settings = await profileSettings(rt);
  const { saveProfileKey, fallbackNotice } = await import('../../config/key-storage.js');
  const file = storePath(rt.ctx.configDir);
  const saved = await saveProfileKey(() => rt.profiles(), file, rt.ctx.keyring, opts.name, { baseUrl: opts.baseUrl, ...settings }, key, {
    insecureStorage: opts.insecureStorage,
    makeDefault: opts.default,
  });
  const { store, existed } = saved;
  const where = saved.keyStore === 'keyring' ? 'key in the keyring' : 'key in the profile file';
  rt.out.note(
    `${existed ? 'Updated' : 'Added'} profile "${opts.name}" (${opts.baseUrl}; ${where})${store.defaultName() === opts.name ? ', the default' : ''}.`,
  );
  if (saved.fallbackReason) rt.out.warn(fallbackNotice(saved.fallbackReason));
  if (saved.leftover) rt.out.warn(`lic: the previous key of profile "${opts.name}" is still in the keyring (${saved.leftover}).`);
  const url = new URL(opts.baseUrl);
  if (url.protocol === 'http:' && !isLoopback(url.hostname) && !rt.globals.insecureHttp) {
    rt.out.warn(
      `${url.host} is not a loopback address: commands will refuse to send the key over plain http:// to it; use https://, or add the profile again with --insecure-http if the network is trusted.`,
    );
  }
}

/**
 * The network settings given as global flags on `profile add` (--timeout, --retries,
 * --ca-file made absolute and checked readable, --insecure-http), saved with the profile.
 * Throws UsageError for a CA file that can't be read, is too large or holds no certificate.
 */
async function profileSettings(rt: Runtime): Promise<Partial<Profile>> {
  const g = rt.globals;
  const s: Partial<Profile> = {};
  if (g.timeout !== undefined) s.timeoutMs = g.timeout;
  if (g.retries !== undefined) s.retries = g.retries;
  if (g.insecureHttp) s.insecureHttp = true;
  if (g.caFile !== undefined) {
    // checked readable and PEM now, so the saved profile works; the path is kept, not the certificates
    await readCaFile(g.caFile, '--ca-file');
    s.caFile = resolve(g.caFile);
  }
  return s;
}

/** Registers `lic profile add` on `parent`. */
export function registerProfileAdd(parent: Command, deps: CommandDeps, run = runProfileAdd): void {
  parent
    .command('add')
    .description('Add or replace a profile: a base URL and an API key (from a hidden prompt or stdin)')
    .argument('<name>', 'profile name')
    .option('--api-key-stdin', 'read the API key from stdin instead of prompting (on a terminal: the hidden prompt)')
    .option('--default', 'make it the default profile')
    .option('--insecure-storage', "keep the key in the profile file (mode 0600) instead of the operating system's keyring")
    .addHelpText(
      'after',
      '\nThe key goes to the operating system\'s keyring (Secret Service, Keychain, Credential Manager);\nwith no keyring reachable, to the profile file (mode 0600) with a notice. A locked keyring is\nan error (exit 3). The base URL is the global --base-url flag; the global --timeout, --retries,\n--ca-file and --insecure-http given here are saved with the profile.\n\nExamples:\n  lic profile add prod --base-url https://licensing.example.com\n  lic profile add corp --base-url https://lic.corp.example --ca-file ./corp-ca.pem --timeout 1m\n  printf %s "$KEY" | lic profile add ci --base-url http://127.0.0.1:8765 --api-key-stdin --insecure-storage',
    )
    .action(async (name: string, o: Omit<ProfileAddOptions, 'name' | 'baseUrl'>, cmd: Command) => {
      const rt = deps.runtimeOf(cmd);
      await run({ ...o, name, baseUrl: rt.globals.baseUrl }, rt);
    });
}
