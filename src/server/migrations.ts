/**
 * Versioned schema migrations of the local service's SQLite database. Each entry runs
 * once, in order, inside a transaction; `PRAGMA user_version` records how many ran.
 * Never edit a shipped migration: append a new one.
 *
 * Conventions: timestamps are INTEGER milliseconds since the Unix epoch (UTC), NULL when
 * unset; booleans are 0/1; absent strings are ''.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: users, API keys, the log
  `
  CREATE TABLE users (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL DEFAULT '',
    email         TEXT NOT NULL DEFAULT '',
    role          TEXT NOT NULL CHECK (role IN ('Administrator','LicenseManager','Sales','Customer')),
    customer_code TEXT,
    created_at    INTEGER NOT NULL
  );
  CREATE TABLE api_keys (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    name        TEXT NOT NULL DEFAULT '',
    owner_id    TEXT NOT NULL REFERENCES users(id),
    permissions INTEGER NOT NULL CHECK (permissions BETWEEN 0 AND 7),
    description TEXT NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL,
    expire_date INTEGER,
    revoked     INTEGER NOT NULL DEFAULT 0,
    key_prefix  TEXT NOT NULL,
    key_hash    TEXT NOT NULL UNIQUE
  );
  CREATE TABLE log (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    time_stamp       INTEGER NOT NULL,
    level            TEXT NOT NULL,
    message          TEXT NOT NULL DEFAULT '',
    message_template TEXT NOT NULL DEFAULT '',
    exception        TEXT NOT NULL DEFAULT '',
    properties       TEXT NOT NULL DEFAULT ''
  );
  -- serves the default sort (TimeStamp desc, Id desc) and time ranges
  CREATE INDEX log_time ON log (time_stamp, id);
  -- serves level filters with a time range or the default sort
  CREATE INDEX log_level_time ON log (level, time_stamp, id);
  `,
  // 2: the other nouns: resources, assemblies, and the read-only dataset
  `
  CREATE TABLE resources (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    name        TEXT NOT NULL UNIQUE,
    type        TEXT NOT NULL DEFAULT '',
    code        TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL DEFAULT '',
    source      TEXT NOT NULL DEFAULT '',
    password    TEXT NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    data        BLOB NOT NULL DEFAULT x'',
    data_format TEXT NOT NULL DEFAULT ''
  );
  CREATE UNIQUE INDEX resources_code ON resources (code) WHERE code <> '';
  CREATE TABLE assemblies (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    name              TEXT NOT NULL,
    version           TEXT NOT NULL DEFAULT '',
    culture           TEXT NOT NULL DEFAULT '',
    public_key_token  TEXT NOT NULL DEFAULT '',
    mapping_file_id   INTEGER NOT NULL DEFAULT 0,
    debug_symbols_key TEXT NOT NULL DEFAULT '',
    UNIQUE (name, version, culture, public_key_token)
  );
  CREATE TABLE customers (
    id         INTEGER PRIMARY KEY,
    code       TEXT NOT NULL UNIQUE,
    name       TEXT NOT NULL DEFAULT '',
    email      TEXT NOT NULL DEFAULT '',
    country    TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL
  );
  CREATE TABLE products (
    id                INTEGER PRIMARY KEY,
    code              TEXT NOT NULL UNIQUE,
    name              TEXT NOT NULL DEFAULT '',
    description       TEXT NOT NULL DEFAULT '',
    url               TEXT NOT NULL DEFAULT '',
    copyright         TEXT NOT NULL DEFAULT '',
    created_at        INTEGER NOT NULL,
    image             TEXT NOT NULL DEFAULT '',
    price             REAL NOT NULL DEFAULT 0,
    reseller_price    REAL NOT NULL DEFAULT 0,
    currency          TEXT NOT NULL DEFAULT '',
    signature_keys_id INTEGER NOT NULL DEFAULT 0
  );
  CREATE TABLE releases (
    id           INTEGER PRIMARY KEY,
    product_id   INTEGER NOT NULL REFERENCES products(id),
    version      TEXT NOT NULL DEFAULT '',
    name         TEXT NOT NULL DEFAULT '',
    release_date INTEGER
  );
  CREATE INDEX releases_product ON releases (product_id);
  CREATE TABLE license_templates (
    id                INTEGER PRIMARY KEY,
    product_id        INTEGER NOT NULL REFERENCES products(id),
    release_id        INTEGER NOT NULL REFERENCES releases(id),
    name              TEXT NOT NULL DEFAULT '',
    code              TEXT NOT NULL DEFAULT '',
    format            TEXT NOT NULL DEFAULT 'Xml',
    license_file_name TEXT NOT NULL DEFAULT '',
    generate_key_info INTEGER NOT NULL DEFAULT 0,
    description       TEXT NOT NULL DEFAULT '',
    template          TEXT NOT NULL DEFAULT '',
    signature_keys_id INTEGER NOT NULL DEFAULT 0,
    -- JSON arrays, stored as text: components, assemblies, fields, features, restrictions
    components        TEXT NOT NULL DEFAULT '[]',
    assemblies        TEXT NOT NULL DEFAULT '[]',
    fields            TEXT NOT NULL DEFAULT '[]',
    features          TEXT NOT NULL DEFAULT '[]',
    restrictions      TEXT NOT NULL DEFAULT '[]'
  );
  CREATE INDEX license_templates_release ON license_templates (product_id, release_id, id);
  CREATE TABLE customer_products (
    customer_id INTEGER NOT NULL REFERENCES customers(id),
    product_id  INTEGER NOT NULL REFERENCES products(id),
    PRIMARY KEY (customer_id, product_id)
  );
  CREATE TABLE orders (
    id             INTEGER PRIMARY KEY,
    order_number   TEXT NOT NULL UNIQUE,
    status         TEXT NOT NULL DEFAULT '',
    processed_by   TEXT NOT NULL DEFAULT '',
    purchase_order TEXT NOT NULL DEFAULT '',
    total          REAL NOT NULL DEFAULT 0,
    currency       TEXT NOT NULL DEFAULT '',
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    invoice_number TEXT NOT NULL DEFAULT '',
    payment_type   TEXT NOT NULL DEFAULT '',
    payment_number TEXT NOT NULL DEFAULT '',
    payment_status TEXT NOT NULL DEFAULT '',
    payment_date   INTEGER,
    description    TEXT NOT NULL DEFAULT '',
    customer_id    INTEGER NOT NULL REFERENCES customers(id),
    reseller_id    INTEGER NOT NULL DEFAULT 0,
    created_by_id  TEXT NOT NULL DEFAULT ''
  );
  CREATE INDEX orders_customer ON orders (customer_id, id);
  `,
  // 3: the log built for size. Exact counts kept by triggers, so the total of a
  // page (contract §5) need not count a million rows; an index for paging a level by id.
  // The hour of a time stamp is floor(time_stamp / 3600000), written with integer
  // arithmetic (SQLite's / truncates toward zero) so it needs no math functions.
  `
  -- entries: count(*) of log; version: +1 on every insert, update and delete of a log row,
  -- so a total cached while the version is unchanged is still exact (server/log/totals.ts)
  CREATE TABLE log_stats (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    entries INTEGER NOT NULL,
    version INTEGER NOT NULL
  );
  -- entries per hour and level: the count of a level and/or a time range sums whole hours
  -- and counts rows only in the partial hours at its two ends (server/log/totals.ts)
  CREATE TABLE log_counts (
    hour    INTEGER NOT NULL,
    level   TEXT NOT NULL,
    entries INTEGER NOT NULL,
    PRIMARY KEY (hour, level)
  ) WITHOUT ROWID;
  INSERT INTO log_stats (id, entries, version) SELECT 1, count(*), 0 FROM log;
  INSERT INTO log_counts (hour, level, entries)
    SELECT time_stamp / 3600000 - (time_stamp % 3600000 < 0), level, count(*) FROM log GROUP BY 1, 2;
  CREATE TRIGGER log_count_insert AFTER INSERT ON log BEGIN
    UPDATE log_stats SET entries = entries + 1, version = version + 1;
    INSERT INTO log_counts (hour, level, entries)
      VALUES (NEW.time_stamp / 3600000 - (NEW.time_stamp % 3600000 < 0), NEW.level, 1)
      ON CONFLICT (hour, level) DO UPDATE SET entries = entries + 1;
  END;
  CREATE TRIGGER log_count_delete AFTER DELETE ON log BEGIN
    UPDATE log_stats SET entries = entries - 1, version = version + 1;
    UPDATE log_counts SET entries = entries - 1
      WHERE hour = OLD.time_stamp / 3600000 - (OLD.time_stamp % 3600000 < 0) AND level = OLD.level;
  END;
  CREATE TRIGGER log_count_update AFTER UPDATE ON log BEGIN
    UPDATE log_stats SET version = version + 1;
    UPDATE log_counts SET entries = entries - 1
      WHERE hour = OLD.time_stamp / 3600000 - (OLD.time_stamp % 3600000 < 0) AND level = OLD.level;
    INSERT INTO log_counts (hour, level, entries)
      VALUES (NEW.time_stamp / 3600000 - (NEW.time_stamp % 3600000 < 0), NEW.level, 1)
      ON CONFLICT (hour, level) DO UPDATE SET entries = entries + 1;
  END;
  -- (level, rowid) implicitly: a level paged by id, Level = "x" and Id < n sorted by Id (lic log list --all)
  CREATE INDEX log_level ON log (level);
  `,
  // 4: keys are found by their public prefix, then their hashes compared in constant time (auth.ts)
  `
  CREATE INDEX api_keys_prefix ON api_keys (key_prefix);
  `,
  // 5: the log in time partitions (server/log/parts.ts): one table per UTC day of writing, so a
  // purge by date drops whole tables; each with a trigram full-text index of its messages for
  // Contains (server/log/fts.ts). The log of before becomes partition 1 as it is (renamed, not
  // copied: an upgrade takes no time); its full-text index is filled in the background. `log`
  // becomes a view over the partitions, with INSTEAD OF triggers, so SQL written against the
  // table keeps working. The counts gain the partition, so a dropped partition's counts go with it.
  `
  -- the partitions: the newest is the head, which receives new entries. opened: the UTC day
  -- (ms / 86400000) it was opened for, NULL until its first write; fts_upto: entries with
  -- id <= fts_upto are in its full-text index, later ones not yet; lo, hi: no entry of it has
  -- a time stamp outside [lo, hi] (the least and greatest ever written to it; NULL: none),
  -- nor an id outside [id_lo, id_hi]; version: +1 on every insert, update and delete of one of
  -- its entries, so a count of an unchanged partition can be reused (server/log/parts.ts)
  CREATE TABLE log_parts (
    part     INTEGER PRIMARY KEY,
    opened   INTEGER,
    fts_upto INTEGER NOT NULL DEFAULT 0,
    lo       INTEGER,
    hi       INTEGER,
    id_lo    INTEGER,
    id_hi    INTEGER,
    version  INTEGER NOT NULL DEFAULT 0
  );
  -- tables of partitions taken out of the log by a purge, still to be dropped
  CREATE TABLE log_drops (name TEXT PRIMARY KEY) WITHOUT ROWID;
  DROP TRIGGER log_count_insert;
  DROP TRIGGER log_count_delete;
  DROP TRIGGER log_count_update;
  ALTER TABLE log RENAME TO log_p1;
  -- the highest id ever issued: new entries get the next (AUTOINCREMENT across partitions)
  ALTER TABLE log_stats ADD COLUMN last_id INTEGER NOT NULL DEFAULT 0;
  UPDATE log_stats SET last_id = max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'log_p1'), 0),
                                     coalesce((SELECT max(id) FROM log_p1), 0));
  CREATE TABLE log_counts_by_part (
    hour    INTEGER NOT NULL,
    level   TEXT NOT NULL,
    part    INTEGER NOT NULL,
    entries INTEGER NOT NULL,
    PRIMARY KEY (hour, level, part)
  ) WITHOUT ROWID;
  INSERT INTO log_counts_by_part (hour, level, part, entries) SELECT hour, level, 1, entries FROM log_counts;
  DROP TABLE log_counts;
  ALTER TABLE log_counts_by_part RENAME TO log_counts;
  CREATE INDEX log_counts_part ON log_counts (part);
  INSERT INTO log_parts (part, opened, fts_upto, lo, hi, id_lo, id_hi)
    SELECT 1, (SELECT max(time_stamp) / 86400000 - (max(time_stamp) % 86400000 < 0) FROM log_p1), 0,
           (SELECT min(time_stamp) FROM log_p1), (SELECT max(time_stamp) FROM log_p1), (SELECT min(id) FROM log_p1), (SELECT max(id) FROM log_p1);
  CREATE VIRTUAL TABLE log_p1_fts USING fts5(message, content='', contentless_delete=1, tokenize='trigram case_sensitive 1');
  CREATE TRIGGER log_p1_insert AFTER INSERT ON log_p1 BEGIN
    UPDATE log_stats SET entries = entries + 1, version = version + 1, last_id = max(last_id, NEW.id);
    INSERT INTO log_counts (hour, level, part, entries) VALUES (NEW.time_stamp / 3600000 - (NEW.time_stamp % 3600000 < 0), NEW.level, 1, 1)
      ON CONFLICT (hour, level, part) DO UPDATE SET entries = entries + 1;
    UPDATE log_parts SET lo = min(coalesce(lo, NEW.time_stamp), NEW.time_stamp), hi = max(coalesce(hi, NEW.time_stamp), NEW.time_stamp),
      id_lo = min(coalesce(id_lo, NEW.id), NEW.id), id_hi = max(coalesce(id_hi, NEW.id), NEW.id), version = version + 1 WHERE part = 1;
    INSERT INTO log_p1_fts (rowid, message) SELECT NEW.id, NEW.message WHERE NEW.id <= (SELECT fts_upto FROM log_parts WHERE part = 1);
  END;
  CREATE TRIGGER log_p1_delete AFTER DELETE ON log_p1 BEGIN
    UPDATE log_stats SET entries = entries - 1, version = version + 1;
    UPDATE log_counts SET entries = entries - 1
      WHERE hour = OLD.time_stamp / 3600000 - (OLD.time_stamp % 3600000 < 0) AND level = OLD.level AND part = 1;
    UPDATE log_parts SET version = version + 1 WHERE part = 1;
    DELETE FROM log_p1_fts WHERE rowid = (SELECT OLD.id WHERE OLD.id <= (SELECT fts_upto FROM log_parts WHERE part = 1));
  END;
  CREATE TRIGGER log_p1_update AFTER UPDATE ON log_p1 BEGIN
    UPDATE log_stats SET version = version + 1, last_id = max(last_id, NEW.id);
    UPDATE log_counts SET entries = entries - 1
      WHERE hour = OLD.time_stamp / 3600000 - (OLD.time_stamp % 3600000 < 0) AND level = OLD.level AND part = 1;
    INSERT INTO log_counts (hour, level, part, entries) VALUES (NEW.time_stamp / 3600000 - (NEW.time_stamp % 3600000 < 0), NEW.level, 1, 1)
      ON CONFLICT (hour, level, part) DO UPDATE SET entries = entries + 1;
    UPDATE log_parts SET lo = min(coalesce(lo, NEW.time_stamp), NEW.time_stamp), hi = max(coalesce(hi, NEW.time_stamp), NEW.time_stamp),
      id_lo = min(coalesce(id_lo, NEW.id), NEW.id), id_hi = max(coalesce(id_hi, NEW.id), NEW.id), version = version + 1 WHERE part = 1;
    DELETE FROM log_p1_fts WHERE rowid = (SELECT OLD.id WHERE OLD.id <= (SELECT fts_upto FROM log_parts WHERE part = 1));
    INSERT INTO log_p1_fts (rowid, message) SELECT NEW.id, NEW.message WHERE NEW.id <= (SELECT fts_upto FROM log_parts WHERE part = 1);
  END;
  CREATE VIEW log AS SELECT id, time_stamp, level, message, message_template, exception, properties FROM log_p1;
  CREATE TRIGGER log_view_insert INSTEAD OF INSERT ON log BEGIN
    INSERT INTO log_p1 (id, time_stamp, level, message, message_template, exception, properties) VALUES (coalesce(NEW.id, (SELECT last_id FROM log_stats) + 1), NEW.time_stamp, NEW.level,
      coalesce(NEW.message, ''), coalesce(NEW.message_template, ''), coalesce(NEW.exception, ''), coalesce(NEW.properties, ''));
  END;
  CREATE TRIGGER log_view_update INSTEAD OF UPDATE ON log BEGIN
    UPDATE log_p1 SET id = NEW.id, time_stamp = NEW.time_stamp, level = NEW.level, message = NEW.message, message_template = NEW.message_template, exception = NEW.exception, properties = NEW.properties WHERE id = OLD.id;
  END;
  CREATE TRIGGER log_view_delete INSTEAD OF DELETE ON log BEGIN
    DELETE FROM log_p1 WHERE id = OLD.id;
  END;
  `,
];
