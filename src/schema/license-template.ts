/** The license template record (contract §8). */
import type { Static } from 'typebox';
import { AssemblySchema } from './assembly.js';
import { nestedTime, record, recordId, recordWithOptional } from './json-schema.js';

const str = { type: 'string' } as const;

/** A license template of a product release; read-only here. */
export const LicenseTemplateSchema = record(
  {
    id: recordId,
    name: str,
    code: str,
    format: { type: 'string', description: 'Xml (the one value the spec shows)' },
    licenseFileName: str,
    generateKeyInfo: { type: 'boolean' },
    description: str,
    template: { type: 'string', description: 'the license template body, e.g. XML' },
    productId: { type: 'integer' },
    signatureKeysId: { type: 'integer', description: 'id of the resource that signs the licenses, 0 for none' },
    releaseId: { type: 'integer' },
    product: {
      ...record({ id: str, name: str, version: str, copyright: str, url: str, description: str }),
      description: 'the product and the release the template belongs to',
    },
    components: { type: 'array', items: str },
    // a copy of an assembly carries the id of the record it describes, or none (contract §8)
    assemblies: {
      type: 'array',
      items: recordWithOptional(
        {
          ...AssemblySchema.properties,
          id: { type: 'integer', minimum: 1, description: 'the assembly record this describes; absent when there is none' },
        },
        ['id'],
      ),
    },
    fields: { type: 'array', items: record({ name: str, value: str }) },
    features: {
      type: 'array',
      items: record({ id: str, name: str, description: str, expireDate: nestedTime, key: str, data: str }),
    },
    restrictions: {
      type: 'array',
      items: record({ id: str, name: str, expireDate: nestedTime, properties: { type: 'object', additionalProperties: str } }),
    },
  },
  'LicenseTemplate',
);
export type LicenseTemplate = Static<typeof LicenseTemplateSchema>;
