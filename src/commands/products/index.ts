import type { Command } from 'commander';
import type { CommandDeps } from '../../cli/deps.js';
import { registerProductsList } from './list.js';

/** `lic products`: the products of the caller's own customer (contract §3, §8). */
export function registerProducts(program: Command, deps: CommandDeps): void {
  const products = program
    .command('products')
    .description('Read the products of your own customer (role Customer)')
    .addHelpText(
      'after',
      '\nExamples:\n  lic products list --customer C-7K2M9Q4X\n  lic products list --customer C-7K2M9Q4X -o csv > products.csv',
    );
  registerProductsList(products, deps);
}
