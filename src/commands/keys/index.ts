import { defineNoun } from '../../cli/noun.js';

/** `lic keys`: API keys (contract §4). Its verbs in help's order, each loaded only when needed (src/cli/noun.ts). */
export const loadKeys = defineNoun(
  {
    name: 'keys',
    description: 'Manage API keys (Administrator)',
    after: '\nExamples:\n  lic keys list --active\n  lic keys create --perm rw --name ci --expires 90d\n  lic keys update 5 --revoke',
  },
  [
    ['list', ['ls'], async () => (await import('./list.js')).registerKeysList],
    ['create', [], async () => (await import('./create.js')).registerKeysCreate],
    ['update', [], async () => (await import('./update.js')).registerKeysUpdate],
    ['delete', ['rm'], async () => (await import('./delete.js')).registerKeysDelete],
    ['rotate', [], async () => (await import('./rotate.js')).registerKeysRotate],
  ],
);
