import type { Command } from 'commander';
import type { CommandDeps } from '../../cli/deps.js';
import { registerLogList } from './list.js';
import { registerLogPurge } from './purge.js';
import { registerLogReport } from './report.js';
import { registerLogStats } from './stats.js';
import { registerLogTail } from './tail.js';
import { registerLogTop } from './top.js';

/** `lic log`: the audit and transaction log (contract §6). */
export function registerLog(program: Command, deps: CommandDeps): void {
  const log = program
    .command('log')
    .description('Read, follow and purge the audit and transaction log')
    .addHelpText(
      'after',
      '\nExamples:\n  lic log list --level Warning --since 24h\n  lic log tail -f --level Error\n  lic log purge --before 90d --yes',
    );
  registerLogList(log, deps);
  registerLogTail(log, deps);
  registerLogPurge(log, deps);
  registerLogStats(log, deps);
  registerLogTop(log, deps);
  registerLogReport(log, deps);
}
