import { describe, expect, it } from 'vitest';
import { DatasetError, parseDataset, type Dataset } from '../../../src/server/seed/dataset.js';
import { DATASET_SCHEMA } from '../../../src/server/seed/dataset-schema.js';
import { ApiKeySchema } from '../../../src/schema/api-key.js';
import { AssemblySchema } from '../../../src/schema/assembly.js';
import { CustomerProductSchema } from '../../../src/schema/customer-product.js';
import { LicenseTemplateSchema } from '../../../src/schema/license-template.js';
import { LogEntrySchema } from '../../../src/schema/log-entry.js';
import { OrderSchema } from '../../../src/schema/order.js';
import { ResourceSchema } from '../../../src/schema/resource.js';
import { buildDemoDataset } from '../../../src/server/seed/demo.js';

const NOW = new Date('2025-06-01T12:00:00.000Z');
const demo = buildDemoDataset(NOW);

/** A deep copy of the demo dataset as plain JSON, to break in one place. */
function base(): Record<string, any> {
  return JSON.parse(JSON.stringify(demo)) as Record<string, any>;
}

function errorOf(json: unknown): DatasetError {
  try {
    parseDataset(json);
  } catch (e) {
    expect(e).toBeInstanceOf(DatasetError);
    return e as DatasetError;
  }
  throw new Error('parseDataset accepted the dataset');
}

function expectFault(mutate: (d: Record<string, any>) => void, message: string): void {
  const d = base();
  mutate(d);
  expect(errorOf(d).message).toBe(message);
}

const RFC = 'must be an RFC 3339 timestamp such as 2025-01-18T14:04:02.659Z';

describe('parseDataset', () => {
  it('accepts the smallest dataset and returns the same object', () => {
    const d = { users: [] };
    expect(parseDataset(d)).toBe(d);
  });

  it('accepts a small hand-written dataset', () => {
    const d: Dataset = {
      $schema: './dataset.schema.json',
      users: [
        { id: 'root', name: 'Root', email: 'root@example.com', role: 'Administrator' },
        { id: 'c1', name: 'Carla', email: 'c@example.com', role: 'Customer', customerCode: 'C-ABCDEF12' },
      ],
      apiKeys: [
        { ownerId: 'root', name: 'root key', permissions: 7, key: 'api_0123456789abcdefghijklmn' },
        { ownerId: 'c1', name: 'ro', permissions: 1, expireDate: '2030-01-01T00:00:00+01:00', revoked: false },
      ],
      customers: [{ id: 7, code: 'C-ABCDEF12', name: 'Acme', email: '', country: 'DE', createdAt: '2024-01-01T00:00:00Z' }],
      releases: [],
      log: [{ timeStamp: '2025-01-18T14:04:02.6599643Z', level: 'Warning', message: 'm', messageTemplate: 'm' }],
      resources: [{ name: 'k', type: 'RSA', code: '', description: '', source: '', password: 'x', data: '', dataFormat: 'SNK' }],
    };
    expect(parseDataset(JSON.parse(JSON.stringify(d)))).toEqual(d);
  });

  it('exports its JSON schema', () => {
    expect(DATASET_SCHEMA.type).toBe('object');
    expect(DATASET_SCHEMA.required).toEqual(['users']);
  });

  it("takes each listed record's fields from its schema in src/schema/, minus what the service sets", () => {
    const items = (coll: string): Record<string, any> => DATASET_SCHEMA.properties[coll].items;
    const fields = (coll: string): string[] => Object.keys(items(coll).properties);
    const but = (schema: { properties: object }, ...omit: string[]): string[] =>
      Object.keys(schema.properties).filter((k) => !omit.includes(k));
    expect(fields('orders')).toEqual(but(OrderSchema));
    expect(fields('products')).toEqual(but(CustomerProductSchema));
    expect(fields('assemblies')).toEqual(but(AssemblySchema));
    expect(fields('licenseTemplates')).toEqual(but(LicenseTemplateSchema, 'product'));
    expect(fields('resources')).toEqual(but(ResourceSchema, 'dataSize'));
    expect(fields('log')).toEqual(but(LogEntrySchema, 'id'));
    expect(fields('apiKeys')).toEqual([...but(ApiKeySchema, 'id', 'createdAt', 'keyPrefix'), 'key']);
    // nested records too, and which fields are required
    const template = items('licenseTemplates').properties;
    expect(Object.keys(template.features.items.properties)).toEqual(
      Object.keys(LicenseTemplateSchema.properties.features.items.properties),
    );
    expect(items('orders').required).toEqual(OrderSchema.required);
    expect(items('log').required).toEqual(['message', 'messageTemplate', 'level', 'timeStamp']);
    expect(items('resources').required).toEqual(but(ResourceSchema, 'id', 'createdAt', 'updatedAt', 'dataSize'));
    expect(items('apiKeys').required).toEqual(['name', 'ownerId', 'permissions']);
  });

  it('takes a template assembly with id 0 or no id, as the record allows (a copy of no assembly record)', () => {
    const d = base();
    d.licenseTemplates[0].assemblies[0].id = 0;
    delete d.licenseTemplates[1].assemblies[0].id;
    expect(() => parseDataset(d)).not.toThrow();
    expectFault(
      (x) => (x.licenseTemplates[0].assemblies[0].id = -1),
      'licenseTemplates[0].assemblies[0].id: must be an integer from 0 to 2147483647',
    );
  });

  it('reports the root', () => {
    expect(errorOf(5).message).toBe('dataset: must be an object');
    expect(errorOf(null).message).toBe('dataset: must be an object');
    expect(errorOf([]).message).toBe('dataset: must be an object');
    expect(errorOf({}).message).toBe('users: is required');
    expect(errorOf({ users: [], extra: 1 }).message).toBe('extra: is not a known field');
    expect(errorOf({ users: {} }).message).toBe('users: must be an array');
  });

  it('carries path and reason separately', () => {
    const e = errorOf({ users: [{ id: 'a', name: 'A', email: '', role: 'Root' }] });
    expect(e.path).toBe('users[0].role');
    expect(e.reason).toBe('must be one of Administrator, LicenseManager, Sales, Customer');
    expect(e.name).toBe('DatasetError');
  });

  describe('shape faults name the exact path', () => {
    it('wrong type', () => {
      expectFault((d) => (d.orders[12].customerId = '3'), 'orders[12].customerId: must be an integer');
      expectFault((d) => (d.orders[3].total = '12.50'), 'orders[3].total: must be a number');
      expectFault((d) => (d.orders[4].customerId = 1.5), 'orders[4].customerId: must be an integer');
      expectFault((d) => (d.licenseTemplates[2].generateKeyInfo = 1), 'licenseTemplates[2].generateKeyInfo: must be a boolean');
      expectFault(
        (d) => (d.licenseTemplates[0].restrictions[0].properties.max = 5),
        'licenseTemplates[0].restrictions[0].properties.max: must be a string',
      );
      expectFault((d) => (d.licenseTemplates[1].components = 'a,b'), 'licenseTemplates[1].components: must be an array');
    });
    it('missing required field', () => {
      expectFault((d) => delete d.customers[3].name, 'customers[3].name: is required');
      expectFault((d) => delete d.orders[0].paymentDate, 'orders[0].paymentDate: is required');
      expectFault((d) => delete d.log[10].level, 'log[10].level: is required');
    });
    it('unknown field', () => {
      expectFault((d) => (d.orders[5].customerID = 3), 'orders[5].customerID: is not a known field');
    });
    it('bad timestamp', () => {
      expectFault((d) => (d.customers[0].createdAt = '2025-02-30T00:00:00Z'), `customers[0].createdAt: ${RFC}`);
      expectFault((d) => (d.orders[1].createdAt = '2025-01-18'), `orders[1].createdAt: ${RFC}`);
      expectFault((d) => (d.orders[2].updatedAt = 'yesterday'), `orders[2].updatedAt: ${RFC}`);
      expectFault((d) => (d.log[7].timeStamp = 1737209042659), 'log[7].timeStamp: must be a string');
      expectFault((d) => (d.releases[0].releaseDate = '2025-13-01T00:00:00Z'), `releases[0].releaseDate: ${RFC}, or empty`);
    });
    it('bad role', () => {
      expectFault((d) => (d.users[1].role = 'Manager'), 'users[1].role: must be one of Administrator, LicenseManager, Sales, Customer');
    });
    it('bad level', () => {
      expectFault((d) => (d.log[42].level = 'Warn'), 'log[42].level: must be one of Verbose, Debug, Information, Warning, Error, Fatal');
      expectFault((d) => (d.log[43].level = 3), 'log[43].level: must be one of Verbose, Debug, Information, Warning, Error, Fatal');
    });
    it('permissions outside 0..7', () => {
      expectFault((d) => (d.apiKeys[0].permissions = 9), 'apiKeys[0].permissions: must be an integer from 0 to 7');
      expectFault((d) => (d.apiKeys[2].permissions = 8), 'apiKeys[2].permissions: must be an integer from 0 to 7');
      expectFault((d) => (d.apiKeys[1].permissions = -1), 'apiKeys[1].permissions: must be an integer from 0 to 7');
    });
    it('ids outside int32', () => {
      expectFault((d) => (d.customers[0].id = 0), 'customers[0].id: must be an integer from 1 to 2147483647');
      expectFault((d) => (d.orders[0].id = 2147483648), 'orders[0].id: must be an integer from 1 to 2147483647');
    });
    it('formats of codes, keys, data and properties', () => {
      expectFault((d) => (d.customers[2].code = 'C-abc'), 'customers[2].code: must be "C-" followed by 8 of A-Z, 0-9');
      expectFault((d) => (d.users[3].customerCode = 'X-ABCDEFGH'), 'users[3].customerCode: must be "C-" followed by 8 of A-Z, 0-9');
      expectFault((d) => (d.apiKeys[0].key = 'api_SHORT'), 'apiKeys[0].key: must be "api_" followed by 24 of a-z, 0-9');
      expectFault((d) => (d.resources[1].data = 'not base64!'), 'resources[1].data: must be base64 (RFC 4648, with padding)');
      expectFault((d) => (d.log[3].properties = '[1,2]'), 'log[3].properties: must be a JSON object serialised as a string');
      expectFault((d) => (d.assemblies[0].publicKeyToken = 'xyz'), 'assemblies[0].publicKeyToken: must be 16 hex digits or empty');
      expectFault((d) => (d.assemblies[1].version = '1.0'), 'assemblies[1].version: must be a version a.b.c.d');
      expectFault((d) => (d.products[0].currency = 'usd'), 'products[0].currency: must be a 3-letter ISO 4217 code such as USD, or empty');
      expectFault((d) => (d.products[1].code = ''), 'products[1].code: must not be empty');
      expectFault((d) => (d.customers[0].name = 'x'.repeat(257)), 'customers[0].name: must be at most 256 characters');
    });
  });

  describe('reference faults', () => {
    it('dangling references', () => {
      expectFault((d) => (d.orders[12].customerId = 99), 'orders[12].customerId: no customer with id 99');
      expectFault((d) => (d.releases[3].productId = 42), 'releases[3].productId: no product with id 42');
      expectFault((d) => (d.licenseTemplates[5].productId = 42), 'licenseTemplates[5].productId: no product with id 42');
      expectFault((d) => (d.licenseTemplates[5].releaseId = 999), 'licenseTemplates[5].releaseId: no release with id 999');
      expectFault((d) => (d.customerProducts[0].customerId = 77), 'customerProducts[0].customerId: no customer with id 77');
      expectFault((d) => (d.customerProducts[1].productId = 77), 'customerProducts[1].productId: no product with id 77');
      expectFault((d) => (d.apiKeys[2].ownerId = 'nobody'), 'apiKeys[2].ownerId: no user with id "nobody"');
      expectFault((d) => (d.users[3].customerCode = 'C-ZZZZZZZZ'), 'users[3].customerCode: no customer with code C-ZZZZZZZZ');
      expectFault((d) => (d.products[0].signatureKeysId = 50), 'products[0].signatureKeysId: no resource with id 50 (use 0 for none)');
      expectFault((d) => (d.assemblies[0].mappingFileId = 50), 'assemblies[0].mappingFileId: no resource with id 50 (use 0 for none)');
    });
    it('a template whose release belongs to another product', () => {
      expectFault(
        (d) => {
          const t = d.licenseTemplates.find((x: any) => x.productId === 1);
          t.releaseId = d.releases.find((r: any) => r.productId === 2).id;
        },
        `licenseTemplates[0].releaseId: release ${demo.releases!.find((r) => r.productId === 2)!.id} belongs to product 2, not 1`,
      );
    });
    it('customer codes only on Customer users', () => {
      expectFault((d) => delete d.users[3].customerCode, 'users[3].customerCode: is required for role Customer');
      expectFault(
        (d) => (d.users[0].customerCode = d.customers[0].code),
        'users[0].customerCode: only a Customer user has a customer code (role is Administrator)',
      );
    });
    it('duplicates', () => {
      expectFault((d) => (d.customers[1].id = d.customers[0].id), 'customers[1].id: duplicate id 1 (also customers[0])');
      expectFault(
        (d) => (d.customers[4].code = d.customers[2].code),
        `customers[4].code: duplicate code ${demo.customers![2]!.code} (also customers[2])`,
      );
      expectFault((d) => (d.users[2].id = 'admin'), 'users[2].id: duplicate id "admin" (also users[0])');
      expectFault(
        (d) => (d.orders[9].orderNumber = d.orders[8].orderNumber),
        `orders[9].orderNumber: duplicate order number "${demo.orders![8]!.orderNumber}" (also orders[8])`,
      );
      expectFault((d) => (d.products[3].id = 1), 'products[3].id: duplicate id 1 (also products[0])');
      expectFault((d) => (d.releases[3].id = 1), 'releases[3].id: duplicate id 1 (also releases[0])');
      expectFault((d) => (d.licenseTemplates[3].id = 1), 'licenseTemplates[3].id: duplicate id 1 (also licenseTemplates[0])');
      expectFault(
        (d) => (d.resources[2].name = d.resources[1].name),
        `resources[2].name: duplicate name "${demo.resources![1]!.name}" (also resources[1])`,
      );
      expectFault(
        (d) => d.customerProducts.push({ ...d.customerProducts[0] }),
        `customerProducts[${demo.customerProducts!.length}].productId: duplicate link 1 → ${demo.customerProducts![0]!.productId} (also customerProducts[0])`,
      );
      expectFault((d) => {
        d.apiKeys[0].key = 'api_aaaaaaaaaaaaaaaaaaaaaaaa';
        d.apiKeys[1].key = 'api_aaaaaaaaaaaaaaaaaaaaaaaa';
      }, 'apiKeys[1].key: duplicate key (also apiKeys[0])');
    });
  });
});
