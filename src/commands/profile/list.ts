import type { Command } from 'commander';
import type { CommandDeps } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { keyStoreOf, maskKey, readProfiles, type KeyStore } from '../../config/profiles.js';
import { outputFormats } from '../../cli/parse.js';

interface ProfileRow {
  name: string;
  baseUrl: string;
  /** masked; null for a key in the keyring (a list never reads the keyring: no unlock prompt) */
  apiKey: string | null;
  keyStore: KeyStore | null;
  default: boolean;
}

/** `lic profile list`: names, URLs, masked keys (of keys in the file), where each key is, which is the default. */
async function runProfileList(rt: Runtime): Promise<void> {
  const store = readProfiles(rt.ctx.configDir);
  const rows: ProfileRow[] = store.list().map((p) => {
    const keyStore = keyStoreOf(p.profile) ?? null;
    return {
      name: p.name,
      baseUrl: p.profile.baseUrl,
      apiKey: keyStore === 'keyring' ? null : maskKey(p.profile.apiKey),
      keyStore,
      default: p.isDefault,
    };
  });
  await rt.out.list({ profiles: rows }, rows, [
    { header: 'NAME', kind: 'name', get: (r) => r.name },
    { header: 'BASE URL', kind: 'url', get: (r) => r.baseUrl },
    { header: 'API KEY', kind: 'code', get: (r) => r.apiKey ?? '-' },
    { header: 'KEY STORE', kind: 'label', get: (r) => r.keyStore ?? '-', tone: (r) => (r.keyStore === 'file' ? 'warn' : undefined) },
    { header: 'DEFAULT', kind: 'label', get: (r) => (r.default ? '*' : ''), tone: (r) => (r.default ? 'ok' : undefined) },
  ]);
}

/** Registers `lic profile list` on `parent`. */
export function registerProfileList(parent: Command, deps: CommandDeps, run = runProfileList): void {
  outputFormats(parent.command('list'))
    .alias('ls')
    .description('List profiles (keys masked) and where each key is stored')
    .addHelpText('after', "\nExamples:\n  lic profile list\n  lic profile list -o json | jq -r '.profiles[].name'")
    .action(async (_o: unknown, cmd: Command) => run(deps.runtimeOf(cmd)));
}
