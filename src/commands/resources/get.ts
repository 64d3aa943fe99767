import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { listResources } from '../../client/endpoints/resources.js';
import { NotFoundError, UsageError } from '../../cli/errors.js';
import { describeFsError, writeFileAtomic } from '../../cli/files.js';
import { outputFormats, parseId } from '../../cli/parse.js';
import type { CommandDeps } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import type { Resource } from '../../wire.js';
import { RESOURCE_LIST, resourceSize } from './list.js';
import { chosenFields, defaultDataFields, intKey, listRecords, normalizeListBody, normalizeRecord } from '../../cli/list/index.js';

import { isSnkResource, readKeyData } from './signing-key.js';

interface ResourcesGetOptions {
  id: number;
  /** a path, or `-` for stdout */
  dataOut?: string;
  /** replace an existing `--data-out` file */
  clobber?: boolean;
}

/**
 * Checks before any request that `--data-out PATH` can be written: its directory exists,
 * it is not a directory or a device, and it does not exist yet unless `clobber`.
 */
async function checkDataOut(path: string, clobber: boolean | undefined): Promise<void> {
  try {
    const st = await stat(path);
    if (st.isDirectory()) throw new UsageError(`--data-out ${path}: is a directory; give a file path`);
    // the write renames a temporary file over it: never over a device or FIFO (/dev/null)
    if (!st.isFile()) throw new UsageError(`--data-out ${path}: is not a regular file; use --data-out - and redirect stdout`);
    if (!clobber) throw new UsageError(`--data-out ${path}: the file exists; nothing was written (add --clobber to replace it)`);
    return;
  } catch (e) {
    if (e instanceof UsageError) throw e;
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new UsageError(`--data-out ${path}: ${describeFsError(e)}`);
  }
  try {
    if (!(await stat(dirname(path))).isDirectory()) throw new UsageError(`--data-out ${path}: ${dirname(path)} is not a directory`);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`--data-out ${path}: directory ${dirname(path)}: ${describeFsError(e)}`);
  }
}

/**
 * `lic resources get ID`: the record via GET /v1/resources?filter=Id = ID (the API has no
 * GET by id); ApiError 404 (exit 4) when none matches. Shows the data's size, never the
 * data or the password; `--data-out` writes the decoded bytes as they are (contract §2),
 * to a new file (an existing one only with `--clobber`: UsageError otherwise). An RSA
 * resource in SNK format also shows `keySize` (bits) and `publicKeyToken` (16 hex digits,
 * ECMA-335 II.6.2.1.3) computed from its data (src/dotnet/strong-name.ts), in every format
 * but --raw and --json FIELDS; data that is no strong-name key is a warning on stderr.
 */
async function runResourcesGet(opts: ResourcesGetOptions, rt: Runtime): Promise<void> {
  const toStdout = opts.dataOut === '-';
  if (toStdout && rt.out.opts.format !== 'table') {
    throw new UsageError(`--data-out - and --output ${rt.out.opts.format} would both write to stdout; write the data to a file instead`);
  }
  if (opts.dataOut !== undefined && !toStdout) await checkDataOut(opts.dataOut, opts.clobber);
  const client = await rt.client();
  const fields = chosenFields(rt, RESOURCE_LIST, {});
  const body = await listResources(client, { filter: `Id = ${opts.id}`, take: 1 });
  const found = listRecords<Resource>(body, 'resources', '/v1/resources')[0];
  // a service may send the id as a string (int64 in protobuf JSON): compare it as an integer
  if (!found || intKey(found.id) !== opts.id) {
    throw new NotFoundError(`no resource with id ${opts.id}`);
  }
  const raw = rt.out.opts.raw === true;
  const r = (raw
    ? found
    : normalizeRecord(found as unknown as Record<string, unknown>, RESOURCE_LIST.types, fields)) as unknown as Resource;
  const bytes = opts.dataOut !== undefined ? Buffer.from(r.data ?? '', 'base64') : undefined;
  if (toStdout) {
    rt.out.raw(bytes!);
    return;
  }
  if (opts.dataOut !== undefined) {
    // whole or not at all: a temporary file beside it, then a rename
    await writeFileAtomic(opts.dataOut, bytes!).catch((e: unknown) => {
      throw new Error(`cannot write --data-out ${opts.dataOut}: ${describeFsError(e)}`);
    });
    rt.out.note(`Wrote ${bytes!.length} bytes of resource ${r.id} to ${opts.dataOut}.`);
  }
  const machine = normalizeRecord(
    found as unknown as Record<string, unknown>,
    RESOURCE_LIST.types,
    fields ?? defaultDataFields(RESOURCE_LIST),
  );
  // a signing key: its size and token, computed here from the data (contract §7 RSA/SNK)
  let keyFields: [string, unknown][] = [];
  if (isSnkResource(found)) {
    const key = await readKeyData(found.data);
    if ('problem' in key)
      rt.out.warn(`lic: warning: resource ${r.id} is of type RSA, format SNK, but its data is not a strong-name key: ${key.problem}`);
    else
      keyFields = [
        ['keySize', key.keySize ?? null],
        ['publicKeyToken', key.publicKeyToken],
      ];
  }
  // added to the machine formats only where the record is whole: not --raw, not --json FIELDS
  const addKey = !raw && fields === undefined && keyFields.length > 0;
  const record = addKey ? { ...r, ...Object.fromEntries(keyFields) } : r;
  const shown = raw
    ? body
    : normalizeListBody(body as unknown as Record<string, unknown>, [record], { ...RESOURCE_LIST, types: undefined });
  await rt.out.record(
    shown,
    [
      ['id', r.id],
      ['name', r.name],
      ['type', r.type],
      ['format', r.dataFormat],
      ['code', r.code],
      ['size', resourceSize(r)],
      ...keyFields,
      ['description', r.description],
      ['source', r.source],
      ['created', r.createdAt],
      ['updated', r.updatedAt],
    ],
    { record: raw ? found : record, fields: [...Object.entries(machine), ...(addKey ? keyFields : [])] },
  );
}

/** Declares `resources get ID [--data-out PATH|-]`. */
export function registerResourcesGet(parent: Command, deps: CommandDeps, run = runResourcesGet): void {
  // one record: fields, json, ndjson (the record on one line), or a csv/tsv header and row
  outputFormats(parent.command('get'), undefined, { fields: true })
    .description(
      'Show one resource (the size of its data; for an RSA/SNK signing key its key size and public key token; -o json carries the data as base64; never the password); --data-out writes the bytes',
    )
    .argument('<id>', 'resource id', parseId)
    .option('--data-out <path>', 'write the data bytes to this new file, or - for stdout (then nothing else goes to stdout)')
    .option('--clobber', 'let --data-out replace an existing file')
    .addHelpText(
      'after',
      "\nExamples:\n  lic resources get 1\n  lic resources get 1 -o json | jq -r '.resources[0].publicKeyToken'\n  lic resources get 1 --data-out Keys.snk --clobber\n  lic resources get 2 --data-out - > new-license-email.html",
    )
    .action(async (id: number, o: { dataOut?: string; clobber?: boolean }, cmd: Command) =>
      run({ id, dataOut: o.dataOut, clobber: o.clobber }, deps.runtimeOf(cmd)),
    );
}
