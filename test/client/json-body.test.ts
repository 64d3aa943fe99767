/**
 * jsonBody: a request body with a resource's data (MiBs of base64) is built as bytes without
 * the intermediate JSON string, and is exactly what JSON.stringify would have sent.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { jsonBody } from '../../src/client/json-body.js';

const text = (b: string | Buffer) => (Buffer.isBuffer(b) ? b.toString('utf8') : b);
const base64 = randomBytes(3 * 1024 * 1024).toString('base64');

describe('jsonBody', () => {
  it('a small body: JSON.stringify’s string', () => {
    const body = { resource: { name: 'Welcome "mail" é', data: 'PGgxPg==', n: null, when: new Date(0) } };
    expect(jsonBody(body)).toBe(JSON.stringify(body));
  });

  it('a body with MiBs of base64: bytes, equal to JSON.stringify’s text, other fields escaped as usual', () => {
    const body = { resource: { name: 'Key "prod" — ü', code: 'k\n1', data: base64, other: [base64, 'x'] } };
    const out = jsonBody(body);
    expect(Buffer.isBuffer(out)).toBe(true);
    expect(text(out)).toBe(JSON.stringify(body));
    expect(JSON.parse(text(out)).resource.data).toBe(base64);
  });

  it('a long string JSON must escape (quotes, backslashes, non-ASCII) is left to JSON.stringify', () => {
    const body = { resource: { description: `${'a'.repeat(70_000)}"\\ü` } };
    expect(text(jsonBody(body))).toBe(JSON.stringify(body));
  });

  it('a body whose own strings or keys read like the marker ("\\u0000") is sent as JSON.stringify writes it', () => {
    for (const body of [
      { resource: { code: '\0', data: base64 } },
      { '\0': 1, resource: { data: base64 } },
      { resource: { name: 'a"\\u0000"b', data: base64 } },
    ]) {
      expect(text(jsonBody(body))).toBe(JSON.stringify(body));
    }
  });
});
