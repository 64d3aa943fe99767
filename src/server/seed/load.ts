/**
 * Loads a validated seed Dataset into the service database (schema: ../migrations.ts):
 * camelCase → snake_case columns, RFC 3339 → INTEGER ms, '' optional timestamps → NULL,
 * booleans → 0/1, base64 → BLOB, JSON arrays → TEXT.
 */
import type { Db } from '../db.js';
import type { Role } from '../../wire.js';
import { parseRfc3339 } from '../../time.js';
import type { Dataset } from './dataset.js';

/** What `loadDataset` needs besides the data. */
export interface LoadOptions {
  /** Load time: created_at of users and API keys, and of resources without timestamps. */
  now: Date;
  /** Full key → stored hash (the service's SHA-256 hex, contract §3). */
  hashKey: (key: string) => string;
  /** A new full key (`api_` + 24 of [a-z0-9] from a CSPRNG), for keys without `key`. */
  generateKey: () => string;
  /** Plain resource password → its stored (sealed) form (secrets.ts); absent: stored as given. */
  sealSecret?: (plain: string) => string;
}

/** An installed API key with its full secret, for printing once. */
export interface LoadedKey {
  /** Row id in api_keys. */
  id: number;
  userId: string;
  role: Role;
  name: string;
  key: string;
}

/** Ms since the epoch of a required RFC 3339 timestamp (validated by parseDataset). */
function ms(text: string): number {
  const v = parseRfc3339(text, { dateTimeOnly: true });
  if (v === undefined) throw new Error(`not an RFC 3339 timestamp: ${JSON.stringify(text)}`);
  return v;
}

/** Ms since the epoch, or NULL for '' / absent. */
function msOrNull(text: string | null | undefined): number | null {
  return text === undefined || text === null || text === '' ? null : ms(text);
}

/**
 * Inserts every record of `dataset` (which should have passed parseDataset) into `db` in
 * ONE transaction: if any insert throws (e.g. a UNIQUE or FOREIGN KEY violation against
 * rows already there), the whole load is rolled back and the error rethrown, so the
 * database is left as it was. Resources with an explicit id go in before those without,
 * whose ids SQLite assigns; log entries get ids in array order. API keys: stores
 * `hashKey(key)` and the first 8 characters as key_prefix, using the dataset's `key` or
 * `generateKey()`; returns the full keys, in dataset order, so the caller can show them
 * once (contract §3). Users' and keys' created_at is `opts.now`.
 */
export function loadDataset(db: Db, dataset: Dataset, opts: LoadOptions): { keys: LoadedKey[] } {
  const now = opts.now.getTime();
  const run = db.transaction((): LoadedKey[] => {
    const insResource = db.prepare(
      `INSERT INTO resources (id, name, type, code, description, source, password, created_at, updated_at, data, data_format)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const resources = dataset.resources ?? [];
    for (const r of [...resources.filter((x) => x.id !== undefined), ...resources.filter((x) => x.id === undefined)]) {
      const created = r.createdAt === undefined ? now : ms(r.createdAt);
      const updated = r.updatedAt === undefined ? created : ms(r.updatedAt);
      insResource.run(
        r.id ?? null,
        r.name,
        r.type,
        r.code,
        r.description,
        r.source,
        opts.sealSecret ? opts.sealSecret(r.password) : r.password,
        created,
        updated,
        Buffer.from(r.data, 'base64'),
        r.dataFormat,
      );
    }

    const insAssembly = db.prepare(
      `INSERT INTO assemblies (id, name, version, culture, public_key_token, mapping_file_id, debug_symbols_key)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const a of dataset.assemblies ?? []) {
      insAssembly.run(a.id, a.name, a.version, a.culture, a.publicKeyToken, a.mappingFileId, a.debugSymbolsKey);
    }

    const insCustomer = db.prepare('INSERT INTO customers (id, code, name, email, country, created_at) VALUES (?, ?, ?, ?, ?, ?)');
    for (const c of dataset.customers ?? []) insCustomer.run(c.id, c.code, c.name, c.email, c.country, ms(c.createdAt));

    const insProduct = db.prepare(
      `INSERT INTO products (id, code, name, description, url, copyright, created_at, image, price, reseller_price, currency, signature_keys_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const p of dataset.products ?? []) {
      insProduct.run(
        p.id,
        p.code,
        p.name,
        p.description,
        p.url,
        p.copyright,
        ms(p.createdAt),
        p.image,
        p.price,
        p.resellerPrice,
        p.currency,
        p.signatureKeysId,
      );
    }

    const insRelease = db.prepare('INSERT INTO releases (id, product_id, version, name, release_date) VALUES (?, ?, ?, ?, ?)');
    for (const r of dataset.releases ?? []) insRelease.run(r.id, r.productId, r.version, r.name, msOrNull(r.releaseDate));

    const insTemplate = db.prepare(
      `INSERT INTO license_templates (id, product_id, release_id, name, code, format, license_file_name, generate_key_info,
         description, template, signature_keys_id, components, assemblies, fields, features, restrictions)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const t of dataset.licenseTemplates ?? []) {
      insTemplate.run(
        t.id,
        t.productId,
        t.releaseId,
        t.name,
        t.code,
        t.format,
        t.licenseFileName,
        t.generateKeyInfo ? 1 : 0,
        t.description,
        t.template,
        t.signatureKeysId,
        JSON.stringify(t.components),
        JSON.stringify(t.assemblies),
        JSON.stringify(t.fields),
        JSON.stringify(t.features),
        JSON.stringify(t.restrictions),
      );
    }

    const insLink = db.prepare('INSERT INTO customer_products (customer_id, product_id) VALUES (?, ?)');
    for (const cp of dataset.customerProducts ?? []) insLink.run(cp.customerId, cp.productId);

    const insOrder = db.prepare(
      `INSERT INTO orders (id, order_number, status, processed_by, purchase_order, total, currency, created_at, updated_at,
         invoice_number, payment_type, payment_number, payment_status, payment_date, description, customer_id, reseller_id, created_by_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const o of dataset.orders ?? []) {
      insOrder.run(
        o.id,
        o.orderNumber,
        o.status,
        o.processedBy,
        o.purchaseOrder,
        o.total,
        o.currency,
        ms(o.createdAt),
        ms(o.updatedAt),
        o.invoiceNumber,
        o.paymentType,
        o.paymentNumber,
        o.paymentStatus,
        msOrNull(o.paymentDate),
        o.description,
        o.customerId,
        o.resellerId,
        o.createdById,
      );
    }

    const insUser = db.prepare('INSERT INTO users (id, name, email, role, customer_code, created_at) VALUES (?, ?, ?, ?, ?, ?)');
    const roles = new Map<string, Role>();
    for (const u of dataset.users) {
      insUser.run(u.id, u.name, u.email, u.role, u.customerCode ?? null, now);
      roles.set(u.id, u.role);
    }

    const insKey = db.prepare(
      `INSERT INTO api_keys (name, owner_id, permissions, description, created_at, expire_date, revoked, key_prefix, key_hash)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const keys: LoadedKey[] = [];
    for (const k of dataset.apiKeys ?? []) {
      const key = k.key ?? opts.generateKey();
      const info = insKey.run(
        k.name,
        k.ownerId,
        k.permissions,
        k.description ?? '',
        now,
        msOrNull(k.expireDate),
        k.revoked ? 1 : 0,
        key.slice(0, 8),
        opts.hashKey(key),
      );
      const role = roles.get(k.ownerId);
      if (role === undefined) throw new Error(`API key ${JSON.stringify(k.name)}: no user with id ${JSON.stringify(k.ownerId)}`);
      keys.push({ id: Number(info.lastInsertRowid), userId: k.ownerId, role, name: k.name, key });
    }

    const insLog = db.prepare(
      `INSERT INTO log (time_stamp, level, message, message_template, exception, properties) VALUES (?, ?, ?, ?, ?, ?)`,
    );
    for (const e of dataset.log ?? []) {
      insLog.run(ms(e.timeStamp), e.level, e.message, e.messageTemplate, e.exception ?? '', e.properties ?? '');
    }
    return keys;
  });
  return { keys: run() };
}

/**
 * True when the database has no users, i.e. no key could ever authenticate: the state in
 * which `lic serve --seed` loads its dataset. Reads only the users table.
 */
export function isDatabaseEmpty(db: Db): boolean {
  return db.prepare('SELECT 1 FROM users LIMIT 1').get() === undefined;
}
