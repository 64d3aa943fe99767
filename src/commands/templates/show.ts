import type { Command } from 'commander';
import { listLicenseTemplates } from '../../client/endpoints/license-templates.js';
import { parseId, outputFormats } from '../../cli/parse.js';
import type { CommandDeps } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { NotFoundError } from '../../cli/errors.js';
import { chosenFields, intKey, normalizeListBody, normalizeRecord } from '../../cli/list/index.js';
import { LICENSE_TEMPLATE_LIST, templateRows, type TemplateScope } from './list.js';

interface TemplatesShowOptions extends TemplateScope {
  /** license template id */
  id: number;
}

/**
 * `lic templates show ID --product P --release R`: finds the template with
 * `filter=Id = ID` (the API has no GET by id) and prints its body exactly as stored, with
 * nothing added, so `> license.xml` gives the template byte for byte; `-o json` prints the
 * service's reply unchanged, as every command does (the record is `.licenseTemplates[0]`). No such template in that release → NotFoundError (exit 4).
 */
async function runTemplatesShow(opts: TemplatesShowOptions, rt: Runtime): Promise<void> {
  const client = await rt.client();
  const body = await listLicenseTemplates(client, opts.product, opts.release, { filter: `Id = ${opts.id}`, take: 1 });
  // a service may send the id as a string (int64 in protobuf JSON): compare it as an integer
  const t = templateRows(body).find((x) => intKey(x.id) === opts.id);
  if (!t) {
    throw new NotFoundError(`no license template with id ${opts.id} in release ${opts.release} of product ${opts.product}`);
  }
  if (rt.out.opts.format === 'json') {
    const fields = chosenFields(rt, LICENSE_TEMPLATE_LIST, {});
    const rec = normalizeRecord(t as unknown as Record<string, unknown>, LICENSE_TEMPLATE_LIST.types, fields);
    rt.out.json(
      rt.out.opts.raw
        ? body
        : normalizeListBody(body as unknown as Record<string, unknown>, [rec], { ...LICENSE_TEMPLATE_LIST, types: undefined }),
    );
    return;
  }
  if (typeof t.template !== 'string' || t.template === '') {
    rt.out.warn(`license template ${opts.id} has an empty template body`);
    return;
  }
  rt.out.raw(t.template);
}

/** Declares `templates show ID --product P --release R`. */
export function registerTemplatesShow(parent: Command, deps: CommandDeps, run = runTemplatesShow): void {
  // the body as stored, or the json reply: no rows to put in ndjson/csv/tsv
  outputFormats(parent.command('show'), ['table', 'json'], { fields: true })
    .description('Print the body of a license template exactly as stored (e.g. XML); -o json for the whole record')
    .argument('<id>', 'license template id', parseId)
    .requiredOption('--product <id>', 'product id (1..2147483647)', parseId)
    .requiredOption('--release <id>', 'release id, a release of that product (1..2147483647)', parseId)
    .addHelpText(
      'after',
      '\nExamples:\n  lic templates show 12 --product 1 --release 4 > license-template.xml\n  lic templates show 12 --product 1 --release 4 -o json | jq .licenseTemplates[0].features',
    )
    .action(async (id: number, o: TemplateScope, cmd: Command) => run({ ...o, id }, deps.runtimeOf(cmd)));
}
