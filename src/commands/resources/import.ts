import { stat } from 'node:fs/promises';
import type { Command } from 'commander';
import { createResource, listResources, updateResource, type ResourceInput } from '../../client/endpoints/resources.js';
import { ApiError, ProtocolError } from '../../client/errors.js';
import { messageFor, UsageError } from '../../cli/errors.js';
import { describeFsError, readFileBounded } from '../../cli/files.js';
import type { CommandDeps } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { equalsClause, listRecords, normalizeRecord } from '../../cli/list/index.js';
import { printSyncReport, syncReport, type SyncItem } from '../../cli/sync-summary.js';
import type { Resource } from '../../wire.js';
import { BUNDLE_FIELDS, MAX_BUNDLE_BYTES, needsPassword, parseBundle, type BundleEntry, type BundleResource } from './bundle.js';
import { RESOURCE_LIST } from './list.js';

interface ResourcesImportOptions {
  /** the bundle: a path, or `-` for stdin */
  file: string;
  /** one row per resource in the table, not only the counts */
  details?: boolean;
}

/** The fields compared and sent besides `code` (the key), as the bundle names them. */
const COMPARED = BUNDLE_FIELDS.filter((f) => f !== 'code');

/**
 * Reads the bundle's bytes (`-` = stdin), at most MAX_BUNDLE_BYTES. UsageError naming
 * the file for a missing, unreadable or too large one.
 */
async function readBundle(file: string, rt: Runtime): Promise<Buffer> {
  let bytes: Buffer;
  if (file === '-') bytes = await rt.ctx.stdin.readAll(MAX_BUNDLE_BYTES);
  else {
    try {
      if ((await stat(file)).isDirectory())
        throw new UsageError(`${file}: is a directory; give the bundle file that resources export wrote`);
      bytes = await readFileBounded(file, MAX_BUNDLE_BYTES);
    } catch (e) {
      if (e instanceof UsageError) throw e;
      throw new UsageError(`${file}: ${describeFsError(e)}`);
    }
  }
  if (bytes.length > MAX_BUNDLE_BYTES)
    throw new UsageError(`${file === '-' ? 'stdin' : file}: more than the limit of ${MAX_BUNDLE_BYTES} bytes (256 MiB) for a bundle`);
  return bytes;
}

/** The fields of `want` that differ from the service's record `have` (data compared as bytes, whatever its base64 spelling). */
function differences(want: BundleResource, have: BundleResource): (typeof COMPARED)[number][] {
  return COMPARED.filter((f) =>
    f === 'data' ? !Buffer.from(want.data, 'base64').equals(Buffer.from(have.data, 'base64')) : want[f] !== have[f],
  );
}

/** An error that ends the whole import (no key, no permission, no network) rather than failing one resource. */
const fatal = (e: unknown) =>
  !(e instanceof ApiError || e instanceof ProtocolError) || (e instanceof ApiError && (e.status === 401 || e.status === 403));

/**
 * `lic resources import FILE|-`: brings the bundle's resources onto the service, matched
 * by `code` (contract §7; published endpoints only): a code the service lacks is created
 * (POST), one whose other fields or bytes differ is updated with just those fields
 * (PUT), one that matches is left unchanged. The whole bundle is checked first
 * (parseBundle: UsageError naming the line, nothing sent). A resource the service
 * refuses (409 name taken, 400, …) fails alone and the import goes on; an auth or network
 * error ends it. In a dry run only the lookups (GET) are sent. Prints the summary
 * (printSyncReport; exit 1 when any failed); names on stderr each PKCS #12 resource
 * created or changed without its password, with the command that sets it.
 */
async function runResourcesImport(opts: ResourcesImportOptions, rt: Runtime): Promise<void> {
  const source = opts.file === '-' ? 'stdin' : opts.file;
  const entries = await parseBundle(await readBundle(opts.file, rt), source);
  const client = await rt.client();
  const dryRun = rt.globals.dryRun === true;
  const items: SyncItem[] = [];
  for (const e of entries) items.push(await importOne(e));
  await printSyncReport(rt, syncReport(items, dryRun), 'resources', opts.details);

  async function importOne(entry: BundleEntry): Promise<SyncItem> {
    const want = entry.read();
    const line = entry.line;
    const base = { item: want.code, source: `${source}:${line}` };
    try {
      const body = await listResources(client, { filter: equalsClause('Code', want.code), take: 2 });
      const found = listRecords<Resource>(body, 'resources', '/v1/resources')
        .map((r) => normalizeRecord(r as unknown as Record<string, unknown>, RESOURCE_LIST.types, ['id', ...BUNDLE_FIELDS]))
        .find((r) => r.code === want.code);
      if (!found) {
        const id = dryRun ? undefined : (await createResource(client, want)).resourceId;
        passwordNote(want, id, 'created');
        return { ...base, outcome: 'created', id };
      }
      const id = found.id as number;
      const changed = differences(want, found as unknown as BundleResource);
      if (changed.length === 0) return { ...base, outcome: 'unchanged', id };
      if (!dryRun) {
        const input: ResourceInput & { id: number } = { id };
        for (const f of changed) input[f] = want[f];
        await updateResource(client, input);
      }
      if (changed.includes('data')) passwordNote(want, id, 'updated');
      return { ...base, outcome: 'updated', id, detail: changed.join(', ') };
    } catch (err) {
      if (fatal(err)) throw err;
      const why = messageFor(err);
      rt.out.warn(`lic: ${want.code} (${base.source}) failed: ${why}`);
      return { ...base, outcome: 'failed', detail: why };
    }
  }

  /** Tells on stderr how to set the password of a PKCS #12 resource that now has none, or an old one (contract §7: write-only). */
  function passwordNote(r: BundleResource, id: number | undefined, how: 'created' | 'updated'): void {
    if (!needsPassword(r)) return;
    const target = id === undefined ? 'ID' : String(id);
    const what =
      how === 'created'
        ? `${dryRun ? 'would be created' : 'was created'} without a password (bundles carry none)`
        : `${dryRun ? 'would get' : 'got'} new data; the password kept on the service may not fit it`;
    rt.out.warn(`lic: resource ${r.code} (${r.dataFormat}) ${what}: set it with \`lic resources update ${target} --password-prompt\``);
  }
}

/** Declares `resources import FILE|-`. */
export function registerResourcesImport(parent: Command, deps: CommandDeps, run = runResourcesImport): void {
  const cmd = parent
    .command('import')
    .description(
      'Create or update resources from a bundle written by `resources export`, matched by code; unchanged ones are left alone (exit 1 when any failed)',
    )
    .argument('<file>', 'the bundle (one JSON resource per line), or - for stdin')
    .option('--details', 'list each resource with its outcome, not only the counts');
  cmd
    .option(
      '--dry-run',
      'check the bundle and look each resource up, then print what a real run would create, update or leave; sends no write',
    )
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  lic resources import resources.ndjson\n' +
        '  lic resources import resources.ndjson --dry-run --details\n' +
        '  lic resources export --profile staging --type email | lic resources import - --profile prod -o json',
    )
    .action(async (file: string, o: { details?: boolean; dryRun?: boolean }, c: Command) =>
      run({ file, details: o.details }, deps.runtimeOf(c)),
    );
}
