import { defineNoun } from '../../cli/noun.js';

/** `lic templates`: license templates of a product release, read-only (contract §8). Its verbs in help's order, each loaded only when needed (src/cli/noun.ts). */
export const loadTemplates = defineNoun(
  {
    name: 'templates',
    description: 'Read the license templates of a product release (Administrator, LicenseManager)',
    after:
      '\nExamples:\n  lic templates list --product 1 --release 2\n  lic templates show 3 --product 1 --release 2 > license-template.xml',
  },
  [
    ['list', ['ls'], async () => (await import('./list.js')).registerTemplatesList],
    ['show', [], async () => (await import('./show.js')).registerTemplatesShow],
  ],
);
