import type { Command } from 'commander';
import { updateResource } from '../../client/endpoints/resources.js';
import { UsageError } from '../../cli/errors.js';
import { parseId } from '../../cli/parse.js';
import type { Cli } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { addResourceFieldOptions, resourceInputFrom, type ResourceFieldOptions } from './input.js';
import { addDryRunOption } from '../../cli/dry-run.js';

type ResourcesUpdateOptions = ResourceFieldOptions & { id: number };

const FLAGS = '--name, --type, --code, --format, --description, --source, --data-file, --password-stdin, --password-prompt';

/** `lic resources update ID`: PUT /v1/resources with only the flags given (contract §7). */
async function runResourcesUpdate(opts: ResourcesUpdateOptions, rt: Runtime): Promise<void> {
  const { id, ...fields } = opts;
  if (Object.values(fields).every((v) => v === undefined || v === false)) {
    throw new UsageError(`nothing to change: give at least one of ${FLAGS}`);
  }
  const input = await resourceInputFrom(fields, rt, `resource ${id}`);
  const client = await rt.client();
  const body = await updateResource(client, { id, ...input });
  if (rt.out.opts.format === 'json') rt.out.json(body);
  else rt.out.info(`Updated resource ${id}.`);
}

/** Declares `resources update ID` with the create flags, all optional. */
export function registerResourcesUpdate(parent: Command, cli: Cli, run = runResourcesUpdate): void {
  const cmd = parent
    .command('update')
    .description('Change a resource: only the fields given are sent')
    .argument('<id>', 'resource id', parseId);
  addDryRunOption(addResourceFieldOptions(cmd, false))
    .addHelpText(
      'after',
      '\nExamples:\n  lic resources update 2 --data-file new-license-email.html\n  lic resources update 1 --password-prompt\n  lic resources update 2 --description "v2" --dry-run',
    )
    .action(async (id: number, { dryRun: _dryRun, ...o }: ResourceFieldOptions & { dryRun?: boolean }, c: Command) =>
      run({ ...o, id }, cli.runtimeOf(c)),
    );
}
