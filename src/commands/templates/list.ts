import { listLicenseTemplates } from '../../client/endpoints/license-templates.js';
import type { LicenseTemplate, LicenseTemplateList } from '../../wire.js';
import { LicenseTemplateSchema } from '../../schema/license-template.js';
import { containsFlag, defineList, type ListFlags, listRecords } from '../../cli/list/index.js';
import { parseId } from '../../cli/parse.js';
import { UsageError } from '../../cli/errors.js';

/** Which release's templates: the path part of the list, apart from the list query (contract §5). */
export interface TemplateScope {
  product: number;
  release: number;
}

interface TemplatesListOptions extends TemplateScope, ListFlags {
  /** text the name contains (case-sensitive) */
  nameContains?: string;
}

/** Fields that can be selected but neither filtered nor sorted on (contract §5, §8): the product object and the arrays. */
export const LICENSE_TEMPLATE_SELECT_ONLY = ['product', 'components', 'assemblies', 'fields', 'features', 'restrictions'] as const;

/** The templates of a reply (listRecords: absent = none; anything but an array is a ProtocolError); also for `templates show`. */
export const templateRows = (body: LicenseTemplateList): LicenseTemplate[] =>
  listRecords<LicenseTemplate>(body, 'licenseTemplates', '/v1/products/{productId}/releases/{releaseId}/license-templates');

/**
 * `lic templates list --product P --release R`: a release's license templates (contract §5,
 * §8), paged by id; csv and tsv leave out the template body (that is `lic templates show`).
 * Without --product/--release: UsageError saying where the ids come from. The types
 * include the nested records (the product, assemblies, license fields, features, restrictions).
 */
export const LICENSE_TEMPLATE_LIST = defineList<LicenseTemplate, TemplatesListOptions>({
  what: 'license templates',
  arrayField: 'licenseTemplates',
  totalField: 'totalLicenseTemplatesCount',
  blobs: ['template'],
  selectOnly: LICENSE_TEMPLATE_SELECT_ONLY,
  schema: LicenseTemplateSchema,
  check: (o) => {
    const missing = (['product', 'release'] as const).find((k) => o[k] === undefined);
    if (missing) {
      throw new UsageError(
        `required option '--${missing} <id>' not specified: templates list needs a product id and the id of one of its releases (\`lic serve --verbose\` prints the demo's when it starts)`,
      );
    }
  },
  fetch: (client, q, o, signal) => listLicenseTemplates(client, o.product, o.release, q, signal),
  description: 'List the license templates of a product release (Administrator, LicenseManager)',
  columns: [
    { header: 'ID', kind: 'id', get: (t) => t.id },
    { header: 'NAME', kind: 'name', get: (t) => t.name },
    { header: 'CODE', kind: 'code', get: (t) => t.code },
    { header: 'FORMAT', kind: 'label', get: (t) => t.format },
    { header: 'FILE NAME', kind: 'text', get: (t) => t.licenseFileName },
    // the id of the signing-key resource; 0 means none
    { header: 'SIGNING KEY', kind: 'id', get: (t) => (t.signatureKeysId ? t.signatureKeysId : '') },
    { header: 'DESCRIPTION', kind: 'text', get: (t) => t.description },
  ],
  flags: {
    product: { flag: '--product <id>', help: 'product id (1..2147483647); required', parse: parseId },
    release: { flag: '--release <id>', help: 'release id, a release of that product (1..2147483647); required', parse: parseId },
    nameContains: containsFlag('--name-contains <text>', 'Name', 'only templates whose name contains this text (case-sensitive)'),
  },
  help: { sortExample: 'name', whereExample: 'Format = "Xml" and GenerateKeyInfo = true' },
  examples: [
    'lic templates list --product 1 --release 4',
    'lic templates list --product 1 --release 4 --name-contains Trial',
    "lic templates list --product 1 --release 4 -o json | jq '.licenseTemplates[].features'",
  ],
});

export const registerTemplatesList = LICENSE_TEMPLATE_LIST.register;
