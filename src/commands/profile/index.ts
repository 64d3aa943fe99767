import { defineNoun } from '../../cli/noun.js';

/** `lic profile`: named base URL + API key pairs on this machine. Its verbs in help's order, each loaded only when needed (src/cli/noun.ts). */
export const loadProfile = defineNoun(
  {
    name: 'profile',
    description: 'Manage profiles: base URL and API key (in the keyring) per service',
    after: '\nExamples:\n  lic profile add prod --base-url https://licensing.example.com\n  lic profile use prod\n  lic profile show',
  },
  [
    ['add', [], async () => (await import('./add.js')).registerProfileAdd],
    ['list', ['ls'], async () => (await import('./list.js')).registerProfileList],
    ['use', [], async () => (await import('./use.js')).registerProfileUse],
    ['remove', ['rm'], async () => (await import('./remove.js')).registerProfileRemove],
    ['show', [], async () => (await import('./show.js')).registerProfileShow],
    ['migrate', [], async () => (await import('./migrate.js')).registerProfileMigrate],
  ],
);
