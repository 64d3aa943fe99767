import type { Command } from 'commander';
import { listOrders } from '../../client/endpoints/orders.js';
import { ProtocolError } from '../../client/errors.js';
import type { ApiClient } from '../../client/request.js';
import type { ListQuery, Order, OrderList } from '../../wire.js';
import { parseCount, parseId, parseTake } from '../../cli/parse.js';
import type { Cli } from '../../cli/program.js';
import type { Runtime } from '../../cli/runtime.js';
import { ORDER_COLUMNS } from './columns.js';

export interface OrdersListOptions {
  /** customer id, int32 1..2147483647 (contract §2) */
  customer: number;
  take?: number;
  skip?: number;
}

/** Which customer's orders: the path part of the list, apart from the rule-3 query. */
export interface OrderScope {
  customer: number;
}

/**
 * The list verb's parts, apart from its flags, so shared list flags (--where, --sort,
 * --all) can drive them: `fetch` gets one page (GET /v1/customers/{id}/orders, rule-3
 * query), `rows`/`total` read the reply, `columns` render it.
 */
export const ORDER_LIST = {
  fetch: (client: ApiClient, query: ListQuery | undefined, scope: OrderScope) => listOrders(client, scope.customer, query),
  /** The orders of a reply; absent = none (the original omits empty lists); anything but an array is a ProtocolError. */
  rows: (body: OrderList): Order[] => {
    const v: unknown = body.orders;
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) throw new ProtocolError('the service replied with "orders" that is not a list', 'GET', '/v1/customers/{customerId}/orders');
    return v as Order[];
  },
  total: (body: OrderList): number | undefined => body.totalOrdersCount,
  columns: ORDER_COLUMNS,
} as const;

/** `lic orders list --customer ID`: one page of the customer's orders, rendered with ORDER_COLUMNS. */
export async function runOrdersList(opts: OrdersListOptions, rt: Runtime): Promise<void> {
  const client = await rt.client();
  const body = await ORDER_LIST.fetch(client, { take: opts.take, skip: opts.skip }, { customer: opts.customer });
  await rt.out.list(body, ORDER_LIST.rows(body), ORDER_LIST.columns);
}

export function registerOrdersList(parent: Command, cli: Cli): void {
  parent
    .command('list')
    .alias('ls')
    .description("List a customer's orders (Administrator, Sales)")
    .requiredOption('--customer <id>', 'customer id (1..2147483647)', parseId)
    .option('--take <n>', 'page size, 0..1000 (default 100)', parseTake)
    .option('--skip <n>', 'records to skip', parseCount)
    .addHelpText('after', '\nExamples:\n  lic orders list --customer 7\n  lic orders list --customer 7 -o json | jq \'.orders[] | select(.paymentStatus == "Unpaid")\'')
    .action(async (o: OrdersListOptions, cmd: Command) => runOrdersList(o, cli.runtimeOf(cmd)));
}
