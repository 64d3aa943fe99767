/**
 * Resource passwords at rest: sealed with AES-256-GCM under a key kept
 * outside the database — `LIC_SECRET_KEY` (32 bytes, base64 or hex), or a 0600 file beside
 * the database (`<db>.key`, made on first start). A copy of the database alone reveals no
 * password. Stored form: `enc:v1:` + base64(iv 12 bytes | tag 16 bytes | ciphertext).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, statSync, writeFileSync } from 'node:fs';
import { readFileBoundedSync, sizeLimitText } from '../bounded-read.js';
import type { Db } from './db.js';

const PREFIX = 'enc:v1:';
/** The key file beside the database may be this large (its key is 44 characters of base64). */
const MAX_KEY_FILE_BYTES = 4096;

/** The key is missing, malformed or not the one the database's passwords were sealed with. */
export class SecretKeyError extends Error {}

/** Seals and opens secrets with one 32-byte key. */
export interface SecretBox {
  /** plain text → stored form (`enc:v1:…`); "" stays "" (no password) */
  seal(plain: string): string;
  /** stored form → plain text; throws SecretKeyError when the key does not fit */
  open(stored: string): string;
}

/** A SecretBox over `key` (32 bytes). */
export function secretBox(key: Buffer): SecretBox {
  return {
    seal(plain) {
      if (plain === '') return '';
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return PREFIX + Buffer.concat([iv, c.getAuthTag(), body]).toString('base64');
    },
    open(stored) {
      if (!stored.startsWith(PREFIX)) return stored;
      const raw = Buffer.from(stored.slice(PREFIX.length), 'base64');
      try {
        const d = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
        d.setAuthTag(raw.subarray(12, 28));
        return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString('utf8');
      } catch {
        throw new SecretKeyError('a stored password cannot be opened with this key: it is not the key the database was sealed with');
      }
    },
  };
}

/** `LIC_SECRET_KEY`'s value (base64 or 64 hex digits) → 32 bytes; SecretKeyError otherwise. */
function keyFromText(text: string, from: string): Buffer {
  const t = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(t) ? Buffer.from(t, 'hex') : Buffer.from(t, 'base64');
  if (key.length !== 32)
    throw new SecretKeyError(`${from} must hold 32 bytes as base64 or 64 hex digits (make one with: openssl rand -base64 32)`);
  return key;
}

/** Where the key came from, for `lic serve`'s note. */
export interface SecretKeySource {
  kind: 'env' | 'file' | 'memory';
  /** the key file (kind file) */
  path?: string;
  /** the file was made on this start */
  created?: boolean;
}

/**
 * Opens the database's secret box: the key from `envKey` (LIC_SECRET_KEY) when given, else
 * from `<dbPath>.key` (made 0600 on first start; an existing one narrowed to 0600), else
 * for `:memory:` a key that lives as long as the process. Seals any password still stored
 * in plain text (older databases, seed data). Throws SecretKeyError when the database holds
 * sealed passwords but the key file is gone, or the key does not open them.
 */
export function openSecrets(db: Db, dbPath: string, envKey?: string): { box: SecretBox; source: SecretKeySource } {
  const sealed = db.prepare(`SELECT password FROM resources WHERE password LIKE '${PREFIX}%' LIMIT 1`).pluck().get() as string | undefined;
  let key: Buffer;
  let source: SecretKeySource;
  if (envKey) {
    key = keyFromText(envKey, 'LIC_SECRET_KEY');
    source = { kind: 'env' };
  } else if (dbPath === ':memory:' || dbPath === '') {
    key = randomBytes(32);
    source = { kind: 'memory' };
  } else {
    const path = `${dbPath}.key`;
    const mode = statSync(path, { throwIfNoEntry: false })?.mode;
    if (mode === undefined) {
      if (sealed) {
        throw new SecretKeyError(
          `the database ${dbPath} holds encrypted resource passwords but their key file ${path} is missing: restore it from your backup, or set LIC_SECRET_KEY`,
        );
      }
      key = randomBytes(32);
      writeFileSync(path, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
      source = { kind: 'file', path, created: true };
    } else {
      if ((mode & 0o077) !== 0) chmodSync(path, 0o600);
      // a key is 44 characters of base64: a bigger file is not one (and is never read whole)
      const bytes = readFileBoundedSync(path, MAX_KEY_FILE_BYTES);
      if (bytes.length > MAX_KEY_FILE_BYTES) {
        throw new SecretKeyError(`the key file ${path} is ${sizeLimitText(MAX_KEY_FILE_BYTES)}; it holds 32 bytes as base64 or hex`);
      }
      key = keyFromText(bytes.toString('utf8'), path);
      source = { kind: 'file', path };
    }
  }
  const box = secretBox(key);
  if (sealed) box.open(sealed); // the wrong key fails here, at start, not at some later write
  const plain = db.prepare(`SELECT id, password FROM resources WHERE password <> '' AND password NOT LIKE '${PREFIX}%'`).all() as {
    id: number;
    password: string;
  }[];
  if (plain.length) {
    const upd = db.prepare('UPDATE resources SET password = ? WHERE id = ?');
    db.transaction(() => plain.forEach((r) => upd.run(box.seal(r.password), r.id)))();
  }
  return { box, source };
}
