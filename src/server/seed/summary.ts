/**
 * What a seeded database holds, in the few ids a first session needs (`lic serve --seed`
 * prints it): the Customer users' codes, a customer with orders, each product's latest
 * release and its license templates, and the span of the log. Read from the database,
 * so it is right for the demo and for any dataset file.
 */
import type { Db } from '../db.js';

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const n = (x: number) => x.toLocaleString('en-US');

/** Lines (no trailing newline) describing the seeded data with example commands; empty for an empty dataset. */
export function seededSummary(db: Db): string[] {
  const lines: string[] = [];
  const customers = db
    .prepare(
      `SELECT u.id AS userId, c.id AS id, c.code AS code, c.name AS name, (SELECT count(*) FROM orders o WHERE o.customer_id = c.id) AS orders
       FROM users u JOIN customers c ON c.code = u.customer_code WHERE u.role = 'Customer' ORDER BY c.id`,
    )
    .all() as { userId: string; id: number; code: string; name: string; orders: number }[];
  for (const c of customers) {
    lines.push(`customer id ${c.id}, code ${c.code}: ${c.name} (${n(c.orders)} orders)`);
    lines.push(`  lic orders list --customer ${c.id}`);
    lines.push(`  lic products list --customer ${c.code}   # with user ${c.userId}'s key`);
  }
  if (!customers.length) {
    const busiest = db
      .prepare('SELECT customer_id AS id, count(*) AS orders FROM orders GROUP BY customer_id ORDER BY orders DESC, customer_id LIMIT 1')
      .get() as { id: number; orders: number } | undefined;
    if (busiest) lines.push(`customer id ${busiest.id} (${n(busiest.orders)} orders): lic orders list --customer ${busiest.id}`);
  }
  const products = db
    .prepare(
      `SELECT p.id AS id, p.name AS name, r.id AS releaseId, r.version AS version,
              (SELECT group_concat(t.id, ' ') FROM license_templates t WHERE t.release_id = r.id) AS templates
       FROM products p JOIN releases r ON r.id = (SELECT id FROM releases WHERE product_id = p.id ORDER BY release_date DESC, id DESC LIMIT 1)
       ORDER BY p.id`,
    )
    .all() as { id: number; name: string; releaseId: number; version: string; templates: string | null }[];
  if (products.length) {
    lines.push('products (latest release; its license templates):');
    const width = Math.max(...products.map((p) => p.name.length));
    for (const p of products) {
      lines.push(
        `  --product ${p.id} --release ${String(p.releaseId).padEnd(3)} ${p.name.padEnd(width)} ${p.version}; templates ${p.templates ?? '(none)'}`,
      );
    }
    const first = products.find((p) => p.templates) ?? products[0]!;
    lines.push(`  lic templates list --product ${first.id} --release ${first.releaseId}`);
  }
  const log = db.prepare('SELECT count(*) AS count, min(time_stamp) AS first, max(time_stamp) AS last FROM log').get() as {
    count: number;
    first: number | null;
    last: number | null;
  };
  if (log.count && log.first !== null && log.last !== null) {
    lines.push(`log: ${n(log.count)} entries from ${day(log.first)} to ${day(log.last)}`);
    lines.push('  lic log list --since 7d');
  }
  return lines;
}
