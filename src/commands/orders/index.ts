import { defineNoun } from '../../cli/noun.js';

/** `lic orders`: a customer's orders, read-only (contract §8). Its verbs in help's order, each loaded only when needed (src/cli/noun.ts). */
export const loadOrders = defineNoun(
  {
    name: 'orders',
    description: "Read customers' orders (Administrator, Sales)",
    after: '\nExamples:\n  lic orders list --customer 7\n  lic orders list --customer 7 --status Pending -o csv',
  },
  [['list', ['ls'], async () => (await import('./list.js')).registerOrdersList]],
);
