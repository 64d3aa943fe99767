import { InvalidArgumentError, type Command } from 'commander';
import { listCustomerProducts } from '../../client/endpoints/products.js';
import { ProtocolError } from '../../client/errors.js';
import type { ApiClient } from '../../client/request.js';
import type { CustomerProduct, CustomerProductList } from '../../wire.js';
import type { Cli } from '../../cli/program.js';
import type { Runtime } from '../../cli/runtime.js';
import { CUSTOMER_PRODUCT_COLUMNS } from './columns.js';

/** Longest name or code the service takes (contract §9). */
const MAX_CODE = 256;

/**
 * `--customer CODE`: a customer code, checked loosely so that a server with another code
 * format still works: non-empty, at most 256 characters, no `/` (it is a path segment).
 * The usual form is `C-` + 8 of [A-Z0-9] (contract §3). Returns it trimmed.
 */
export function parseCustomerCode(value: string): string {
  const v = value.trim();
  if (v === '') throw new InvalidArgumentError('expected a customer code such as C-7K2M9Q4X.');
  if (v.length > MAX_CODE) throw new InvalidArgumentError(`expected a customer code of at most ${MAX_CODE} characters (got ${v.length}).`);
  if (v.includes('/')) throw new InvalidArgumentError('expected a customer code such as C-7K2M9Q4X; it cannot contain "/".');
  return v;
}

export interface ProductsListOptions {
  /** the caller's own customer code (role Customer) */
  customer: string;
}

/**
 * The list verb's parts, apart from its flags: `fetch` gets the whole list (GET
 * /v1/customer/{code}/products takes no query: no paging, no total), `rows` reads the
 * reply, `columns` render it.
 */
export const CUSTOMER_PRODUCT_LIST = {
  fetch: (client: ApiClient, customerCode: string) => listCustomerProducts(client, customerCode),
  /** The products of a reply; absent = none (the original omits empty lists); anything but an array is a ProtocolError. */
  rows: (body: CustomerProductList): CustomerProduct[] => {
    const v: unknown = body.products;
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) throw new ProtocolError('the service replied with "products" that is not a list', 'GET', '/v1/customer/{customerCode}/products');
    return v as CustomerProduct[];
  },
  columns: CUSTOMER_PRODUCT_COLUMNS,
} as const;

/** `lic products list --customer CODE`: the products of the caller's own customer (role Customer). */
export async function runProductsList(opts: ProductsListOptions, rt: Runtime): Promise<void> {
  const client = await rt.client();
  const body = await CUSTOMER_PRODUCT_LIST.fetch(client, opts.customer);
  await rt.out.list(body, CUSTOMER_PRODUCT_LIST.rows(body), CUSTOMER_PRODUCT_LIST.columns);
}

export function registerProductsList(parent: Command, cli: Cli): void {
  parent
    .command('list')
    .alias('ls')
    .description("List the products of your own customer (role Customer; another customer's code is not found)")
    .requiredOption('--customer <code>', 'your customer code, e.g. C-7K2M9Q4X', parseCustomerCode)
    .addHelpText('after', '\nExamples:\n  lic products list --customer C-7K2M9Q4X\n  lic products list --customer C-7K2M9Q4X -o json | jq -r \'.products[].code\'')
    .action(async (o: ProductsListOptions, cmd: Command) => runProductsList(o, cli.runtimeOf(cmd)));
}
