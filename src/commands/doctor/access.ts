/**
 * What a key may do, found by reading only: one GET with `take=0` to every list endpoint
 * of the published API, each classified allowed/denied, and the owner's role inferred
 * from the set allowed (role lists: management-api.md "Endpoints", contract §3).
 */
import type { ApiClient } from '../../client/request.js';

/** The roles of the published API (contract §3). */
type Role = 'Administrator' | 'LicenseManager' | 'Sales' | 'Customer';

/** One list endpoint probed by doctor. */
export interface ProbeEndpoint {
  /** short name for the table: the noun of the CLI */
  name: string;
  path: string;
  query?: Record<string, number>;
  /** roles that may call it (management-api.md; /v1/api-keys: contract §3) */
  roles: Role[];
}

/** int32 max: an id no service has (contract §2: ids are positive int32). */
const NO_ID = 2147483647;

/**
 * Every list endpoint with its role list. Endpoints that need a path id are probed with
 * an id (or customer code) that can't exist: the service checks the key, role and
 * permission bit before it looks the id up, so 401/403 still mean denied and a 404
 * (or 200, or a 400 for the made-up code) means the call itself is allowed.
 * `products` takes no query (spec), `assemblies` none shown: take=0 is sent to every
 * endpoint that accepts rule 3, and a 400 for it would still count as allowed.
 */
export const PROBE_ENDPOINTS: ProbeEndpoint[] = [
  { name: 'keys', path: '/v1/api-keys', query: { take: 0 }, roles: ['Administrator'] },
  { name: 'resources', path: '/v1/resources', query: { take: 0 }, roles: ['Administrator', 'LicenseManager', 'Sales'] },
  { name: 'assemblies', path: '/v1/assemblies', query: { take: 0 }, roles: ['Administrator', 'LicenseManager'] },
  { name: 'log', path: '/v1/log', query: { take: 0 }, roles: ['Administrator', 'LicenseManager', 'Sales'] },
  { name: 'orders', path: `/v1/customers/${NO_ID}/orders`, query: { take: 0 }, roles: ['Administrator', 'Sales'] },
  {
    name: 'templates',
    path: `/v1/products/${NO_ID}/releases/${NO_ID}/license-templates`,
    query: { take: 0 },
    roles: ['Administrator', 'LicenseManager'],
  },
  { name: 'products', path: '/v1/customer/C-00000000/products', roles: ['Customer'] },
];

export type Access = 'allowed' | 'denied' | 'error';

/** One probe's outcome: the HTTP status (undefined: no reply) and what it means. */
export interface ProbeResult {
  endpoint: string;
  path: string;
  status?: number;
  access: Access;
  /** for `error`: the status or network failure in words */
  detail?: string;
}

/** HTTP status → access: 401/403 denied; 200, 400, 404 allowed (the call got past authorisation); anything else an error. */
export function classify(status: number): Access {
  if (status === 401 || status === 403) return 'denied';
  if (status === 200 || status === 400 || status === 404) return 'allowed';
  return 'error';
}

/** Probes `endpoints` with at most `concurrency` GETs at a time; never throws (a network failure is an `error` row). */
export async function probeAll(client: ApiClient, endpoints: ProbeEndpoint[], concurrency = 4): Promise<ProbeResult[]> {
  const results: ProbeResult[] = new Array(endpoints.length);
  let next = 0;
  const worker = async () => {
    while (next < endpoints.length) {
      const i = next++;
      const e = endpoints[i]!;
      try {
        const r = await client.probe(e.path, e.query);
        const access = classify(r.status);
        results[i] = {
          endpoint: e.name,
          path: e.path,
          status: r.status,
          access,
          ...(access === 'error' ? { detail: `HTTP ${r.status}` } : {}),
        };
      } catch (err) {
        results[i] = { endpoint: e.name, path: e.path, access: 'error', detail: (err as Error).message };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, endpoints.length) }, worker));
  return results;
}

/** What the table of results says about the key: the role whose endpoint set matches exactly, and whether Read is missing. */
export interface AccessVerdict {
  /** the owner's likely role; undefined when no role's set matches (or nothing is allowed) */
  role?: Role;
  /** false when every endpoint was denied with a key the service accepted: GET needs Read (1) */
  readBit: boolean;
  allowed: string[];
}

/**
 * Infers the role from the allowed set (an exact match with one role's endpoints, per
 * PROBE_ENDPOINTS' role lists). All denied = the Read bit is missing (every role may
 * call at least one list endpoint, so a role alone can't deny everything).
 */
export function inferAccess(results: ProbeResult[], endpoints: ProbeEndpoint[] = PROBE_ENDPOINTS): AccessVerdict {
  const allowed = results.filter((r) => r.access === 'allowed').map((r) => r.endpoint);
  const readBit = !results.every((r) => r.access === 'denied');
  const roles: Role[] = ['Administrator', 'LicenseManager', 'Sales', 'Customer'];
  const key = (names: string[]) => [...names].sort().join(',');
  const role = allowed.length
    ? roles.find((role) => key(endpoints.filter((e) => e.roles.includes(role)).map((e) => e.name)) === key(allowed))
    : undefined;
  return { role, readBit, allowed };
}
