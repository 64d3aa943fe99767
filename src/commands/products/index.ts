import { defineNoun } from '../../cli/noun.js';

/** `lic products`: the products of the caller's own customer (contract §3, §8). Its verbs in help's order, each loaded only when needed (src/cli/noun.ts). */
export const loadProducts = defineNoun(
  {
    name: 'products',
    description: 'Read the products of your own customer (role Customer)',
    after: '\nExamples:\n  lic products list --customer C-7K2M9Q4X\n  lic products list --customer C-7K2M9Q4X -o csv > products.csv',
  },
  [['list', ['ls'], async () => (await import('./list.js')).registerProductsList]],
);
