import type { Command } from 'commander';
import { createAssembly } from '../../client/endpoints/assemblies.js';
import { UsageError } from '../../cli/errors.js';
import type { Cli } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { addAssemblyFieldOptions, assemblyInputFrom, type AssemblyFieldOptions } from './input.js';
import { addDryRunOption } from '../../cli/dry-run.js';

type AssembliesCreateOptions = AssemblyFieldOptions;

/** `lic assemblies create --from-dll PATH | --name N ...`: POST /v1/assemblies; prints the id and the identity sent. */
async function runAssembliesCreate(opts: AssembliesCreateOptions, rt: Runtime): Promise<void> {
  const input = await assemblyInputFrom(opts);
  if (!input.name) throw new UsageError('--name is required (or --from-dll PATH to read it from the assembly)');
  const client = await rt.client();
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

/** Declares `assemblies create` and its flags (parse only; the work is runAssembliesCreate). */
export function registerAssembliesCreate(parent: Command, cli: Cli, run = runAssembliesCreate): void {
  const cmd = parent.command('create').description('Register a .NET assembly, from its DLL (--from-dll) or from flags');
  addDryRunOption(addAssemblyFieldOptions(cmd))
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  lic assemblies create --from-dll bin/Release/MyLib.dll\n' +
        '  lic assemblies create --from-dll MyLib.dll --mapping-file-id 4\n' +
        '  lic assemblies create --name MyLib --version 1.2.0.0 --culture neutral --public-key-token 0738eb9f132ed756\n' +
        '  lic assemblies create --from-dll MyLib.dll --dry-run',
    )
    .action(async ({ dryRun: _dryRun, ...o }: AssembliesCreateOptions & { dryRun?: boolean }, c: Command) => run(o, cli.runtimeOf(c)));
}
