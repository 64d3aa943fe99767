/**
 * What derives from the record schemas (src/schema/): the CLI's field-type tables
 * (fieldTypesOf), the service's list FieldSpecs (listFields), the response and body
 * schemas. The expected values are the tables that were written by hand before the
 * schemas existed, so a change of derivation that would change a reply shows here.
 */
import { describe, expect, it } from 'vitest';
import { fieldTypesOf, normalizeRecord } from '../../src/cli/list/normalize.js';
import { ApiKeyInsertBody, ApiKeySchema, ApiKeyUpdateBody } from '../../src/schema/api-key.js';
import { AssemblyInsertBody, AssemblyUpdateBody } from '../../src/schema/assembly.js';
import { LicenseTemplateSchema } from '../../src/schema/license-template.js';
import { OrderSchema } from '../../src/schema/order.js';
import { ResourceSchema } from '../../src/schema/resource.js';
import { listFields } from '../../src/server/fields.js';
import { selectable } from '../../src/server/openapi.js';
import { ORDER_FIELDS } from '../helpers/fixtures.js';

describe('fieldTypesOf', () => {
  it('gives the CLI the field kinds of an API key, in the documented order', () => {
    expect(fieldTypesOf(ApiKeySchema)).toEqual({
      id: 'int',
      name: 'string',
      ownerId: 'string',
      permissions: 'int',
      description: 'string',
      createdAt: 'time',
      expireDate: 'time',
      revoked: 'bool',
      keyPrefix: 'string',
    });
    expect(Object.keys(fieldTypesOf(OrderSchema))).toEqual(ORDER_FIELDS);
  });

  it('derives nested records, arrays of records and the optional id of a template assembly', () => {
    const t = fieldTypesOf(LicenseTemplateSchema);
    expect(t.product).toEqual({
      record: { id: 'string', name: 'string', version: 'string', copyright: 'string', url: 'string', description: 'string' },
    });
    expect(t.components).toBe('array');
    expect(t.assemblies).toEqual({
      of: {
        id: 'optionalInt',
        name: 'string',
        version: 'string',
        culture: 'string',
        publicKeyToken: 'string',
        mappingFileId: 'int',
        debugSymbolsKey: 'string',
      },
    });
    expect(t.features).toEqual({
      of: { id: 'string', name: 'string', description: 'string', expireDate: 'time', key: 'string', data: 'string' },
    });
    expect(t.restrictions).toEqual({ of: { id: 'string', name: 'string', expireDate: 'time', properties: 'object' } });
  });

  it('normalises a sparse template as before: an absent assembly id stays absent, an unset expiry is null', () => {
    const rec = normalizeRecord(
      { id: '3', assemblies: [{ name: 'A' }, { id: 9, name: 'B' }], features: [{ id: 'f', expireDate: '' }] },
      fieldTypesOf(LicenseTemplateSchema),
      ['id', 'assemblies', 'features'],
    );
    expect(rec).toEqual({
      id: 3,
      assemblies: [
        { name: 'A', version: '', culture: '', publicKeyToken: '', mappingFileId: 0, debugSymbolsKey: '' },
        { id: 9, name: 'B', version: '', culture: '', publicKeyToken: '', mappingFileId: 0, debugSymbolsKey: '' },
      ],
      features: [{ id: 'f', name: '', description: '', expireDate: null, key: '', data: '' }],
    });
  });
});

describe('listFields', () => {
  it('maps each field to <alias>.<snake_case> with its query type, overrides winning', () => {
    const fields = listFields(ResourceSchema, 'r', { dataSize: { column: 'length(r.data)' }, data: { queryable: false } });
    expect(fields.map((f) => [f.name, f.column, f.type, f.queryable])).toEqual([
      ['id', 'r.id', 'int', undefined],
      ['name', 'r.name', 'string', undefined],
      ['type', 'r.type', 'string', undefined],
      ['code', 'r.code', 'string', undefined],
      ['description', 'r.description', 'string', undefined],
      ['source', 'r.source', 'string', undefined],
      ['password', 'r.password', 'string', undefined],
      ['createdAt', 'r.created_at', 'timestamp', undefined],
      ['updatedAt', 'r.updated_at', 'timestamp', undefined],
      ['data', 'r.data', 'string', false],
      ['dataFormat', 'r.data_format', 'string', undefined],
      ['dataSize', 'length(r.data)', 'int', undefined],
    ]);
    expect(listFields(LicenseTemplateSchema, 't').find((f) => f.name === 'components')).toMatchObject({ queryable: false });
  });

  it('refuses an override of a field the record does not have', () => {
    expect(() => listFields(ResourceSchema, 'r', { size: { column: 'x' } })).toThrow(/unknown field size/);
  });
});

describe('bodies and replies', () => {
  it('PUT is the POST body with every field optional and the int32 id required, plus its own fields', () => {
    const post = ApiKeyInsertBody.properties.apiKey;
    const put = ApiKeyUpdateBody.properties.apiKey;
    expect(post.required).toEqual(['permissions']);
    expect(put.required).toEqual(['id']);
    expect(Object.keys(put.properties)).toEqual([...Object.keys(post.properties), 'revoked']);
    expect(put.properties.id).toEqual({ type: 'integer', minimum: 1, maximum: 2147483647 });
    expect(put.properties.expireDate).toEqual({ type: ['string', 'null'], maxLength: 64 });
    expect(AssemblyUpdateBody.properties.assembly.properties.name).toBe(AssemblyInsertBody.properties.assembly.properties.name);
  });

  it('a list reply requires no field at any depth (select may leave any out), the schema itself untouched', () => {
    const reply = JSON.stringify(selectable(LicenseTemplateSchema));
    expect(reply).not.toContain('"required"');
    expect(LicenseTemplateSchema.required).toContain('assemblies');
  });
});
