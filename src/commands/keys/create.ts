import type { Command } from 'commander';
import { createApiKey } from '../../client/endpoints/api-keys.js';
import { checkExpiry, outputFormats, parseExpiry, parsePermissions } from '../../cli/parse.js';
import type { CommandDeps } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { addDryRunOption } from '../../cli/dry-run-option.js';

interface KeysCreateOptions {
  perm: number;
  name?: string;
  owner?: string;
  description?: string;
  expires?: string;
  /** accept an `expires` in the past */
  force?: boolean;
}

/** `lic keys create --perm P`: POST /v1/api-keys; prints the id and the secret once. UsageError for an `--expires` in the past without `--force`. */
async function runKeysCreate(opts: KeysCreateOptions, rt: Runtime): Promise<void> {
  checkExpiry(opts.expires, rt.ctx.now(), opts.force);
  const client = await rt.client();
  const body = await createApiKey(client, {
    permissions: opts.perm,
    name: opts.name,
    ownerId: opts.owner,
    description: opts.description,
    expireDate: opts.expires,
  });
  await rt.out.record(body, [
    ['id', body.apiKeyId],
    ['key', body.key],
  ]);
  rt.out.warn('Store this API key now: it will not be shown again.');
}

/** Declares `keys create --perm P` with --name, --owner, --description, --expires (the key itself is printed once, never taken from argv). */
export function registerKeysCreate(parent: Command, deps: CommandDeps, run = runKeysCreate): void {
  const cmd = outputFormats(parent.command('create'))
    .description('Create an API key and print it once')
    .requiredOption('--perm <perm>', 'permission bitmask: 0..7, letters rwd, or names read,write,delete', parsePermissions)
    .option('--name <name>', 'display name')
    .option('--owner <userId>', 'owning user id (default: the caller)')
    .option('--description <text>', 'free text')
    .option('--expires <time>', 'expiry: RFC 3339, a date, or a relative age ahead such as 90d', (v) => parseExpiry(v, deps.ctx.now()))
    .option('--force', 'accept an --expires in the past (the key is expired at once)')
    .addHelpText(
      'after',
      '\nExamples:\n  lic keys create --perm 7\n  lic keys create --perm rw --name ci --expires 90d\n  KEY=$(lic keys create --perm read -o json | jq -r .key)\n  lic keys create --perm read --name audit --dry-run     # prints the request, sends nothing',
    );
  addDryRunOption(cmd).action(async (o: KeysCreateOptions, c: Command) => run(o, deps.runtimeOf(c)));
}
