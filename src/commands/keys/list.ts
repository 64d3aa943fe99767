import { listApiKeys } from '../../client/endpoints/api-keys.js';
import type { ApiKey } from '../../wire.js';
import { ApiKeySchema } from '../../schema/api-key.js';
import { allOf, defineList, equalsClause, filterString, type ListFlags } from '../../cli/list/index.js';
import { permissionLetters } from '../../cli/parse.js';

export interface KeysListOptions extends ListFlags {
  /** owning user id */
  owner?: string;
  revoked?: boolean;
  active?: boolean;
}

/**
 * `lic keys list`: GET /v1/api-keys (contract §4). The table shows the key's public
 * prefix, never the key. --active: not revoked and not expired now (contract §3: such keys get 401).
 */
export const API_KEY_LIST = defineList<ApiKey, KeysListOptions>({
  what: 'API keys',
  arrayField: 'apiKeys',
  totalField: 'totalApiKeysCount',
  schema: ApiKeySchema,
  fetch: (client, q, _o, signal) => listApiKeys(client, q, signal),
  description: 'List API keys (the keys themselves are never shown, only their prefix)',
  columns: [
    { header: 'ID', kind: 'id', get: (k) => k.id },
    { header: 'NAME', kind: 'name', get: (k) => k.name },
    { header: 'OWNER', kind: 'label', get: (k) => k.ownerId },
    { header: 'PERM', kind: 'label', get: (k) => `${k.permissions} ${permissionLetters(k.permissions ?? 0)}` },
    { header: 'PREFIX', kind: 'code', get: (k) => k.keyPrefix },
    { header: 'CREATED', kind: 'time', get: (k) => k.createdAt },
    { header: 'EXPIRES', kind: 'time', get: (k) => k.expireDate },
    // a key's state survives any width (priority): a revoked or expired key never reads as a usable one
    { header: 'STATE', kind: 'label', priority: 2, get: keyState, tone: (k) => (keyState(k) === 'active' ? undefined : 'bad') },
    { header: 'DESCRIPTION', kind: 'text', get: (k) => k.description },
  ],
  flags: {
    owner: { flag: '--owner <userId>', help: 'only keys of this user', filter: (v) => equalsClause('OwnerId', v) },
    revoked: { flag: '--revoked', help: 'only revoked keys', conflicts: 'active', filter: (v) => v && 'Revoked = true' },
    active: {
      flag: '--active',
      help: 'only usable keys: not revoked and not expired',
      filter: (v, now) => v && allOf(['Revoked = false', `ExpireDate = null or ExpireDate > ${filterString(now.toISOString())}`]),
    },
  },
  help: { sortExample: 'createdAt:desc', whereExample: 'Permissions >= 4' },
  examples: ['lic keys list --active --owner admin', 'lic keys list --all --fields id,name,keyPrefix -o csv'],
});

/** `revoked`, `expired` (an expiry before now) or `active`: whether the service accepts the key (contract §3). */
function keyState(k: ApiKey): 'active' | 'revoked' | 'expired' {
  if (k.revoked) return 'revoked';
  return k.expireDate && Date.parse(k.expireDate) <= Date.now() ? 'expired' : 'active';
}

export const registerKeysList = API_KEY_LIST.register;
