import type { Command } from 'commander';
import { createAssembly } from '../../client/endpoints/assemblies.js';
import { ApiError } from '../../client/errors.js';
import type { ApiClient } from '../../client/request.js';
import { InterruptedError, messageFor, UsageError } from '../../cli/errors.js';
import type { CommandDeps } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { addAssemblyFieldOptions, assemblyInputFrom, type AssemblyFieldOptions } from './input.js';
import { addDryRunOption } from '../../cli/dry-run-option.js';
import { serviceSigningKeys, type ServiceSigningKey } from '../resources/signing-key.js';
import { outputFormats } from '../../cli/parse.js';

type AssembliesCreateOptions = AssemblyFieldOptions;

/**
 * `lic assemblies create --from-dll PATH | --name N ...`: POST /v1/assemblies; prints the
 * id and the identity sent. With `--from-dll` and a strong-named assembly, first checks
 * the public key token sent against the service's signing keys (checkSigningKey): a
 * warning on stderr when none matches or the check cannot be made, never a failure.
 */
async function runAssembliesCreate(opts: AssembliesCreateOptions, rt: Runtime): Promise<void> {
  const input = await assemblyInputFrom(opts);
  if (!input.name) throw new UsageError('--name is required (or --from-dll PATH to read it from the assembly)');
  const client = await rt.client();
  if (opts.fromDll !== undefined && input.publicKeyToken) {
    const warning = await checkSigningKey(client, input.publicKeyToken, opts.fromDll);
    if (warning) rt.out.warn(warning);
  }
  const body = await createAssembly(client, input);
  await rt.out.record(body, [
    ['id', body.assemblyId],
    ['name', input.name],
    ['version', input.version ?? ''],
    ['culture', input.culture || 'neutral'],
    ['publicKeyToken', input.publicKeyToken ?? ''],
    ['mappingFileId', input.mappingFileId ?? 0],
  ]);
}

/**
 * The warning for an assembly of public key token `token` read from `dll`: undefined when
 * one of the service's signing keys (RSA resources in SNK format, read with their data:
 * serviceSigningKeys) has that token; else what was checked, or why the check was
 * skipped (a key that may not read resources: 401/403; any other failure of the lookup).
 * Only Ctrl-C (InterruptedError) escapes.
 */
async function checkSigningKey(client: ApiClient, token: string, dll: string): Promise<string | undefined> {
  let keys: ServiceSigningKey[];
  try {
    keys = await serviceSigningKeys(client);
  } catch (e) {
    if (e instanceof InterruptedError) throw e;
    const why =
      e instanceof ApiError && (e.status === 401 || e.status === 403)
        ? `this API key may not read resources (HTTP ${e.status})`
        : `the resources could not be read: ${messageFor(e)}`;
    return `lic: warning: --from-dll ${dll}: the check of public key token ${token} against the service's signing keys was skipped: ${why}`;
  }
  if (keys.some((k) => k.key.publicKeyToken === token)) return undefined;
  const checked = keys.length
    ? `the service's signing keys are resource${keys.length > 1 ? 's' : ''} ${keys.map((k) => k.id).join(', ')} (token${keys.length > 1 ? 's' : ''} ${keys.map((k) => k.key.publicKeyToken).join(', ')})`
    : 'the service has no signing key (no resource of type RSA, format SNK)';
  return `lic: warning: --from-dll ${dll}: its public key token ${token} matches no signing key on the service; ${checked}. This does not stop the create`;
}

/** Declares `assemblies create` and its flags (parse only; the work is runAssembliesCreate). */
export function registerAssembliesCreate(parent: Command, deps: CommandDeps, run = runAssembliesCreate): void {
  const cmd = outputFormats(parent.command('create')).description('Register a .NET assembly, from its DLL (--from-dll) or from flags');
  addDryRunOption(addAssemblyFieldOptions(cmd))
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  lic assemblies create --from-dll bin/Release/MyLib.dll\n' +
        '  lic assemblies create --from-dll MyLib.dll --mapping-file-id 4\n' +
        '  lic assemblies create --name MyLib --version 1.2.0.0 --culture neutral --public-key-token 0738eb9f132ed756\n' +
        '  lic assemblies create --from-dll MyLib.dll --dry-run',
    )
    .action(async ({ dryRun: _dryRun, ...o }: AssembliesCreateOptions & { dryRun?: boolean }, c: Command) => run(o, deps.runtimeOf(c)));
}
