import type { Command } from 'commander';
import type { Cli } from '../../cli/program.js';
import { registerProductsList } from './list.js';

/** `lic products`: the products of the caller's own customer (spec Products of a customer; contract §3, §8). */
export function registerProducts(program: Command, cli: Cli): void {
  const products = program.command('products').description('Read the products of your own customer (role Customer)');
  registerProductsList(products, cli);
}
