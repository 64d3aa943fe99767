// Cross-cutting: the --fields/--sort field names of every list noun (keys, log, resources, assemblies, orders, templates, products) against the service's FieldSpecs.
/**
 * The CLI's field lists for --fields/--sort are copies of the service's FieldSpecs
 * (src/server/routes/<noun>.ts): compared here so they cannot drift apart. Each noun's
 * list behaviour is in test/commands/<noun>/list.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { ASSEMBLY_LIST } from '../../../src/commands/assemblies/list.js';
import { API_KEY_LIST } from '../../../src/commands/keys/list.js';
import { LOG_LIST } from '../../../src/commands/log/list.js';
import { ORDER_LIST } from '../../../src/commands/orders/list.js';
import { CUSTOMER_PRODUCT_LIST } from '../../../src/commands/products/list.js';
import { RESOURCE_LIST, RESOURCE_SELECT_ONLY } from '../../../src/commands/resources/list.js';
import { LICENSE_TEMPLATE_LIST, LICENSE_TEMPLATE_SELECT_ONLY } from '../../../src/commands/templates/list.js';
import { apiKeySource } from '../../../src/server/routes/api-keys.js';
import { assemblySource } from '../../../src/server/routes/assemblies.js';
import { licenseTemplateSource } from '../../../src/server/routes/license-templates.js';
import { logSource } from '../../../src/server/routes/log.js';
import { orderSource } from '../../../src/server/routes/orders.js';
import { customerProductFields } from '../../../src/server/routes/products.js';
import { resourceSource } from '../../../src/server/routes/resources.js';
import type { FieldSpec } from '../../../src/server/query/types.js';

const names = (fields: readonly FieldSpec[]) => fields.map((f) => f.name);
const selectOnly = (fields: readonly FieldSpec[]) => fields.filter((f) => f.queryable === false).map((f) => f.name);

describe('list field names match the service FieldSpecs', () => {
  it.each([
    ['API keys', API_KEY_LIST.fields, apiKeySource.spec.fields],
    ['log entries', LOG_LIST.fields, logSource.spec.fields],
    ['resources', RESOURCE_LIST.fields, resourceSource.spec.fields],
    ['assemblies', ASSEMBLY_LIST.fields, assemblySource.spec.fields],
    ['orders', ORDER_LIST.fields, orderSource.spec.fields],
    ['license templates', LICENSE_TEMPLATE_LIST.fields, licenseTemplateSource.spec.fields],
    ['customer products', CUSTOMER_PRODUCT_LIST.fields, customerProductFields],
  ])('%s', (_noun, cliFields, serverFields) => {
    // the ListDef's fields (from the schema) are what --fields/--sort are checked against
    expect([...cliFields]).toEqual(names(serverFields));
  });

  it('select-only fields (no filter, no sort) match the specs marked queryable: false', () => {
    expect([...RESOURCE_SELECT_ONLY]).toEqual(selectOnly(resourceSource.spec.fields));
    expect([...LICENSE_TEMPLATE_SELECT_ONLY]).toEqual(selectOnly(licenseTemplateSource.spec.fields));
    // the nouns without such a list have none
    expect(selectOnly(assemblySource.spec.fields)).toEqual([]);
    expect(selectOnly(orderSource.spec.fields)).toEqual([]);
    expect(selectOnly(apiKeySource.spec.fields)).toEqual([]);
    expect(selectOnly(logSource.spec.fields)).toEqual([]);
  });

  it('the resources table selects only fields the service has, with dataSize instead of the data', () => {
    const known = names(resourceSource.spec.fields);
    expect(RESOURCE_LIST.columnFields).toBeDefined();
    for (const f of RESOURCE_LIST.columnFields!) expect(known).toContain(f);
    expect(RESOURCE_LIST.columnFields).toContain('dataSize');
    expect(RESOURCE_LIST.columnFields).not.toContain('data');
    expect(RESOURCE_LIST.columnFields).not.toContain('password');
  });

  it('the nouns page by id: an integer field named id in every spec', () => {
    for (const spec of [
      apiKeySource.spec,
      logSource.spec,
      resourceSource.spec,
      assemblySource.spec,
      orderSource.spec,
      licenseTemplateSource.spec,
    ]) {
      expect(spec.fields.find((f) => f.name === 'id')?.type).toBe('int');
    }
  });
});
