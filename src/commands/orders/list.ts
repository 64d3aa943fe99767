import { listOrders } from '../../client/endpoints/orders.js';
import type { Order } from '../../wire.js';
import { OrderSchema } from '../../schema/order.js';
import { defineList, equalsFlag, filterString, type ListFlags } from '../../cli/list/index.js';
import { checkRange, parseId, parseTime } from '../../cli/parse.js';

/** `orders list` options: the customer (the path), then filters exact and case-sensitive, times RFC 3339 UTC (parseTime). */
interface OrdersListOptions extends ListFlags {
  /** customer id, int32 1..2147483647 (contract §2) */
  customer: number;
  status?: string;
  paymentStatus?: string;
  paymentType?: string;
  currency?: string;
  /** CreatedAt at or after this time */
  since?: string;
  /** CreatedAt before this time */
  until?: string;
}

type Tone = 'ok' | 'warn' | 'bad' | 'dim' | undefined;

/** Status values the demo data and the original use; others render without color (the API leaves the values open; docs/contract.md). */
const STATUS_TONE: Record<string, Tone> = { Completed: 'ok', Pending: 'warn', Cancelled: 'dim', Refunded: 'dim' };
const PAYMENT_TONE: Record<string, Tone> = { Paid: 'ok', PartiallyPaid: 'warn', Unpaid: 'warn', Failed: 'bad', Refunded: 'dim' };

/**
 * An amount with 2 decimals, then the currency when given: `1234.50 EUR`. A value that
 * is not a number (a server that chose otherwise) is shown as it came; absent → ''.
 */
export function formatMoney(amount: unknown, currency?: unknown): string {
  if (amount === undefined || amount === null) return '';
  const text = typeof amount === 'number' && Number.isFinite(amount) ? amount.toFixed(2) : String(amount);
  return typeof currency === 'string' && currency !== '' ? `${text} ${currency}` : text;
}

/**
 * `lic orders list --customer ID`: GET /v1/customers/{id}/orders (contract §5, §8), paged
 * by id. The table shows the payment status under PAYMENT, its type under TYPE; a narrow
 * terminal leaves out INVOICE, then TYPE, before the order's date. --since / --until filter
 * `CreatedAt >= "…"` / `CreatedAt < "…"` (a timestamp field compared with a string
 * literal compares as a time).
 */
export const ORDER_LIST = defineList<Order, OrdersListOptions>({
  what: 'orders',
  arrayField: 'orders',
  totalField: 'totalOrdersCount',
  schema: OrderSchema,
  check: (o) => checkRange(o.since, o.until),
  fetch: (client, q, o, signal) => listOrders(client, o.customer, q, signal),
  description: "List a customer's orders (Administrator, Sales)",
  columns: [
    { header: 'ID', kind: 'id', get: (o) => o.id },
    { header: 'NUMBER', kind: 'code', get: (o) => o.orderNumber },
    { header: 'STATUS', kind: 'label', get: (o) => o.status, tone: (o) => STATUS_TONE[o.status] },
    { header: 'PAYMENT', kind: 'label', get: (o) => o.paymentStatus, tone: (o) => PAYMENT_TONE[o.paymentStatus] },
    { header: 'TYPE', kind: 'label', priority: -1, get: (o) => o.paymentType },
    { header: 'TOTAL', kind: 'number', get: (o) => formatMoney(o.total, o.currency) },
    { header: 'CREATED', kind: 'time', get: (o) => o.createdAt },
    { header: 'INVOICE', kind: 'code', priority: -1, get: (o) => o.invoiceNumber },
  ],
  flags: {
    customer: { flag: '--customer <id>', help: 'customer id (1..2147483647)', parse: parseId, required: true },
    status: equalsFlag(
      '--status <status>',
      'Status',
      'only orders with this status, exactly (case-sensitive): Pending, Processing, Completed, Cancelled, Refunded, …',
    ),
    paymentStatus: equalsFlag(
      '--payment-status <status>',
      'PaymentStatus',
      'only this payment status, exactly: Paid, PartiallyPaid, Unpaid, Failed, Refunded, …',
    ),
    paymentType: equalsFlag(
      '--payment-type <type>',
      'PaymentType',
      'only this payment type, exactly: CreditCard, PayPal, BankTransfer, Invoice, PurchaseOrder, …',
    ),
    currency: equalsFlag('--currency <code>', 'Currency', 'only orders in this currency, exactly (e.g. EUR)'),
    since: {
      flag: '--since <time>',
      help: 'created at or after this time (RFC 3339, date, or 30m/24h/7d ago)',
      parse: parseTime,
      filter: (v) => `CreatedAt >= ${filterString(v)}`,
    },
    until: {
      flag: '--until <time>',
      help: 'created before this time (same forms)',
      parse: parseTime,
      filter: (v) => `CreatedAt < ${filterString(v)}`,
    },
  },
  help: { sortExample: 'createdAt:desc', whereExample: 'Total >= 1000 and PaymentStatus != "Paid"' },
  examples: [
    'lic orders list --customer 7',
    'lic orders list --customer 7 --status Pending -o csv',
    'lic orders list --customer 7 --payment-status Unpaid --since 30d',
    'lic orders list --customer 7 --all --fields id,orderNumber,total,currency -o ndjson',
  ],
});

export const registerOrdersList = ORDER_LIST.register;
