import type { Command } from 'commander';
import type { Cli } from '../../cli/program.js';
import type { Runtime } from '../../cli/runtime.js';
import { maskKey } from '../../config/profiles.js';

interface ProfileRow {
  name: string;
  baseUrl: string;
  apiKey: string;
  default: boolean;
}

/** `lic profile list`: names, URLs, masked keys, which is the default. */
export async function runProfileList(rt: Runtime): Promise<void> {
  const store = await rt.profiles();
  const rows: ProfileRow[] = store.list().map((p) => ({ name: p.name, baseUrl: p.profile.baseUrl, apiKey: maskKey(p.profile.apiKey), default: p.isDefault }));
  await rt.out.list({ profiles: rows }, rows, [
    { header: 'NAME', get: (r) => r.name },
    { header: 'BASE URL', get: (r) => r.baseUrl },
    { header: 'API KEY', get: (r) => r.apiKey },
    { header: 'DEFAULT', get: (r) => (r.default ? '*' : ''), tone: (r) => (r.default ? 'ok' : undefined) },
  ]);
}

export function registerProfileList(parent: Command, cli: Cli): void {
  parent
    .command('list')
    .alias('ls')
    .description('List profiles (keys masked)')
    .action(async (_o: unknown, cmd: Command) => runProfileList(cli.runtimeOf(cmd)));
}
