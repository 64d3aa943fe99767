import { nounWithVerbs, type RegisterNoun, type VerbEntry } from '../../cli/noun.js';

/** The verbs of `lic products`, in the order help lists them (src/cli/noun.ts: a run loads only the one it names). */
const VERBS: readonly VerbEntry[] = [['list', ['ls'], async () => (await import('./list.js')).registerProductsList]];

/** `lic products`: the products of the caller's own customer (contract §3, §8). `verb`: the verb the command line names, if any (src/cli/program.ts NOUNS). */
export function loadProducts(verb?: string): Promise<RegisterNoun> {
  return nounWithVerbs(
    (program) =>
      program
        .command('products')
        .description('Read the products of your own customer (role Customer)')
        .addHelpText(
          'after',
          '\nExamples:\n  lic products list --customer C-7K2M9Q4X\n  lic products list --customer C-7K2M9Q4X -o csv > products.csv',
        ),
    VERBS,
    verb,
  );
}
