import type { Command } from 'commander';
import type { CommandDeps } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { readStateFile } from './file.js';
import { makePlan, planCounts, printPlan } from './plan.js';
import { outputFormats } from '../../cli/parse.js';

interface DiffOptions {
  /** the state file, or `-` for stdin */
  file: string;
  /** also show the deletes `apply --prune` would make */
  prune?: boolean;
  /** exit 1 when there is a difference */
  exitCode?: boolean;
}

/** `--exit-code` and a difference: main() prints the message and exits 1 (README "Exit codes"). */
class DriftError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DriftError';
  }
}

/**
 * `lic diff -f FILE [--prune] [--exit-code]`: the plan `lic apply` would run (plan.ts),
 * like `kubectl diff` or `terraform plan`: creates, updates field by field and, with
 * --prune, deletes. Reads only (GET). With --exit-code a difference is exit 1 (DriftError),
 * for drift checks from cron; the file is checked first like apply's (exit 2 naming line
 * and field).
 */
async function runDiff(opts: DiffOptions, rt: Runtime): Promise<void> {
  const want = await readStateFile(opts.file, rt.ctx);
  const client = await rt.client();
  const plan = await makePlan(client, want, { prune: opts.prune === true, ownKey: await rt.apiKey() });
  await printPlan(rt, plan, want.source);
  if (opts.exitCode && plan.steps.length) {
    const c = planCounts(plan);
    throw new DriftError(`the service differs from ${want.source}: ${c.create} to create, ${c.update} to update, ${c.delete} to delete`);
  }
}

/** Declares top-level `diff -f FILE [--prune] [--exit-code]`. */
export function registerDiff(program: Command, deps: CommandDeps, run = runDiff): void {
  outputFormats(program.command('diff'))
    .description('Show what `lic apply` would change to make the service match a state file; sends no write (docs/state.md)')
    .requiredOption('-f, --file <file>', 'the state file (YAML or JSON, from `lic state export`), or - for stdin')
    .option('--prune', 'also show the records apply --prune would delete (those the file lacks, of the sections it has)')
    .option('--exit-code', 'exit 1 when the service differs from the file (0 when it matches): for drift checks')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  lic diff -f licensing.yaml\n' +
        '  lic diff -f licensing.yaml --prune --exit-code --quiet   # cron: exit 1 on drift\n' +
        '  lic diff -f licensing.yaml -o json | jq .changes',
    )
    .action(async (o: DiffOptions, c: Command) => run({ file: o.file, prune: o.prune, exitCode: o.exitCode }, deps.runtimeOf(c)));
}
