import type { Column } from '../../cli/output.js';
import { permissionLetters } from '../../cli/parse.js';
import type { ApiKey } from '../../wire.js';

/** Table columns of an API key; the key itself never appears (only its public prefix). */
export const API_KEY_COLUMNS: Column<ApiKey>[] = [
  { header: 'ID', get: (k) => k.id },
  { header: 'NAME', get: (k) => k.name },
  { header: 'OWNER', get: (k) => k.ownerId },
  { header: 'PERM', get: (k) => `${k.permissions} ${permissionLetters(k.permissions ?? 0)}` },
  { header: 'PREFIX', get: (k) => k.keyPrefix },
  { header: 'CREATED', get: (k) => k.createdAt },
  { header: 'EXPIRES', get: (k) => k.expireDate },
  { header: 'REVOKED', get: (k) => Boolean(k.revoked), tone: (k) => (k.revoked ? 'bad' : undefined) },
  { header: 'DESCRIPTION', get: (k) => k.description },
];
