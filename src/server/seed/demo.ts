/**
 * The built-in demo dataset of `lic serve --seed demo`: a fictitious component vendor
 * ("Halvard Software") with five products, their releases and license templates, twenty
 * customers around the world, two years of orders, four users (one per role) with a key
 * each, a signing key and e-mail templates, a few assemblies, and thirty days of license
 * transaction log. Everything is derived from (now, seed) by a seeded PRNG, so the same
 * inputs give the same dataset, byte for byte.
 *
 * The parts live in ./demo/: rng.ts (the seeded generator), catalogue.ts and
 * log-events.ts (the data tables), and one generator per kind of record. Each generator
 * draws from its own stream (`new Rng(seed, section)`), so a change to one section leaves
 * the others' data as it was.
 */
import type { Dataset } from './dataset.js';
import { makeAssemblies } from './demo/assemblies.js';
import { makeCustomers } from './demo/customers.js';
import { makeLog } from './demo/log.js';
import { makeOrders } from './demo/orders.js';
import { makeProducts } from './demo/products.js';
import { makeResources, signingKeyToken } from './demo/resources.js';
import { Rng } from './demo/rng.js';
import { makeUsers } from './demo/users.js';

/**
 * Builds the demo dataset relative to `now` (all timestamps at or before it): 5 products,
 * 16 releases, 1-3 license templates per release, 20 customers (codes `C-XXXXXXXX`) with
 * product links, 300 orders over the last 2 years, 4 users (one per wire role; the
 * Customer user belongs to customer 1, which owns 2+ products) with one key each
 * (permissions 7, secret generated at load), 4 resources (RSA/SNK signing key, two
 * html e-mail templates, an xml mapping file), 12 assemblies and 3000 log entries over
 * the last 30 days (license events, 600 in the last 24 h with every level present there,
 * and 150 management calls), oldest first.
 * Deterministic: the same (now, seed) give a deep-equal dataset; no Math.random, no clock.
 * The result passes parseDataset. Throws only on a non-finite `now`.
 */
export function buildDemoDataset(now: Date, seed = 1): Dataset {
  const nowMs = now.getTime();
  if (!Number.isFinite(nowMs)) throw new RangeError('buildDemoDataset: now is not a valid date');
  const rng = (section: string): Rng => new Rng(seed, section);

  const token = signingKeyToken();
  const resources = makeResources(nowMs, token);
  const { assemblies, byProduct } = makeAssemblies(rng('assemblies'), token);
  const { products, releases, licenseTemplates, releaseInfo } = makeProducts(rng('catalogue'), nowMs, byProduct, token);
  const { customers, owned, customerProducts } = makeCustomers(rng('customers'), nowMs);
  const { users, apiKeys } = makeUsers(customers[0]!.code);
  const market = { customers, owned, releaseInfo };
  const orders = makeOrders(rng('orders'), nowMs, market, users);
  const log = makeLog(rng('log'), nowMs, market, rng('audit'));

  return {
    users,
    apiKeys,
    customers,
    products,
    releases,
    licenseTemplates,
    customerProducts,
    orders,
    resources,
    assemblies,
    log,
  };
}
