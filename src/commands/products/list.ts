import { InvalidArgumentError, type Command } from 'commander';
import { listCustomerProducts } from '../../client/endpoints/products.js';
import type { CustomerProduct } from '../../wire.js';
import { CustomerProductSchema } from '../../schema/customer-product.js';
import { addListOptions, fieldNames, fieldTypesOf, runList, type ListDef, type ListFlags } from '../../cli/list/index.js';
import type { Cli } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { CUSTOMER_PRODUCT_COLUMNS } from './columns.js';

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

/** Fields of a product of a customer with their wire types (derived from src/schema/ CustomerProductSchema): the defaults of what the service leaves out. */
const CUSTOMER_PRODUCT_FIELD_TYPES = fieldTypesOf(CustomerProductSchema);

/**
 * Fields of a product of a customer, as the service names them (contract §8;
 * lic serve's customerProductFields in src/server/routes/products.ts, checked by a
 * test), for --fields (applied to the reply here: the endpoint takes no query).
 */
export const CUSTOMER_PRODUCT_FIELDS = fieldNames(CUSTOMER_PRODUCT_FIELD_TYPES);

/**
 * A customer's products as a list: GET /v1/customer/{code}/products takes no query
 * (contract §8: no filter, sort or paging, no total), so `paged: false`: only --fields
 * and --limit, applied to the one reply.
 */
export const CUSTOMER_PRODUCT_LIST: ListDef<CustomerProduct> = {
  what: 'products',
  arrayField: 'products',
  columns: CUSTOMER_PRODUCT_COLUMNS,
  fields: CUSTOMER_PRODUCT_FIELDS,
  types: CUSTOMER_PRODUCT_FIELD_TYPES,
  paged: false,
};

/** `lic products list --customer CODE`: the products of the caller's own customer (role Customer), through the list machinery unpaged. */
async function runProductsList(opts: ProductsListOptions, rt: Runtime): Promise<void> {
  const client = await rt.client();
  await runList(rt, {
    def: CUSTOMER_PRODUCT_LIST,
    flags: opts,
    fetch: () => listCustomerProducts(client, opts.customer),
  });
}

/** Declares `products list --customer CODE` with --fields and --limit (the endpoint has no filter, sort or paging). */
export function registerProductsList(parent: Command, cli: Cli, run = runProductsList): void {
  const cmd = parent
    .command('list')
    .alias('ls')
    .description("List the products of your own customer (role Customer; another customer's code is not found)")
    .requiredOption('--customer <code>', 'your customer code, e.g. C-7K2M9Q4X', parseCustomerCode);
  addListOptions(cmd, CUSTOMER_PRODUCT_LIST)
    .addHelpText(
      'after',
      "\nThe service returns a customer's products in one reply and takes no query: there is no --where, --sort, --take/--skip or --all here; filter with jq instead.\n" +
        '\nExamples:\n  lic products list --customer C-7K2M9Q4X\n  lic products list --customer C-7K2M9Q4X --fields code,name,price -o csv\n  lic products list --customer C-7K2M9Q4X -o json | jq -r \'.products[] | select(.currency == "EUR") | .code\'',
    )
    .action(async (o: ProductsListOptions, cmd: Command) => run(o, cli.runtimeOf(cmd)));
}
