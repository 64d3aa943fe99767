import { nounWithVerbs, type RegisterNoun, type VerbEntry } from '../../cli/noun.js';

/** The verbs of `lic orders`, in the order help lists them (src/cli/noun.ts: a run loads only the one it names). */
const VERBS: readonly VerbEntry[] = [['list', ['ls'], async () => (await import('./list.js')).registerOrdersList]];

/** `lic orders`: a customer's orders, read-only (contract §8). `verb`: the verb the command line names, if any (src/cli/program.ts NOUNS). */
export function loadOrders(verb?: string): Promise<RegisterNoun> {
  return nounWithVerbs(
    (program) =>
      program
        .command('orders')
        .description("Read customers' orders (Administrator, Sales)")
        .addHelpText('after', '\nExamples:\n  lic orders list --customer 7\n  lic orders list --customer 7 --status Pending -o csv'),
    VERBS,
    verb,
  );
}
