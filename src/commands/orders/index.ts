import type { Command } from 'commander';
import type { CommandDeps } from '../../cli/deps.js';
import { registerOrdersList } from './list.js';

/** `lic orders`: a customer's orders, read-only (contract §8). */
export function registerOrders(program: Command, deps: CommandDeps): void {
  const orders = program
    .command('orders')
    .description("Read customers' orders (Administrator, Sales)")
    .addHelpText('after', '\nExamples:\n  lic orders list --customer 7\n  lic orders list --customer 7 --status Pending -o csv');
  registerOrdersList(orders, deps);
}
