import type { Command } from 'commander';
import type { CommandDeps } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { maskKey, storePath } from '../../config/profiles.js';
import { formatDuration } from '../../time.js';
import { outputFormats } from '../../cli/parse.js';

/**
 * `lic profile show`: the profile, base URL, (masked) key and network settings a command would
 * use now, where each comes from, and where the key is stored (the keyring, read for the mask,
 * or the profile file: then a warning naming `profile migrate` where a keyring is reachable,
 * a note where none is). A keyring that can't give the key is shown, not thrown.
 */
async function runProfileShow(rt: Runtime): Promise<void> {
  const t = await rt.target();
  const net = await rt.network();
  let apiKey: string | undefined;
  let keyError: string | null = null;
  try {
    apiKey = await rt.apiKey();
  } catch (e) {
    // loaded here, not at start: every command module is initialised when the program is built
    const { KeyringError } = await import('../../config/keyring.js');
    if (!(e instanceof KeyringError)) throw e;
    keyError = e.message;
  }
  const file = storePath(rt.ctx.configDir);
  const keyStore = t.keyFrom === 'keyring' || t.keyFrom === 'file' ? t.keyFrom : null;
  const env = rt.ctx.env;
  const urlFrom = rt.globals.baseUrl
    ? '--base-url'
    : env.LIC_BASE_URL
      ? 'LIC_BASE_URL'
      : t.profileName
        ? `profile ${t.profileName}`
        : 'built-in default';
  const keyFrom = t.keyFrom === 'LIC_API_KEY' ? 'LIC_API_KEY' : keyStore ? `profile ${t.profileName}` : 'none';
  const stored = keyStore === 'keyring' ? '; in the keyring' : keyStore === 'file' ? `; in plain text in ${file}` : '';
  const body = {
    profile: t.profileName ?? null,
    baseUrl: t.baseUrl,
    baseUrlFrom: urlFrom,
    apiKey: keyError ? null : maskKey(apiKey),
    apiKeyFrom: keyFrom,
    apiKeyStore: keyStore,
    apiKeyError: keyError,
    timeoutMs: net.timeoutMs.value,
    timeoutFrom: net.timeoutMs.from,
    retries: net.retries.value,
    retriesFrom: net.retries.from,
    caFile: net.caFile?.value ?? null,
    caFileFrom: net.caFile?.from ?? null,
    insecureHttp: net.insecureHttp.value,
    insecureHttpFrom: net.insecureHttp.from,
    store: file,
  };
  await rt.out.record(body, [
    ['profile', body.profile ?? '(none)'],
    ['base URL', `${body.baseUrl} (from ${urlFrom})`],
    ['API key', keyError ? `cannot be read (from ${keyFrom}${stored}): ${keyError}` : `${body.apiKey} (from ${keyFrom}${stored})`],
    ['timeout', `${formatDuration(body.timeoutMs)} per attempt (from ${body.timeoutFrom})`],
    ['retries', `${body.retries} (from ${body.retriesFrom})`],
    ['CA file', body.caFile ? `${body.caFile} (from ${body.caFileFrom})` : '(none: the system CAs)'],
    ['insecure http', `${body.insecureHttp ? 'allowed' : 'refused'} (from ${body.insecureHttpFrom})`],
    ['store', body.store],
  ]);
  if (keyStore === 'file') {
    const { noKeyringReason } = await import('../../config/key-storage.js');
    const noKeyring = await noKeyringReason(rt.ctx.keyring, t.profileName!, file);
    // no keyring here (a server, CI): the file is where the key has to be, so a note with advice that works here
    if (noKeyring !== undefined)
      rt.out.note(
        `lic: the API key of profile "${t.profileName}" is in plain text in ${file} (mode 0600): there is no keyring on this machine (${noKeyring}); keep the file private to this account, or pass the key as LIC_API_KEY from your secret store.`,
      );
    else
      rt.out.warn(
        `lic: the API key of profile "${t.profileName}" is in plain text in ${file}, readable by every program you run; an Administrator key can delete everything: move it to the keyring with \`lic profile migrate --to keyring\` (\`lic doctor\` tells the key's role).`,
      );
  }
}

/** Registers `lic profile show` on `parent`. */
export function registerProfileShow(parent: Command, deps: CommandDeps, run = runProfileShow): void {
  outputFormats(parent.command('show'))
    .description('Show the profile, URL and key (masked) that commands use now')
    .addHelpText('after', '\nExamples:\n  lic profile show\n  LIC_PROFILE=prod lic profile show -o json')
    .action(async (_o: unknown, cmd: Command) => run(deps.runtimeOf(cmd)));
}
