import type { Command } from 'commander';
import { listLicenseTemplates } from '../../client/endpoints/license-templates.js';
import type { LicenseTemplate, LicenseTemplateList } from '../../wire.js';
import { LicenseTemplateSchema } from '../../schema/license-template.js';
import {
  parseFilterValue,
  addListOptions,
  fieldNames,
  fieldTypesOf,
  containsClause,
  listRecords,
  runList,
  type ListDef,
  type ListFlags,
} from '../../cli/list/index.js';
import { parseId } from '../../cli/parse.js';
import type { Cli } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { UsageError } from '../../cli/errors.js';
import { LICENSE_TEMPLATE_COLUMNS } from './columns.js';

/** Which release's templates: the path part of the list, apart from the list query (contract §5). */
export interface TemplateScope {
  product: number;
  release: number;
}

interface TemplatesListOptions extends TemplateScope, ListFlags {
  /** text the name contains (case-sensitive) */
  nameContains?: string;
}

/**
 * Fields of a license template with their wire types (derived from src/schema/ LicenseTemplateSchema;
 * contract §8): the defaults of what the service leaves out, nested records included
 * (the product, assemblies, license fields, features, restrictions).
 */
export const LICENSE_TEMPLATE_FIELD_TYPES = fieldTypesOf(LicenseTemplateSchema);

/**
 * Fields of a license template in lists, as the service names them (spec
 * LicenseTemplate; contract §5, §8; lic serve's FieldSpecs in
 * src/server/routes/license-templates.ts, checked by a test), for --fields and --sort.
 */
export const LICENSE_TEMPLATE_FIELDS = fieldNames(LICENSE_TEMPLATE_FIELD_TYPES);

/** Fields that can be selected but neither filtered nor sorted on (contract §5, §8): the product object and the arrays. */
export const LICENSE_TEMPLATE_SELECT_ONLY = ['product', 'components', 'assemblies', 'fields', 'features', 'restrictions'] as const;

/** The templates of a reply (listRecords: absent = none; anything but an array is a ProtocolError). */
const templateRows = (body: LicenseTemplateList): LicenseTemplate[] =>
  listRecords<LicenseTemplate>(body, 'licenseTemplates', '/v1/products/{productId}/releases/{releaseId}/license-templates');

/** A release's license templates as a list (contract §5, §8): paged by id; `rows` reads one reply (also for `templates show`). */
export const LICENSE_TEMPLATE_LIST: ListDef<LicenseTemplate> & { rows: (body: LicenseTemplateList) => LicenseTemplate[] } = {
  what: 'license templates',
  arrayField: 'licenseTemplates',
  totalField: 'totalLicenseTemplatesCount',
  columns: LICENSE_TEMPLATE_COLUMNS,
  fields: LICENSE_TEMPLATE_FIELDS,
  types: LICENSE_TEMPLATE_FIELD_TYPES,
  blobs: ['template'],
  selectOnly: LICENSE_TEMPLATE_SELECT_ONLY,
  rows: templateRows,
};

/** The templates' friendly filter flag → filter clause (contract §5): --name-contains (Name.Contains(…), case-sensitive). */
function templateFilters(o: Pick<TemplatesListOptions, 'nameContains'>): (string | undefined)[] {
  return [o.nameContains !== undefined ? containsClause('Name', o.nameContains) : undefined];
}

/**
 * `lic templates list --product P --release R`: the release's license templates through the
 * list machinery. Without --product/--release: UsageError saying where the ids come from.
 */
async function runTemplatesList(opts: TemplatesListOptions, rt: Runtime): Promise<void> {
  const missing = (['product', 'release'] as const).find((k) => opts[k] === undefined);
  if (missing) {
    throw new UsageError(
      `required option '--${missing} <id>' not specified: templates list needs a product id and the id of one of its releases (\`lic serve --verbose\` prints the demo's when it starts)`,
    );
  }
  const client = await rt.client();
  await runList(rt, {
    def: LICENSE_TEMPLATE_LIST,
    flags: opts,
    filters: templateFilters(opts),
    fetch: (q, signal) => listLicenseTemplates(client, opts.product, opts.release, q, signal),
  });
}

/** Declares `templates list --product P --release R` with --name-contains and the shared list flags. */
export function registerTemplatesList(parent: Command, cli: Cli, run = runTemplatesList): void {
  const cmd = parent
    .command('list')
    .alias('ls')
    .description('List the license templates of a product release (Administrator, LicenseManager)')
    .option('--product <id>', 'product id (1..2147483647); required', parseId)
    .option('--release <id>', 'release id, a release of that product (1..2147483647); required', parseId)
    .option('--name-contains <text>', 'only templates whose name contains this text (case-sensitive)', parseFilterValue);
  addListOptions(cmd, LICENSE_TEMPLATE_LIST, { sortExample: 'name', whereExample: 'Format = "Xml" and GenerateKeyInfo = true' })
    .addHelpText(
      'after',
      "\nExamples:\n  lic templates list --product 1 --release 4\n  lic templates list --product 1 --release 4 --name-contains Trial\n  lic templates list --product 1 --release 4 -o json | jq '.licenseTemplates[].features'",
    )
    .action(async (o: TemplatesListOptions, cmd: Command) => run(o, cli.runtimeOf(cmd)));
}
