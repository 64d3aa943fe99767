import type { Column } from '../../cli/output.js';
import type { Order } from '../../wire.js';

type Tone = 'ok' | 'warn' | 'bad' | 'dim' | undefined;

/** Status values the demo data and the original use; others render without colour (spec: values not shown). */
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
 * Table columns of an order: the payment status under PAYMENT, its type under
 * TYPE. A narrow terminal leaves out INVOICE, then TYPE, before the order's date.
 */
export const ORDER_COLUMNS: Column<Order>[] = [
  { header: 'ID', kind: 'id', get: (o) => o.id },
  { header: 'NUMBER', kind: 'code', get: (o) => o.orderNumber },
  { header: 'STATUS', kind: 'label', get: (o) => o.status, tone: (o) => STATUS_TONE[o.status] },
  { header: 'PAYMENT', kind: 'label', get: (o) => o.paymentStatus, tone: (o) => PAYMENT_TONE[o.paymentStatus] },
  { header: 'TYPE', kind: 'label', priority: -1, get: (o) => o.paymentType },
  { header: 'TOTAL', kind: 'number', get: (o) => formatMoney(o.total, o.currency) },
  { header: 'CREATED', kind: 'time', get: (o) => o.createdAt },
  { header: 'INVOICE', kind: 'code', priority: -1, get: (o) => o.invoiceNumber },
];
