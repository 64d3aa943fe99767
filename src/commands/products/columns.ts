import type { Column } from '../../cli/output.js';
import type { CustomerProduct } from '../../wire.js';
import { formatMoney } from '../orders/columns.js';

/** Table columns of a product of a customer; prices with 2 decimals. */
export const CUSTOMER_PRODUCT_COLUMNS: Column<CustomerProduct>[] = [
  { header: 'ID', kind: 'id', get: (p) => p.id },
  { header: 'CODE', kind: 'code', get: (p) => p.code },
  { header: 'NAME', kind: 'name', get: (p) => p.name },
  { header: 'PRICE', kind: 'number', get: (p) => formatMoney(p.price) },
  { header: 'RESELLER PRICE', kind: 'number', get: (p) => formatMoney(p.resellerPrice) },
  { header: 'CURRENCY', kind: 'label', get: (p) => p.currency },
  { header: 'CREATED', kind: 'time', get: (p) => p.createdAt },
];
