import { Option, type Command } from 'commander';
import { listApiKeys } from '../../client/endpoints/api-keys.js';
import type { ApiKey } from '../../wire.js';
import { ApiKeySchema } from '../../schema/api-key.js';
import {
  addListOptions,
  allOf,
  fieldNames,
  fieldTypesOf,
  equalsClause,
  filterString,
  runList,
  type ListDef,
  type ListFlags,
} from '../../cli/list/index.js';
import type { Cli } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { API_KEY_COLUMNS } from './columns.js';

export interface KeysListOptions extends ListFlags {
  /** owning user id */
  owner?: string;
  revoked?: boolean;
  active?: boolean;
}

/** Fields of an API key in lists with their wire types (contract §4; derived from src/schema/ ApiKeySchema): the defaults of what the service leaves out. */
export const API_KEY_FIELD_TYPES = fieldTypesOf(ApiKeySchema);

/** Fields of an API key in lists (contract §4), for --fields and --sort. */
export const API_KEY_FIELDS = fieldNames(API_KEY_FIELD_TYPES);

/** API keys as a list (contract §4). */
export const API_KEY_LIST: ListDef<ApiKey> = {
  what: 'API keys',
  arrayField: 'apiKeys',
  totalField: 'totalApiKeysCount',
  columns: API_KEY_COLUMNS,
  fields: API_KEY_FIELDS,
  types: API_KEY_FIELD_TYPES,
};

/**
 * The keys' friendly filter flags → filter clauses (contract §5): --owner, --revoked,
 * --active (not revoked and not expired at `now`, contract §3: such keys get 401).
 */
export function keyFilters(o: Pick<KeysListOptions, 'owner' | 'revoked' | 'active'>, now: Date): (string | undefined)[] {
  return [
    o.owner !== undefined ? equalsClause('OwnerId', o.owner) : undefined,
    o.revoked ? 'Revoked = true' : undefined,
    o.active ? allOf(['Revoked = false', `ExpireDate = null or ExpireDate > ${filterString(now.toISOString())}`]) : undefined,
  ];
}

/** `lic keys list`: GET /v1/api-keys, rendered with API_KEY_COLUMNS. */
async function runKeysList(opts: KeysListOptions, rt: Runtime): Promise<void> {
  const client = await rt.client();
  await runList(rt, {
    def: API_KEY_LIST,
    flags: opts,
    filters: keyFilters(opts, rt.ctx.now()),
    fetch: (q, signal) => listApiKeys(client, q, signal),
  });
}

/** Declares `keys list` with --owner, --revoked, --active and the shared list flags. */
export function registerKeysList(parent: Command, cli: Cli, run = runKeysList): void {
  const cmd = parent
    .command('list')
    .alias('ls')
    .description('List API keys (the keys themselves are never shown, only their prefix)')
    .option('--owner <userId>', 'only keys of this user')
    .addOption(new Option('--revoked', 'only revoked keys').conflicts('active'))
    .option('--active', 'only usable keys: not revoked and not expired');
  addListOptions(cmd, API_KEY_LIST, { sortExample: 'createdAt:desc', whereExample: 'Permissions >= 4' })
    .addHelpText('after', '\nExamples:\n  lic keys list --active --owner admin\n  lic keys list --all --fields id,name,keyPrefix -o csv')
    .action(async (o: KeysListOptions, cmd: Command) => run(o, cli.runtimeOf(cmd)));
}
