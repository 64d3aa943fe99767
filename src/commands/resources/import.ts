import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Command } from 'commander';
import { createResource, listResources, updateResource, type ResourceInput } from '../../client/endpoints/resources.js';
import { ApiError, ProtocolError } from '../../client/errors.js';
import { messageFor, UsageError } from '../../cli/errors.js';
import { describeFsError } from '../../cli/files.js';
import { collectAfterRecordData } from '../../cli/memory.js';
import type { ApiClient } from '../../client/request.js';
import type { CommandDeps } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { equalsClause, listRecords, normalizeRecord } from '../../cli/list/index.js';
import { printSyncReport, syncReport, type SyncItem } from '../../cli/sync-summary.js';
import type { Resource } from '../../wire.js';
import { BUNDLE_FIELDS, bundleLines, checkBundle, lineText, needsPassword, type BundleLine, type BundleResource } from './bundle.js';
import { RESOURCE_LIST } from './list.js';
import { outputFormats } from '../../cli/parse.js';
import { isOnePass, openOnePass, openSpool, stdinInput } from '../../cli/spool.js';

interface ResourcesImportOptions {
  /** the bundle: a path, or `-` for stdin */
  file: string;
  /** one row per resource in the table, not only the counts */
  details?: boolean;
}

/** The fields compared and sent besides `code` (the key), as the bundle names them. */
const COMPARED = BUNDLE_FIELDS.filter((f) => f !== 'code');

/** A bundle that can be read twice, a line at a time: once to check it, once to import it. */
interface Bundle {
  source: string;
  lines(): AsyncGenerator<BundleLine>;
  /** removes what reading stdin left behind (its spool file) */
  close(): Promise<void>;
  /** throws InterruptedError once Ctrl-C (SIGINT/SIGTERM) came */
  checkInterrupted(): void;
}

/**
 * Opens the bundle (`-` = stdin) for reading a line at a time (bundleLines): a file is
 * read from disk on each pass; input that can be read once — stdin, or a path that is a pipe
 * or a device (`<(…)`, a FIFO: isOnePass) — is copied to a temporary file (openSpool:
 * `lic-bundle-*`, 0600, gone on close() and at once on SIGINT/SIGTERM) while it is checked,
 * and the import reads that copy; after a signal, reading the input and the import stop with
 * InterruptedError (exit 130). UsageError naming the file for a missing or unreadable one or
 * a directory.
 */
async function openBundle(file: string, rt: Runtime): Promise<Bundle> {
  const fsError = (e: unknown) => (e instanceof UsageError ? e : new UsageError(`${file}: ${describeFsError(e)}`));
  const fromFile = (path: string, source: string) =>
    async function* () {
      try {
        yield* bundleLines(createReadStream(path, { highWaterMark: 1024 * 1024 }), source);
      } catch (e) {
        throw fsError(e);
      }
    };
  if (file !== '-' && !(await isOnePass(file))) {
    try {
      if ((await stat(file)).isDirectory())
        throw new UsageError(`${file}: is a directory; give the bundle file that resources export wrote`);
    } catch (e) {
      throw fsError(e);
    }
    return { source: file, lines: fromFile(file, file), close: async () => {}, checkInterrupted: () => {} };
  }
  // copied while checkBundle reads it; the import reads the copy
  const source = file === '-' ? 'stdin' : file;
  const input = file === '-' ? stdinInput(rt.ctx, 'the bundle') : await openOnePass(file, fsError);
  const spool = await openSpool(rt.ctx, 'lic-bundle-', 'bundle.ndjson', source, input);
  let copied = false;
  return {
    source,
    lines: async function* () {
      if (copied) return yield* fromFile(spool.path, source)();
      copied = true;
      yield* bundleLines(spool.copy(), source);
    },
    close: spool.close,
    checkInterrupted: spool.checkInterrupted,
  };
}

/** The resource on a line checkBundle proved, or undefined for a blank line; the line's bytes are let go (`read.bytes` emptied), so only the record stays in memory while it is sent. */
function resourceOf(read: BundleLine): BundleResource | undefined {
  const text = lineText(read.bytes)!;
  read.bytes = Buffer.alloc(0);
  return text.trim() === '' ? undefined : (JSON.parse(text) as BundleResource);
}

/** The fields of `want` that differ from the service's record `have` (data compared as bytes, whatever its base64 spelling). */
function differences(want: BundleResource, have: BundleResource): (typeof COMPARED)[number][] {
  return COMPARED.filter((f) =>
    f === 'data'
      ? want.data !== have.data && !Buffer.from(want.data, 'base64').equals(Buffer.from(have.data, 'base64'))
      : want[f] !== have[f],
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
  const bundle = await openBundle(opts.file, rt);
  const source = bundle.source;
  const items: SyncItem[] = [];
  const dryRun = rt.globals.dryRun === true;
  try {
    await checkBundle(bundle.lines(), source);
    bundle.checkInterrupted();
    const client = await rt.client();
    // the second pass: one line in memory at a time, parsed again (checkBundle proved each one)
    for await (const read of bundle.lines()) {
      bundle.checkInterrupted();
      const size = read.bytes.length;
      const want = resourceOf(read);
      if (!want) continue;
      // the line's bytes and text are garbage now, the record's request not yet made: collect
      // both before the request's body is built, and that body once it is sent
      collectAfterRecordData(size);
      items.push(await importOne(client, want, read.line));
      collectAfterRecordData(size);
    }
  } finally {
    await bundle.close();
  }
  await printSyncReport(rt, syncReport(items, dryRun), 'resources', opts.details);

  async function importOne(client: ApiClient, want: BundleResource, line: number): Promise<SyncItem> {
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
  const cmd = outputFormats(parent.command('import'))
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
