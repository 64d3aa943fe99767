import type { Command } from 'commander';
import type { Cli } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { maskKey, storePath } from '../../config/profiles.js';

/** `lic profile show`: the profile, base URL, (masked) key and network settings a command would use now, and where each comes from. */
async function runProfileShow(rt: Runtime): Promise<void> {
  const t = await rt.target();
  const net = await rt.network();
  const env = rt.ctx.env;
  const urlFrom = rt.globals.baseUrl
    ? '--base-url'
    : env.LIC_BASE_URL
      ? 'LIC_BASE_URL'
      : t.profileName
        ? `profile ${t.profileName}`
        : 'built-in default';
  const keyFrom = env.LIC_API_KEY ? 'LIC_API_KEY' : t.apiKey ? `profile ${t.profileName}` : 'none';
  const body = {
    profile: t.profileName ?? null,
    baseUrl: t.baseUrl,
    baseUrlFrom: urlFrom,
    apiKey: maskKey(t.apiKey),
    apiKeyFrom: keyFrom,
    timeoutMs: net.timeoutMs.value,
    timeoutFrom: net.timeoutMs.from,
    retries: net.retries.value,
    retriesFrom: net.retries.from,
    caFile: net.caFile?.value ?? null,
    caFileFrom: net.caFile?.from ?? null,
    insecureHttp: net.insecureHttp.value,
    insecureHttpFrom: net.insecureHttp.from,
    store: storePath(rt.ctx.configDir),
  };
  await rt.out.record(body, [
    ['profile', body.profile ?? '(none)'],
    ['base URL', `${body.baseUrl} (from ${urlFrom})`],
    ['API key', `${body.apiKey} (from ${keyFrom})`],
    ['timeout', `${body.timeoutMs} ms per attempt (from ${body.timeoutFrom})`],
    ['retries', `${body.retries} (from ${body.retriesFrom})`],
    ['CA file', body.caFile ? `${body.caFile} (from ${body.caFileFrom})` : '(none: the system CAs)'],
    ['insecure http', `${body.insecureHttp ? 'allowed' : 'refused'} (from ${body.insecureHttpFrom})`],
    ['store', body.store],
  ]);
}

/** Registers `lic profile show` on `parent`. */
export function registerProfileShow(parent: Command, cli: Cli, run = runProfileShow): void {
  parent
    .command('show')
    .description('Show the profile, URL and key (masked) that commands use now')
    .addHelpText('after', '\nExamples:\n  lic profile show\n  LIC_PROFILE=prod lic profile show -o json')
    .action(async (_o: unknown, cmd: Command) => run(cli.runtimeOf(cmd)));
}
