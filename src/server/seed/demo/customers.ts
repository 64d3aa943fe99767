/** The demo's customers (CUSTOMERS, with generated codes) and the products each owns. */
import type { DatasetCustomer, DatasetCustomerProduct } from '../dataset.js';
import { CUSTOMERS, PRODUCTS, RESELLER_IDS } from './catalogue.js';
import type { ReleaseInfo } from './products.js';
import { UPPER_ALNUM, type Rng } from './rng.js';
import { DAY, iso } from '../../../time.js';

/**
 * Who holds what, as orders and the log draw on it: the customers, the PRODUCTS indexes
 * each owns (`owned[i]`, of customer i + 1; from makeCustomers) and the releases of each
 * product (`releaseInfo[pi]`, oldest first; from makeProducts).
 */
export interface Market {
  customers: DatasetCustomer[];
  owned: number[][];
  releaseInfo: ReleaseInfo[][];
}

/**
 * Customers (ids 1..20 in CUSTOMERS order, distinct codes `C-` + 8 of [A-Z0-9], created
 * 745..1500 days before `nowMs`), what each owns (`owned[i]`: PRODUCTS indexes of customer
 * i + 1, ascending; customer 1 owns 2+ products, the resellers 4 or 5) and those links as
 * customer-product records. `r` is the `customers` stream.
 */
export function makeCustomers(
  r: Rng,
  nowMs: number,
): { customers: DatasetCustomer[]; owned: number[][]; customerProducts: DatasetCustomerProduct[] } {
  const codes = new Set<string>();
  const customers: DatasetCustomer[] = CUSTOMERS.map(([name, country, , email], i) => {
    let code: string;
    do code = `C-${r.chars(8, UPPER_ALNUM)}`;
    while (codes.has(code));
    codes.add(code);
    return { id: i + 1, code, name, email, country, createdAt: iso(nowMs - r.int(745, 1500) * DAY - r.int(0, DAY - 1)) };
  });
  const owned: number[][] = customers.map((c) => {
    const all = PRODUCTS.map((_, pi) => pi);
    const byId = (a: number, b: number): number => a - b;
    if (c.id === 1) return [0, 3, ...r.sample([1, 2, 4], r.int(0, 1))].sort(byId);
    if (RESELLER_IDS.includes(c.id)) return r.sample(all, r.int(4, 5)).sort(byId);
    return r
      .sample(
        all,
        r.weighted([
          [1, 5],
          [2, 4],
          [3, 2],
        ] as const),
      )
      .sort(byId);
  });
  const customerProducts: DatasetCustomerProduct[] = owned.flatMap((ps, ci) => ps.map((pi) => ({ customerId: ci + 1, productId: pi + 1 })));
  return { customers, owned, customerProducts };
}
