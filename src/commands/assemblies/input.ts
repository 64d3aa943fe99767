/**
 * What `assemblies create` and `assemblies update` share: the identity flags, their
 * client-side checks, and reading an identity from a DLL with the ECMA-335 reader.
 */
import { stat } from 'node:fs/promises';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { AssemblyInput } from '../../client/endpoints/assemblies.js';
import { UsageError } from '../../cli/errors.js';
import { describeFsError, MiB, readFileBounded } from '../../cli/files.js';
import { parseId } from '../../cli/parse.js';

/**
 * Largest `--from-dll`: 256 MiB. Only the metadata is read, but the PE reader needs the
 * whole file in memory; real assemblies are far smaller (the largest .NET framework
 * assemblies are tens of MiB), and /dev/zero or a FIFO must not fill the memory.
 */
export const MAX_DLL_BYTES = 256 * MiB;

/** The identity flags as parsed: `--version` (or its alias `--assembly-version`). */
export interface AssemblyFieldOptions {
  fromDll?: string;
  name?: string;
  version?: string;
  assemblyVersion?: string;
  culture?: string;
  publicKeyToken?: string;
  mappingFileId?: number;
  debugSymbolsKey?: string;
}

/** `--assembly-version`: `a.b.c.d`, each part 0..65535 (ECMA-335 II.22.2) → canonical form without leading zeros. */
function parseAssemblyVersion(value: string): string {
  const m = /^(\d{1,5})\.(\d{1,5})\.(\d{1,5})\.(\d{1,5})$/.exec(value.trim());
  if (!m || m.slice(1).some((p) => Number(p) > 65535)) {
    throw new InvalidArgumentError('expected a version a.b.c.d with each part 0..65535, e.g. 4.0.0.0.');
  }
  return m.slice(1).map(Number).join('.');
}

/** `--public-key-token`: 16 hex digits → lowercase; `""` or `null` (as .NET writes it) → '' for none (contract §7). */
export function parsePublicKeyToken(value: string): string {
  const v = value.trim();
  if (v === '' || v.toLowerCase() === 'null') return '';
  if (!/^[0-9a-fA-F]{16}$/.test(v)) throw new InvalidArgumentError('expected 16 hex digits (e.g. b77a5c561934e089), or "null" for none.');
  return v.toLowerCase();
}

/** `--culture`: a culture name (`de`, `zh-Hans`); `neutral` or `""` → '' (ECMA-335 II.22.2: empty Culture column). */
function parseCulture(value: string): string {
  const v = value.trim();
  if (v === '' || v.toLowerCase() === 'neutral') return '';
  if (!/^[A-Za-z0-9]+(-[A-Za-z0-9]+)*$/.test(v))
    throw new InvalidArgumentError('expected a culture name such as de or zh-Hans, or "neutral".');
  return v;
}

/** `--mapping-file-id`: a resource id (parseId), or 0 for none (contract §7). */
function parseMappingFileId(value: string): number {
  if (value.trim() === '0') return 0;
  try {
    return parseId(value);
  } catch {
    throw new InvalidArgumentError('expected a resource id (1..2147483647), or 0 for none.');
  }
}

/** `--name`: 1..256 characters (contract §9). */
function parseAssemblyName(value: string): string {
  if (value.length === 0 || value.length > 256) throw new InvalidArgumentError('expected 1..256 characters.');
  return value;
}

/** Adds the identity flags shared by create and update to `cmd`. */
export function addAssemblyFieldOptions(cmd: Command): Command {
  return cmd
    .option(
      '--from-dll <path>',
      'read name, version, culture and public key token from this .NET assembly, at most 256 MiB (the flags below override)',
    )
    .option('--name <name>', 'simple name, e.g. System.Xml.Linq', parseAssemblyName)
    .option('--version <a.b.c.d>', 'version, each part 0..65535', parseAssemblyVersion)
    .addOption(new Option('--assembly-version <a.b.c.d>', 'same as --version').argParser(parseAssemblyVersion).hideHelp())
    .option('--culture <name>', 'culture name such as de, or neutral', parseCulture)
    .option('--public-key-token <hex>', '16 hex digits, or null when not strong-named', parsePublicKeyToken)
    .option('--mapping-file-id <id>', 'id of the resource holding the obfuscation mapping file, or 0 for none', parseMappingFileId)
    .option('--debug-symbols-key <key>', 'symbol server key of the PDB');
}

/** Reads the identity of the assembly at `path` (at most MAX_DLL_BYTES). UsageError naming `--from-dll` and the file, with the reason, for anything else. */
async function identityFromDll(path: string): Promise<Required<Pick<AssemblyInput, 'name' | 'version' | 'culture' | 'publicKeyToken'>>> {
  let bytes: Buffer;
  try {
    const st = await stat(path);
    if (st.isDirectory()) throw new UsageError(`--from-dll ${path}: is a directory, not a file`);
    if (st.isFile() && st.size > MAX_DLL_BYTES)
      throw new UsageError(`--from-dll ${path}: ${st.size} bytes is more than the limit of ${MAX_DLL_BYTES} bytes (256 MiB)`);
    // devices and FIFOs have no size up front: read one byte past the limit at most
    bytes = await readFileBounded(path, MAX_DLL_BYTES);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`--from-dll ${path}: ${describeFsError(e)}`);
  }
  if (bytes.length > MAX_DLL_BYTES) throw new UsageError(`--from-dll ${path}: more than the limit of ${MAX_DLL_BYTES} bytes (256 MiB)`);
  // the reader (and pe-library, slow to import: bench/startup.md) loads only when a DLL is read
  const { NotAnAssemblyError, readAssemblyIdentity } = await import('../../dotnet/assembly-identity.js');
  try {
    const id = readAssemblyIdentity(bytes);
    return { name: id.name, version: id.version, culture: id.culture === 'neutral' ? '' : id.culture, publicKeyToken: id.publicKeyToken };
  } catch (e) {
    if (e instanceof NotAnAssemblyError) throw new UsageError(`--from-dll ${path}: not a .NET assembly: ${e.message}`);
    throw e;
  }
}

/** Flags (and `--from-dll`) → the fields to send; flags win over what the DLL says. */
export async function assemblyInputFrom(o: AssemblyFieldOptions): Promise<AssemblyInput> {
  const input: AssemblyInput = o.fromDll ? await identityFromDll(o.fromDll) : {};
  if (o.name !== undefined) input.name = o.name;
  const version = o.version ?? o.assemblyVersion;
  if (version !== undefined) input.version = version;
  if (o.culture !== undefined) input.culture = o.culture;
  if (o.publicKeyToken !== undefined) input.publicKeyToken = o.publicKeyToken;
  if (o.mappingFileId !== undefined) input.mappingFileId = o.mappingFileId;
  if (o.debugSymbolsKey !== undefined) input.debugSymbolsKey = o.debugSymbolsKey;
  return input;
}
