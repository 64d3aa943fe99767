import type { Column } from '../../cli/output.js';
import type { CustomerProduct } from '../../wire.js';
import { formatMoney } from '../orders/columns.js';

/** Table columns of a product of a customer (spec CustomerProduct); prices with 2 decimals. */
export const CUSTOMER_PRODUCT_COLUMNS: Column<CustomerProduct>[] = [
  { header: 'ID', get: (p) => p.id },
  { header: 'CODE', get: (p) => p.code },
  { header: 'NAME', get: (p) => p.name },
  { header: 'PRICE', get: (p) => formatMoney(p.price) },
  { header: 'RESELLER PRICE', get: (p) => formatMoney(p.resellerPrice) },
  { header: 'CURRENCY', get: (p) => p.currency },
  { header: 'CREATED', get: (p) => p.createdAt },
];
