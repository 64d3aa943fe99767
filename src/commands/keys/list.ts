import type { Command } from 'commander';
import { listApiKeys } from '../../client/endpoints.js';
import type { ApiKey } from '../../wire.js';
import { parseCount, parseTake } from '../../cli/parse.js';
import type { Cli } from '../../cli/program.js';
import type { Runtime } from '../../cli/runtime.js';
import { API_KEY_COLUMNS } from './columns.js';

export interface KeysListOptions {
  take?: number;
  skip?: number;
}

/** `lic keys list`: GET /v1/api-keys, rendered with API_KEY_COLUMNS. */
export async function runKeysList(opts: KeysListOptions, rt: Runtime): Promise<void> {
  const client = await rt.client();
  const body = await listApiKeys(client, { take: opts.take, skip: opts.skip });
  await rt.out.list(body, (body.apiKeys ?? []) as ApiKey[], API_KEY_COLUMNS);
}

export function registerKeysList(parent: Command, cli: Cli): void {
  parent
    .command('list')
    .alias('ls')
    .description('List API keys (the keys themselves are never shown, only their prefix)')
    .option('--take <n>', 'page size, 0..1000 (default 100)', parseTake)
    .option('--skip <n>', 'records to skip', parseCount)
    .action(async (o: KeysListOptions, cmd: Command) => runKeysList(o, cli.runtimeOf(cmd)));
}
