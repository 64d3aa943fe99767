import { InvalidArgumentError } from 'commander';
import { listCustomerProducts } from '../../client/endpoints/products.js';
import type { CustomerProduct } from '../../wire.js';
import { CustomerProductSchema } from '../../schema/customer-product.js';
import { defineList, type ListFlags } from '../../cli/list/index.js';
import { formatMoney } from '../orders/list.js';

/** Longest name or code the service takes (contract §9). */
const MAX_CODE = 256;

/**
 * `--customer CODE`: a customer code, checked loosely so that a server with another code
 * format still works: non-empty, at most 256 characters, no `/` (it is a path segment).
 * The usual form is `C-` + 8 of [A-Z0-9] (contract §3). Returns it trimmed.
 */
function parseCustomerCode(value: string): string {
  const v = value.trim();
  if (v === '') throw new InvalidArgumentError('expected a customer code such as C-7K2M9Q4X.');
  if (v.length > MAX_CODE) throw new InvalidArgumentError(`expected a customer code of at most ${MAX_CODE} characters (got ${v.length}).`);
  if (v.includes('/')) throw new InvalidArgumentError('expected a customer code such as C-7K2M9Q4X; it cannot contain "/".');
  return v;
}

interface ProductsListOptions extends Pick<ListFlags, 'fields' | 'limit'> {
  /** the caller's own customer code (role Customer) */
  customer: string;
}

/**
 * `lic products list --customer CODE`: the products of the caller's own customer (role
 * Customer). GET /v1/customer/{code}/products takes no query (contract §8: no filter,
 * sort or paging, no total), so `paged: false`: only --fields and --limit, applied to the
 * one reply. Prices with 2 decimals.
 */
export const CUSTOMER_PRODUCT_LIST = defineList<CustomerProduct, ProductsListOptions>({
  what: 'products',
  arrayField: 'products',
  paged: false,
  schema: CustomerProductSchema,
  fetch: (client, _q, o) => listCustomerProducts(client, o.customer),
  description: "List the products of your own customer (role Customer; another customer's code is not found)",
  columns: [
    { header: 'ID', kind: 'id', get: (p) => p.id },
    { header: 'CODE', kind: 'code', get: (p) => p.code },
    { header: 'NAME', kind: 'name', get: (p) => p.name },
    { header: 'PRICE', kind: 'number', get: (p) => formatMoney(p.price) },
    { header: 'RESELLER PRICE', kind: 'number', get: (p) => formatMoney(p.resellerPrice) },
    { header: 'CURRENCY', kind: 'label', get: (p) => p.currency },
    { header: 'CREATED', kind: 'time', get: (p) => p.createdAt },
  ],
  flags: {
    customer: { flag: '--customer <code>', help: 'your customer code, e.g. C-7K2M9Q4X', parse: parseCustomerCode, required: true },
  },
  note: "The service returns a customer's products in one reply and takes no query: there is no --where, --sort, --take/--skip or --all here; filter with jq instead.",
  examples: [
    'lic products list --customer C-7K2M9Q4X',
    'lic products list --customer C-7K2M9Q4X --fields code,name,price -o csv',
    'lic products list --customer C-7K2M9Q4X -o json | jq -r \'.products[] | select(.currency == "EUR") | .code\'',
  ],
});

export const registerProductsList = CUSTOMER_PRODUCT_LIST.register;
