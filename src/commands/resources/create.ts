import type { Command } from 'commander';
import { createResource } from '../../client/endpoints/resources.js';
import type { CommandDeps } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { addResourceFieldOptions, resourceInputFrom, type ResourceFieldOptions } from './input.js';
import { addDryRunOption } from '../../cli/dry-run-option.js';
import { snkDataWarning } from './signing-key.js';
import { outputFormats } from '../../cli/parse.js';

type ResourcesCreateOptions = ResourceFieldOptions & { name: string; type: string };

/**
 * `lic resources create --name N --type T ...`: POST /v1/resources; prints the new id. A
 * `--type RSA --format SNK` data file that is not a strong-name key is a warning on
 * stderr, not an error: the service stores what it is given (contract §7).
 */
async function runResourcesCreate(opts: ResourcesCreateOptions, rt: Runtime): Promise<void> {
  const input = await resourceInputFrom(opts, rt, `resource "${opts.name}"`);
  if (input.data !== undefined && opts.dataFile !== undefined) {
    const warning = await snkDataWarning(input, input.data, opts.dataFile);
    if (warning) rt.out.warn(warning);
  }
  const client = await rt.client();
  const body = await createResource(client, input);
  await rt.out.record(body, [['id', body.resourceId]]);
}

/** Declares `resources create` and its flags (parse only; the work is runResourcesCreate). */
export function registerResourcesCreate(parent: Command, deps: CommandDeps, run = runResourcesCreate): void {
  const cmd = outputFormats(parent.command('create')).description(
    'Create a resource from a file (or stdin); the password only from stdin or a prompt',
  );
  addResourceFieldOptions(cmd, true).addHelpText(
    'after',
    '\nExamples:\n' +
      '  lic resources create --name "Signing key" --type RSA --format SNK --data-file Keys.snk\n' +
      '  lic resources create --name "New license" --type email --format html --data-file - < new-license-email.html\n' +
      '  printf %s "$PFX_PASSWORD" | lic resources create --name key2 --type RSA --format PFX --data-file key.pfx --password-stdin\n' +
      '  lic resources create --name "Signing key" --type RSA --format SNK --data-file Keys.snk --dry-run',
  );
  addDryRunOption(cmd).action(async ({ dryRun: _dryRun, ...o }: ResourcesCreateOptions & { dryRun?: boolean }, c: Command) =>
    run(o, deps.runtimeOf(c)),
  );
}
