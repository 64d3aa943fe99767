import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../context.js';
import { badRequest, conflict, notFound } from '../errors.js';
import type { ListSource } from '../list.js';
import { AssemblyInsertBody, AssemblySchema, AssemblyUpdateBody } from '../../schema/assembly.js';
import { listFields } from '../fields.js';
import { ColumnChanges, deleteRoute, insertRoute, insertRow, listRoute, updateRoute } from './crud.js';
import type { Role } from '../../wire.js';

/** Roles of every `/v1/assemblies` operation (spec, Assemblies). */
const ASSEMBLY_ROLES: readonly Role[] = ['Administrator', 'LicenseManager'];

/** Fields of an assembly in lists (contract §7), from its schema. */
export const assemblySource: ListSource = {
  from: 'assemblies a',
  spec: { fields: listFields(AssemblySchema, 'a'), defaultSort: [{ name: 'id', desc: false }] },
};

/** `a.b.c.d` with each part 0..65535 (ECMA-335 II.22.2: four 16-bit numbers) → canonical form (no leading zeros); '' stays ''. 400 otherwise. */
function normalizeVersion(v: string): string {
  if (v === '') return '';
  const m = /^(\d{1,5})\.(\d{1,5})\.(\d{1,5})\.(\d{1,5})$/.exec(v);
  if (!m || m.slice(1).some((p) => Number(p) > 65535)) {
    throw badRequest(`assembly.version must be a.b.c.d with each part 0..65535 (e.g. 4.0.0.0), got "${v}"`, 'assembly.version');
  }
  return m.slice(1).map(Number).join('.');
}

/** A public key token: 16 hex digits (stored lowercase) or '' (contract §7). 400 otherwise. */
function normalizeToken(t: string): string {
  if (t === '') return '';
  if (!/^[0-9a-fA-F]{16}$/.test(t)) {
    throw badRequest(`assembly.publicKeyToken must be 16 hex digits or empty, got "${t}"`, 'assembly.publicKeyToken');
  }
  return t.toLowerCase();
}

/** A culture name (letters, digits, hyphens, like `de` or `zh-Hans`); `neutral` means none and is stored as '' (ECMA-335 II.22.2). */
function normalizeCulture(c: string): string {
  if (c === '' || c.toLowerCase() === 'neutral') return '';
  if (!/^[A-Za-z0-9]+(-[A-Za-z0-9]+)*$/.test(c)) {
    throw badRequest(
      `assembly.culture must be a culture name such as de or zh-Hans, or "neutral"/"" for none, got "${c}"`,
      'assembly.culture',
    );
  }
  return c;
}

interface Identity {
  name: string;
  version: string;
  culture: string;
  publicKeyToken: string;
}

const describeIdentity = (i: Identity) =>
  `${i.name}, Version=${i.version || '(none)'}, Culture=${i.culture || 'neutral'}, PublicKeyToken=${i.publicKeyToken || 'null'}`;

/** `/v1/assemblies`: list, insert, update, delete (contract §7). */
export async function assemblyRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  const { db } = ctx;
  const resourceExists = db.prepare<[number], number>('SELECT 1 FROM resources WHERE id = ?').pluck();
  const identityOwner = db
    .prepare<[string, string, string, string], number>(
      'SELECT id FROM assemblies WHERE name = ? AND version = ? AND culture = ? AND public_key_token = ?',
    )
    .pluck();
  const current = db.prepare<[number], Identity>(
    'SELECT name, version, culture, public_key_token AS publicKeyToken FROM assemblies WHERE id = ?',
  );

  function checkMappingFile(id: number | undefined): void {
    if (id !== undefined && id !== 0 && !resourceExists.get(id)) {
      throw badRequest(`assembly.mappingFileId ${id} is not the id of a resource (use 0 for none)`, 'assembly.mappingFileId');
    }
  }

  function checkIdentity(i: Identity, selfId: number | null): void {
    const owner = identityOwner.get(i.name, i.version, i.culture, i.publicKeyToken);
    if (owner !== undefined && owner !== selfId) {
      const message = `an assembly with identity "${describeIdentity(i)}" already exists: assembly ${owner}`;
      throw conflict(message, 'assembly');
    }
  }

  listRoute(app, ctx, {
    path: '/v1/assemblies',
    roles: ASSEMBLY_ROLES,
    summary: 'List assemblies',
    arrayField: 'assemblies',
    totalField: 'totalAssembliesCount',
    schema: AssemblySchema,
    source: assemblySource,
  });

  insertRoute(app, ctx, {
    path: '/v1/assemblies',
    roles: ASSEMBLY_ROLES,
    summary: 'Insert an assembly',
    body: AssemblyInsertBody,
    idField: 'assemblyId',
    insert: ({ assembly: a }) => {
      const identity: Identity = {
        name: a.name,
        version: normalizeVersion(a.version ?? ''),
        culture: normalizeCulture(a.culture ?? ''),
        publicKeyToken: normalizeToken(a.publicKeyToken ?? ''),
      };
      checkMappingFile(a.mappingFileId);
      checkIdentity(identity, null);
      return insertRow(db, 'assemblies', {
        name: identity.name,
        version: identity.version,
        culture: identity.culture,
        public_key_token: identity.publicKeyToken,
        mapping_file_id: a.mappingFileId ?? 0,
        debug_symbols_key: a.debugSymbolsKey ?? '',
      });
    },
  });

  updateRoute(app, ctx, {
    path: '/v1/assemblies',
    roles: ASSEMBLY_ROLES,
    summary: 'Update an assembly: only the fields present change',
    body: AssemblyUpdateBody,
    update: ({ assembly: a }) => {
      const change: Partial<Identity> = {};
      if (a.name !== undefined) change.name = a.name;
      if (a.version !== undefined) change.version = normalizeVersion(a.version);
      if (a.culture !== undefined) change.culture = normalizeCulture(a.culture);
      if (a.publicKeyToken !== undefined) change.publicKeyToken = normalizeToken(a.publicKeyToken);
      checkMappingFile(a.mappingFileId);
      const before = current.get(a.id);
      if (!before) throw notFound(`no assembly with id ${a.id}`);
      checkIdentity({ ...before, ...change }, a.id);
      const changes = new ColumnChanges();
      changes.setAll(change, { name: 'name', version: 'version', culture: 'culture', publicKeyToken: 'public_key_token' });
      changes.setAll(a, { mappingFileId: 'mapping_file_id', debugSymbolsKey: 'debug_symbols_key' });
      changes.write(db, 'assemblies', a.id);
      return { id: a.id, changed: changes.changed };
    },
  });

  deleteRoute(app, ctx, {
    path: '/v1/assemblies',
    param: 'assemblyId',
    roles: ASSEMBLY_ROLES,
    summary: 'Delete an assembly',
    table: 'assemblies',
    what: 'assembly',
  });
}
