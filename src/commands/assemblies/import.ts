import { readdir, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { Command } from 'commander';
import { createAssembly, listAssemblies, type AssemblyInput } from '../../client/endpoints/assemblies.js';
import { ApiError, ProtocolError } from '../../client/errors.js';
import { messageFor, UsageError } from '../../cli/errors.js';
import { describeFsError, readFileBounded } from '../../cli/files.js';
import type { CommandDeps } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { allOf, equalsClause, listRecords, normalizeRecord } from '../../cli/list/index.js';
import { printSyncReport, syncReport, type SyncItem } from '../../cli/sync-summary.js';
import type { Assembly } from '../../wire.js';
import { MAX_DLL_BYTES } from './input.js';
import { ASSEMBLY_LIST } from './list.js';
import { outputFormats } from '../../cli/parse.js';

interface AssembliesImportOptions {
  /** files and folders */
  paths: string[];
  /** descend into the folders' subfolders */
  recursive?: boolean;
  /** one row per assembly in the table, not only the counts */
  details?: boolean;
}

/** File name endings taken from a folder: .NET assemblies are DLLs and EXEs (ECMA-335 II.25: PE files). Named files are read whatever their name. */
const ASSEMBLY_EXTENSIONS = ['.dll', '.exe'];

/** An assembly's identity as registered: culture '' for neutral, token '' when not strong-named (contract §7). */
type Identity = Required<Pick<AssemblyInput, 'name' | 'version' | 'culture' | 'publicKeyToken'>>;

/** The identity as .NET displays it: `Name, Version=1.0.0.0, Culture=neutral, PublicKeyToken=null`. */
const displayName = (i: Identity): string =>
  `${i.name}, Version=${i.version}, Culture=${i.culture || 'neutral'}, PublicKeyToken=${i.publicKeyToken || 'null'}`;

/**
 * The files to read, in argument order, each folder's files sorted by name: a named file
 * as it is; from a folder its .dll/.exe files, and with `recursive` those of its
 * subfolders (symbolic links to folders are not followed, so a loop can't run away).
 * UsageError (exit 2, before anything is read or sent) for a path that does not exist or
 * can't be read, naming it.
 */
async function assemblyFiles(paths: string[], recursive: boolean): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (recursive) await walk(p);
      } else if ((e.isFile() || e.isSymbolicLink()) && ASSEMBLY_EXTENSIONS.includes(extname(e.name).toLowerCase())) out.push(p);
    }
  };
  for (const p of paths) {
    try {
      if ((await stat(p)).isDirectory()) await walk(p);
      else out.push(p);
    } catch (e) {
      throw new UsageError(`${p}: ${describeFsError(e)}; nothing was sent`);
    }
  }
  return out;
}

/** Why a file was not read as an assembly: a note (not an assembly: skipped) or an error (unreadable: failed). */
type ReadResult = { identity: Identity } | { skip: string } | { error: string };

/** Reads the identity of the assembly at `path` with the ECMA-335 reader (at most MAX_DLL_BYTES, as `--from-dll`). */
async function readIdentity(path: string): Promise<ReadResult> {
  let bytes: Buffer;
  try {
    const st = await stat(path);
    if (st.isFile() && st.size > MAX_DLL_BYTES)
      return { error: `${st.size} bytes is more than the limit of ${MAX_DLL_BYTES} bytes (256 MiB)` };
    bytes = await readFileBounded(path, MAX_DLL_BYTES);
  } catch (e) {
    return { error: describeFsError(e) };
  }
  if (bytes.length > MAX_DLL_BYTES) return { error: `more than the limit of ${MAX_DLL_BYTES} bytes (256 MiB)` };
  // the reader (and pe-library) loads only when a DLL is read
  const { NotAnAssemblyError, readAssemblyIdentity } = await import('../../dotnet/assembly-identity.js');
  try {
    const id = readAssemblyIdentity(bytes);
    return {
      identity: {
        name: id.name,
        version: id.version,
        culture: id.culture === 'neutral' ? '' : id.culture,
        publicKeyToken: id.publicKeyToken,
      },
    };
  } catch (e) {
    if (e instanceof NotAnAssemblyError) return { skip: e.message };
    throw e;
  }
}

/** Identities compared as the service stores them: culture '' = neutral, any case; token lowercase (contract §7). */
const sameIdentity = (a: Identity, b: Identity): boolean =>
  a.name === b.name &&
  a.version === b.version &&
  (a.culture || 'neutral').toLowerCase() === (b.culture || 'neutral').toLowerCase() &&
  (a.publicKeyToken || '').toLowerCase() === (b.publicKeyToken || '').toLowerCase();

/** An error that ends the whole import (no key, no permission, no network) rather than failing one assembly. */
const fatal = (e: unknown) =>
  !(e instanceof ApiError || e instanceof ProtocolError) || (e instanceof ApiError && (e.status === 401 || e.status === 403));

/**
 * `lic assemblies import PATH… [--recursive]`: registers every .NET assembly among the
 * files and folders (assemblyFiles) that the service does not have yet (POST
 * /v1/assemblies); one whose identity (name, version, culture, public key token) is
 * already registered is unchanged. Published endpoints only: the lookup is GET
 * /v1/assemblies with `Name = … and Version = …` (contract §5, §7). A file that is not
 * a .NET assembly is skipped with a note on stderr; an unreadable one, or one the
 * service refuses, fails alone; an auth or network error ends the import. A dry run
 * sends only the lookups. Prints the summary (printSyncReport; exit 1 when any failed).
 */
async function runAssembliesImport(opts: AssembliesImportOptions, rt: Runtime): Promise<void> {
  const files = await assemblyFiles(opts.paths, opts.recursive === true);
  if (files.length === 0) {
    throw new UsageError(
      `no .dll or .exe file in ${opts.paths.join(', ')}${opts.recursive ? '' : ' (add --recursive for subfolders)'}; nothing was sent`,
    );
  }
  const client = await rt.client();
  const dryRun = rt.globals.dryRun === true;
  const items: SyncItem[] = [];
  // identities a dry run would have created, so a second copy of the same DLL reads as unchanged
  const planned: Identity[] = [];
  let skipped = 0;
  for (const path of files) {
    const read = await readIdentity(path);
    if ('skip' in read) {
      skipped++;
      rt.out.info(`lic: skipped ${path}: not a .NET assembly: ${read.skip}`);
      continue;
    }
    if ('error' in read) {
      rt.out.warn(`lic: ${path} failed: ${read.error}`);
      items.push({ item: path, source: path, outcome: 'failed', detail: read.error });
      continue;
    }
    const want = read.identity;
    const base = { item: displayName(want), source: path };
    try {
      const body = await listAssemblies(client, {
        filter: allOf([equalsClause('Name', want.name), equalsClause('Version', want.version)]),
        take: 1000,
      });
      const found = listRecords<Assembly>(body, 'assemblies', '/v1/assemblies')
        .map((a) => normalizeRecord(a as unknown as Record<string, unknown>, ASSEMBLY_LIST.types) as unknown as Assembly)
        .find((a) => sameIdentity(a, want));
      if (found) {
        items.push({ ...base, outcome: 'unchanged', id: found.id });
        continue;
      }
      if (dryRun && planned.some((p) => sameIdentity(p, want))) {
        items.push({ ...base, outcome: 'unchanged', detail: 'same identity as a file before it' });
        continue;
      }
      planned.push(want);
      const id = dryRun ? undefined : (await createAssembly(client, want)).assemblyId;
      items.push({ ...base, outcome: 'created', id });
    } catch (e) {
      if (fatal(e)) throw e;
      const why = messageFor(e);
      rt.out.warn(`lic: ${path} (${base.item}) failed: ${why}`);
      items.push({ ...base, outcome: 'failed', detail: why });
    }
  }
  if (skipped > 1) rt.out.info(`lic: skipped ${skipped} files that are not .NET assemblies`);
  await printSyncReport(rt, syncReport(items, dryRun), 'assemblies', opts.details);
}

/** Declares `assemblies import PATH… [--recursive] [--details] [--dry-run]`. */
export function registerAssembliesImport(parent: Command, deps: CommandDeps, run = runAssembliesImport): void {
  outputFormats(parent.command('import'))
    .description(
      'Register every .NET assembly in these files and folders that the service does not have yet (same identity = unchanged; exit 1 when any failed)',
    )
    .argument('<path...>', 'assembly files, or folders whose .dll and .exe files are read')
    .option('-r, --recursive', 'also read the subfolders of folders')
    .option('--details', 'list each assembly with its outcome, not only the counts')
    .option('--dry-run', 'read the assemblies and look each one up, then print what a real run would register; sends no write')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  lic assemblies import bin/Release/net8.0\n' +
        '  lic assemblies import bin/Release --recursive --dry-run --details\n' +
        '  lic assemblies import MyLib.dll MyLib.Extras.dll -o json',
    )
    .action(async (paths: string[], o: { recursive?: boolean; details?: boolean; dryRun?: boolean }, c: Command) =>
      run({ paths, recursive: o.recursive, details: o.details }, deps.runtimeOf(c)),
    );
}
