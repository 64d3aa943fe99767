import type { Command } from 'commander';
import { updateAssembly } from '../../client/endpoints/assemblies.js';
import { UsageError } from '../../cli/errors.js';
import { outputFormats, parseId } from '../../cli/parse.js';
import type { CommandDeps } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { addAssemblyFieldOptions, assemblyInputFrom, type AssemblyFieldOptions } from './input.js';
import { addDryRunOption } from '../../cli/dry-run-option.js';

type AssembliesUpdateOptions = AssemblyFieldOptions & { id: number };

const FLAGS = '--from-dll, --name, --version, --culture, --public-key-token, --mapping-file-id, --debug-symbols-key';

/** `lic assemblies update ID`: PUT /v1/assemblies with only the flags given (contract §7). */
async function runAssembliesUpdate(opts: AssembliesUpdateOptions, rt: Runtime): Promise<void> {
  const { id, ...fields } = opts;
  if (Object.values(fields).every((v) => v === undefined)) throw new UsageError(`nothing to change: give at least one of ${FLAGS}`);
  const input = await assemblyInputFrom(fields);
  const client = await rt.client();
  const body = await updateAssembly(client, { id, ...input });
  rt.out.done(body, `Updated assembly ${id}.`);
}

/** Declares `assemblies update ID` with the create flags, all optional. */
export function registerAssembliesUpdate(parent: Command, deps: CommandDeps, run = runAssembliesUpdate): void {
  const cmd = outputFormats(parent.command('update'), ['table', 'json'])
    .description('Change an assembly: only the fields given are sent (--from-dll sends the identity read from the file)')
    .argument('<id>', 'assembly id', parseId);
  addDryRunOption(addAssemblyFieldOptions(cmd))
    .addHelpText(
      'after',
      '\nExamples:\n  lic assemblies update 3 --from-dll bin/Release/MyLib.dll\n  lic assemblies update 3 --mapping-file-id 0\n  lic assemblies update 3 --mapping-file-id 0 --dry-run',
    )
    .action(async (id: number, { dryRun: _dryRun, ...o }: AssemblyFieldOptions & { dryRun?: boolean }, c: Command) =>
      run({ ...o, id }, deps.runtimeOf(c)),
    );
}
