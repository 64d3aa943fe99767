import { nounWithVerbs, type RegisterNoun, type VerbEntry } from '../../cli/noun.js';

/** The verbs of `lic log`, in the order help lists them (src/cli/noun.ts: a run loads only the one it names). */
const VERBS: readonly VerbEntry[] = [
  ['list', ['ls'], async () => (await import('./list.js')).registerLogList],
  ['tail', [], async () => (await import('./tail.js')).registerLogTail],
  ['purge', [], async () => (await import('./purge.js')).registerLogPurge],
  ['stats', [], async () => (await import('./stats.js')).registerLogStats],
  ['top', [], async () => (await import('./top.js')).registerLogTop],
  ['report', [], async () => (await import('./report.js')).registerLogReport],
];

/** `lic log`: the audit and transaction log (contract §6). `verb`: the verb the command line names, if any (src/cli/program.ts NOUNS). */
export function loadLog(verb?: string): Promise<RegisterNoun> {
  return nounWithVerbs(
    (program) =>
      program
        .command('log')
        .description('Read, follow and purge the audit and transaction log')
        .addHelpText(
          'after',
          '\nExamples:\n  lic log list --level Warning --since 24h\n  lic log tail -f --level Error\n  lic log purge --before 90d --yes',
        ),
    VERBS,
    verb,
  );
}
