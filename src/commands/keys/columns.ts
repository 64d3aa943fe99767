import type { Column } from '../../cli/output.js';
import { permissionLetters } from '../../cli/parse.js';
import type { ApiKey } from '../../wire.js';

/** Table columns of an API key; the key itself never appears (only its public prefix). */
export const API_KEY_COLUMNS: Column<ApiKey>[] = [
  { header: 'ID', kind: 'id', get: (k) => k.id },
  { header: 'NAME', kind: 'name', get: (k) => k.name },
  { header: 'OWNER', kind: 'label', get: (k) => k.ownerId },
  { header: 'PERM', kind: 'label', get: (k) => `${k.permissions} ${permissionLetters(k.permissions ?? 0)}` },
  { header: 'PREFIX', kind: 'code', get: (k) => k.keyPrefix },
  { header: 'CREATED', kind: 'time', get: (k) => k.createdAt },
  { header: 'EXPIRES', kind: 'time', get: (k) => k.expireDate },
  { header: 'REVOKED', kind: 'label', get: (k) => Boolean(k.revoked), tone: (k) => (k.revoked ? 'bad' : undefined) },
  { header: 'DESCRIPTION', kind: 'text', get: (k) => k.description },
];
