import type { Command } from 'commander';
import { listResources } from '../../client/endpoints/resources.js';
import type { CommandDeps } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import type { Resource } from '../../wire.js';
import { intKey, listRecords, normalizeRecord, pages, planList } from '../../cli/list/index.js';
import { BUNDLE_FIELDS, needsPassword, type BundleResource } from './bundle.js';
import { RESOURCE_LIST } from './list.js';
import { outputFormats } from '../../cli/parse.js';

interface ResourcesExportOptions {
  /** Type = this, exactly */
  type?: string;
  /** DataFormat = this, exactly */
  format?: string;
  /** text the name contains (case-sensitive) */
  nameContains?: string;
  /** a filter expression (contract §5), AND-ed with the flags above */
  where?: string;
}

/** Page size of the id pass: records without their data, so a page stays small. */
const ID_PAGE = 200;

/**
 * `lic resources export [filters]`: writes the matching resources to stdout as a bundle
 * (./bundle.ts: NDJSON, one BundleResource per line, ordered by id) for `resources
 * import`. Two passes over the published list endpoint only (contract §5, §10): the ids
 * and codes page by page without `data`, then each resource whole by `Id = N`, so at most
 * one resource's data is in memory. Resources without a code are left out with a note
 * on stderr (the import matches by code); passwords are never exported (contract §7), and
 * PKCS #12 resources are named on stderr as needing theirs set after the import.
 * It declares `-o` table (the default) and ndjson only (outputFormats): the bundle's own format.
 */
async function runResourcesExport(opts: ResourcesExportOptions, rt: Runtime): Promise<void> {
  const client = await rt.client();
  const plan = planList(RESOURCE_LIST, { all: true, where: opts.where, take: ID_PAGE }, RESOURCE_LIST.filters(opts, rt.ctx.now()));
  const fetch = (q: Parameters<typeof listResources>[1]) => listResources(client, { ...q, select: 'id, code, name' });
  const ids: { id: number; code: string; name: string }[] = [];
  for await (const page of pages<Resource>(RESOURCE_LIST, plan, fetch)) {
    for (const r of page.records) {
      const n = normalizeRecord(r as unknown as Record<string, unknown>, RESOURCE_LIST.types, ['id', 'code', 'name']);
      ids.push({ id: n.id as number, code: n.code as string, name: n.name as string });
    }
  }
  let written = 0;
  const noCode: string[] = [];
  const withPassword: string[] = [];
  for (const { id, code, name } of ids) {
    if (code === '') {
      noCode.push(`${id} "${name}"`);
      continue;
    }
    const body = await listResources(client, { filter: `Id = ${id}`, take: 1 });
    const found = listRecords<Resource>(body, 'resources', '/v1/resources')[0];
    // deleted between the two passes: nothing to export
    if (!found || intKey(found.id) !== id) continue;
    const r = normalizeRecord(found as unknown as Record<string, unknown>, RESOURCE_LIST.types, [
      ...BUNDLE_FIELDS,
    ]) as unknown as BundleResource;
    const line: Record<string, string> = {};
    for (const f of BUNDLE_FIELDS) line[f] = r[f];
    // standard padded base64 whatever spelling the service used (contract §2 allows URL-safe, unpadded)
    line.data = Buffer.from(r.data, 'base64').toString('base64');
    if (needsPassword(r)) withPassword.push(code);
    if (rt.ctx.stdout.write(`${JSON.stringify(line)}\n`) === false && rt.ctx.stdout.drain) await rt.ctx.stdout.drain();
    written++;
  }
  if (noCode.length) {
    rt.out.warn(
      `lic: left out ${noCode.length} resource(s) without a code (resources import matches by code): ${noCode.join(', ')}; give each one with \`lic resources update ID --code CODE\``,
    );
  }
  if (withPassword.length) {
    rt.out.warn(
      `lic: passwords are never exported; after the import set the password of ${withPassword.join(', ')} (resources update --password-prompt)`,
    );
  }
  rt.out.note(`Exported ${written} resource(s).`);
}

/** Declares `resources export` with the filter flags of `resources list` and --where. */
export function registerResourcesExport(parent: Command, deps: CommandDeps, run = runResourcesExport): void {
  const cmd = outputFormats(parent.command('export'), ['table', 'ndjson']).description(
    'Write resources (data included, passwords never) to stdout as a bundle, one JSON record per line, for `resources import`',
  );
  RESOURCE_LIST.addFlags(cmd, deps)
    .option(
      '--where <expr>',
      "filter expression in the service's query language, AND-ed with the other filter flags; e.g. 'Code.StartsWith(\"email-\")'",
    )
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  lic resources export > resources.ndjson\n' +
        '  lic resources export --type email --profile staging > emails.ndjson\n' +
        '  lic resources export --profile staging --type email | lic resources import - --profile prod',
    )
    .action(async (o: ResourcesExportOptions, c: Command) => run(o, deps.runtimeOf(c)));
}
