import { defineNoun } from '../../cli/noun.js';

/** `lic log`: the audit and transaction log (contract §6). Its verbs in help's order, each loaded only when needed (src/cli/noun.ts). */
export const loadLog = defineNoun(
  {
    name: 'log',
    description: 'Read, follow and purge the audit and transaction log',
    after: '\nExamples:\n  lic log list --level Warning --since 24h\n  lic log tail -f --level Error\n  lic log purge --before 90d --yes',
  },
  [
    ['list', ['ls'], async () => (await import('./list.js')).registerLogList],
    ['tail', [], async () => (await import('./tail.js')).registerLogTail],
    ['purge', [], async () => (await import('./purge.js')).registerLogPurge],
    ['stats', [], async () => (await import('./stats.js')).registerLogStats],
    ['top', [], async () => (await import('./top.js')).registerLogTop],
    ['report', [], async () => (await import('./report.js')).registerLogReport],
  ],
);
