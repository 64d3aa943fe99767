import type { Command } from 'commander';
import { listOrders } from '../../client/endpoints/orders.js';
import type { Order } from '../../wire.js';
import { OrderSchema } from '../../schema/order.js';
import {
  parseFilterValue,
  addListOptions,
  fieldNames,
  fieldTypesOf,
  equalsClause,
  filterString,
  runList,
  type ListDef,
  type ListFlags,
} from '../../cli/list/index.js';
import { checkRange, parseId, parseTime } from '../../cli/parse.js';
import type { Cli } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { ORDER_COLUMNS } from './columns.js';

/** Which customer's orders: the path part of the list, apart from the list query (contract §5). */
interface OrderScope {
  /** customer id, int32 1..2147483647 (contract §2) */
  customer: number;
}

/** The orders' friendly filter flags; values exact and case-sensitive, times RFC 3339 UTC (parseTime). */
export interface OrderFilterOptions {
  status?: string;
  paymentStatus?: string;
  paymentType?: string;
  currency?: string;
  /** CreatedAt at or after this time */
  since?: string;
  /** CreatedAt before this time */
  until?: string;
}

interface OrdersListOptions extends OrderScope, OrderFilterOptions, ListFlags {}

/** Fields of an order with their wire types (derived from src/schema/ OrderSchema; contract §2, §8): the defaults of what the service leaves out. */
const ORDER_FIELD_TYPES = fieldTypesOf(OrderSchema);

/**
 * Fields of an order in lists, as the service names them (contract §5, §8;
 * lic serve's FieldSpecs in src/server/routes/orders.ts, checked by a test), for --fields
 * and --sort.
 */
export const ORDER_FIELDS = fieldNames(ORDER_FIELD_TYPES);

/** A customer's orders as a list (contract §5, §8): paged by id. */
export const ORDER_LIST: ListDef<Order> = {
  what: 'orders',
  arrayField: 'orders',
  totalField: 'totalOrdersCount',
  columns: ORDER_COLUMNS,
  fields: ORDER_FIELDS,
  types: ORDER_FIELD_TYPES,
};

/**
 * The orders' friendly filter flags → filter clauses (contract §5): --status,
 * --payment-status, --payment-type, --currency (equality, case as given), and --since /
 * --until as `CreatedAt >= "…"` / `CreatedAt < "…"` (a timestamp field compared with a
 * string literal compares as a time).
 */
export function orderFilters(o: OrderFilterOptions): (string | undefined)[] {
  return [
    o.status !== undefined ? equalsClause('Status', o.status) : undefined,
    o.paymentStatus !== undefined ? equalsClause('PaymentStatus', o.paymentStatus) : undefined,
    o.paymentType !== undefined ? equalsClause('PaymentType', o.paymentType) : undefined,
    o.currency !== undefined ? equalsClause('Currency', o.currency) : undefined,
    o.since !== undefined ? `CreatedAt >= ${filterString(o.since)}` : undefined,
    o.until !== undefined ? `CreatedAt < ${filterString(o.until)}` : undefined,
  ];
}

/** `lic orders list --customer ID`: GET /v1/customers/{id}/orders through the list machinery, rendered with ORDER_COLUMNS. */
async function runOrdersList(opts: OrdersListOptions, rt: Runtime): Promise<void> {
  checkRange(opts.since, opts.until);
  const client = await rt.client();
  await runList(rt, {
    def: ORDER_LIST,
    flags: opts,
    filters: orderFilters(opts),
    fetch: (q, signal) => listOrders(client, opts.customer, q, signal),
  });
}

/** Declares `orders list --customer ID` with the status, payment, currency and time filters and the shared list flags. */
export function registerOrdersList(parent: Command, cli: Cli, run = runOrdersList): void {
  const time = (v: string) => parseTime(v, cli.ctx.now());
  const cmd = parent
    .command('list')
    .alias('ls')
    .description("List a customer's orders (Administrator, Sales)")
    .requiredOption('--customer <id>', 'customer id (1..2147483647)', parseId)
    .option(
      '--status <status>',
      'only orders with this status, exactly (case-sensitive): Pending, Processing, Completed, Cancelled, Refunded, …',
      parseFilterValue,
    )
    .option(
      '--payment-status <status>',
      'only this payment status, exactly: Paid, PartiallyPaid, Unpaid, Failed, Refunded, …',
      parseFilterValue,
    )
    .option(
      '--payment-type <type>',
      'only this payment type, exactly: CreditCard, PayPal, BankTransfer, Invoice, PurchaseOrder, …',
      parseFilterValue,
    )
    .option('--currency <code>', 'only orders in this currency, exactly (e.g. EUR)', parseFilterValue)
    .option('--since <time>', 'created at or after this time (RFC 3339, date, or 30m/24h/7d ago)', time)
    .option('--until <time>', 'created before this time (same forms)', time);
  addListOptions(cmd, ORDER_LIST, { sortExample: 'createdAt:desc', whereExample: 'Total >= 1000 and PaymentStatus != "Paid"' })
    .addHelpText(
      'after',
      '\nExamples:\n  lic orders list --customer 7\n  lic orders list --customer 7 --status Pending -o csv\n  lic orders list --customer 7 --payment-status Unpaid --since 30d\n  lic orders list --customer 7 --all --fields id,orderNumber,total,currency -o ndjson',
    )
    .action(async (o: OrdersListOptions, cmd: Command) => run(o, cli.runtimeOf(cmd)));
}
