import type { Command } from 'commander';
import { updateApiKey, type ApiKeyInput } from '../../client/endpoints/api-keys.js';
import { UsageError } from '../../cli/errors.js';
import { checkExpiry, outputFormats, parseExpiryOrNever, parseId, parsePermissions } from '../../cli/parse.js';
import type { CommandDeps } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { DRY_RUN_HELP } from '../../cli/dry-run-option.js';

interface KeysUpdateOptions {
  id: number;
  perm?: number;
  name?: string;
  description?: string;
  /** RFC 3339, or `null` (`--expires never`) to clear the expiry */
  expires?: string | null;
  /** accept an `expires` in the past */
  force?: boolean;
  revoke?: boolean;
  unrevoke?: boolean;
}

/** `lic keys update ID`: PUT /v1/api-keys with only the flags given (`--expires never` sends `expireDate: null`). UsageError for an `--expires` in the past without `--force`. */
async function runKeysUpdate(opts: KeysUpdateOptions, rt: Runtime): Promise<void> {
  if (opts.revoke && opts.unrevoke) throw new UsageError('--revoke and --unrevoke cannot be used together');
  checkExpiry(opts.expires, rt.ctx.now(), opts.force);
  const change: ApiKeyInput & { id: number } = { id: opts.id };
  if (opts.perm !== undefined) change.permissions = opts.perm;
  if (opts.name !== undefined) change.name = opts.name;
  if (opts.description !== undefined) change.description = opts.description;
  if (opts.expires !== undefined) change.expireDate = opts.expires;
  if (opts.revoke) change.revoked = true;
  if (opts.unrevoke) change.revoked = false;
  if (Object.keys(change).length === 1) {
    throw new UsageError('nothing to change: give at least one of --perm, --name, --description, --expires, --revoke, --unrevoke');
  }
  const client = await rt.client();
  const body = await updateApiKey(client, change);
  rt.out.done(body, `Updated API key ${opts.id}.`);
}

/** Declares `keys update ID` with --perm, --name, --description, --expires, --revoke, --unrevoke (only those given are sent). */
export function registerKeysUpdate(parent: Command, deps: CommandDeps, run = runKeysUpdate): void {
  outputFormats(parent.command('update'), ['table', 'json'])
    .description('Change an API key: permissions, name, description, expiry, revocation')
    .argument('<id>', 'API key id', parseId)
    .option('--perm <perm>', 'permission bitmask: 0..7, letters rwd, or names read,write,delete', parsePermissions)
    .option('--name <name>', 'display name')
    .option('--description <text>', 'free text')
    .option('--expires <time>', 'expiry: RFC 3339, a date, a relative age ahead such as 90d, or never to clear it', (v) =>
      parseExpiryOrNever(v, deps.ctx.now()),
    )
    .option('--force', 'accept an --expires in the past (the key is expired at once)')
    .option('--revoke', 'revoke the key (calls with it get 401 at once)')
    .option('--unrevoke', 'lift a revocation')
    .option('--dry-run', DRY_RUN_HELP)
    .addHelpText(
      'after',
      '\nExamples:\n  lic keys update 12 --perm rw --expires 30d\n  lic keys update 12 --name ci-deploy --description "CI pipeline"\n  lic keys update 12 --revoke\n  lic keys update 12 --expires never\n  lic keys update 12 --perm read --dry-run',
    )
    .action(async (id: number, { dryRun: _dryRun, ...o }: Omit<KeysUpdateOptions, 'id'> & { dryRun?: boolean }, cmd: Command) =>
      run({ ...o, id }, deps.runtimeOf(cmd)),
    );
}
