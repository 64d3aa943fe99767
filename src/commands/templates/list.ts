import type { Command } from 'commander';
import { listLicenseTemplates } from '../../client/endpoints/license-templates.js';
import { ProtocolError } from '../../client/errors.js';
import type { ApiClient } from '../../client/request.js';
import type { LicenseTemplate, LicenseTemplateList, ListQuery } from '../../wire.js';
import { parseCount, parseId, parseTake } from '../../cli/parse.js';
import type { Cli } from '../../cli/program.js';
import type { Runtime } from '../../cli/runtime.js';
import { LICENSE_TEMPLATE_COLUMNS } from './columns.js';

/** Which release's templates: the path part of the list, apart from the rule-3 query. */
export interface TemplateScope {
  product: number;
  release: number;
}

export interface TemplatesListOptions extends TemplateScope {
  take?: number;
  skip?: number;
}

/**
 * The list verb's parts, apart from its flags, so shared list flags (--where, --sort,
 * --all) can drive them: `fetch` gets one page (GET /v1/products/{p}/releases/{r}/
 * license-templates, rule-3 query), `rows`/`total` read the reply, `columns` render it.
 */
export const LICENSE_TEMPLATE_LIST = {
  fetch: (client: ApiClient, query: ListQuery | undefined, scope: TemplateScope) =>
    listLicenseTemplates(client, scope.product, scope.release, query),
  /** The templates of a reply; absent = none (the original omits empty lists); anything but an array is a ProtocolError. */
  rows: (body: LicenseTemplateList): LicenseTemplate[] => {
    const v: unknown = body.licenseTemplates;
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) {
      throw new ProtocolError('the service replied with "licenseTemplates" that is not a list', 'GET', '/v1/products/{productId}/releases/{releaseId}/license-templates');
    }
    return v as LicenseTemplate[];
  },
  total: (body: LicenseTemplateList): number | undefined => body.totalLicenseTemplatesCount,
  columns: LICENSE_TEMPLATE_COLUMNS,
} as const;

/** `lic templates list --product P --release R`: one page of the release's license templates. */
export async function runTemplatesList(opts: TemplatesListOptions, rt: Runtime): Promise<void> {
  const client = await rt.client();
  const body = await LICENSE_TEMPLATE_LIST.fetch(client, { take: opts.take, skip: opts.skip }, { product: opts.product, release: opts.release });
  await rt.out.list(body, LICENSE_TEMPLATE_LIST.rows(body), LICENSE_TEMPLATE_LIST.columns);
}

export function registerTemplatesList(parent: Command, cli: Cli): void {
  parent
    .command('list')
    .alias('ls')
    .description('List the license templates of a product release (Administrator, LicenseManager)')
    .requiredOption('--product <id>', 'product id (1..2147483647)', parseId)
    .requiredOption('--release <id>', 'release id, a release of that product (1..2147483647)', parseId)
    .option('--take <n>', 'page size, 0..1000 (default 100)', parseTake)
    .option('--skip <n>', 'records to skip', parseCount)
    .addHelpText('after', '\nExamples:\n  lic templates list --product 1 --release 4\n  lic templates list --product 1 --release 4 -o json | jq \'.licenseTemplates[].features\'')
    .action(async (o: TemplatesListOptions, cmd: Command) => runTemplatesList(o, cli.runtimeOf(cmd)));
}
