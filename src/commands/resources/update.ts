import type { Command } from 'commander';
import { updateResource, type ResourceInput } from '../../client/endpoints/resources.js';
import { UsageError } from '../../cli/errors.js';
import { outputFormats, parseId } from '../../cli/parse.js';
import type { CommandDeps } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { addResourceFieldOptions, resourceInputFrom, type ResourceFieldOptions } from './input.js';
import { addDryRunOption } from '../../cli/dry-run-option.js';
import type { ApiClient } from '../../client/request.js';
import { findResource, snkDataWarning } from './signing-key.js';

type ResourcesUpdateOptions = ResourceFieldOptions & { id: number };

const FLAGS = '--name, --type, --code, --format, --description, --source, --data-file, --password-stdin, --password-prompt';

/**
 * `lic resources update ID`: PUT /v1/resources with only the flags given (contract §7).
 * New data for an RSA/SNK resource (by the flags, else as stored) that is not a
 * strong-name key is a warning on stderr, not an error.
 */
async function runResourcesUpdate(opts: ResourcesUpdateOptions, rt: Runtime): Promise<void> {
  const { id, ...fields } = opts;
  if (Object.values(fields).every((v) => v === undefined || v === false)) {
    throw new UsageError(`nothing to change: give at least one of ${FLAGS}`);
  }
  const input = await resourceInputFrom(fields, rt, `resource ${id}`);
  const client = await rt.client();
  if (input.data !== undefined && opts.dataFile !== undefined) {
    const warning = await snkDataWarning(await kindAfterUpdate(client, id, input), input.data, opts.dataFile);
    if (warning) rt.out.warn(warning);
  }
  const body = await updateResource(client, { id, ...input });
  rt.out.done(body, `Updated resource ${id}.`);
}

/**
 * The type and data format resource `id` will have after the update: the flags', else
 * the stored ones (one GET, only when a flag is missing). A failed lookup leaves them
 * unknown (no check): the PUT reports a missing resource or a refused key itself.
 */
async function kindAfterUpdate(client: ApiClient, id: number, input: ResourceInput): Promise<{ type?: string; dataFormat?: string }> {
  if (input.type !== undefined && input.dataFormat !== undefined) return input;
  const stored = await findResource(client, id).catch(() => undefined);
  return { type: input.type ?? stored?.type, dataFormat: input.dataFormat ?? stored?.dataFormat };
}

/** Declares `resources update ID` with the create flags, all optional. */
export function registerResourcesUpdate(parent: Command, deps: CommandDeps, run = runResourcesUpdate): void {
  const cmd = outputFormats(parent.command('update'), ['table', 'json'])
    .description('Change a resource: only the fields given are sent')
    .argument('<id>', 'resource id', parseId);
  addDryRunOption(addResourceFieldOptions(cmd, false))
    .addHelpText(
      'after',
      '\nExamples:\n  lic resources update 2 --data-file new-license-email.html\n  lic resources update 1 --password-prompt\n  lic resources update 2 --description "v2" --dry-run',
    )
    .action(async (id: number, { dryRun: _dryRun, ...o }: ResourceFieldOptions & { dryRun?: boolean }, c: Command) =>
      run({ ...o, id }, deps.runtimeOf(c)),
    );
}
