/**
 * A request body serialised for sending. Small bodies are JSON.stringify's string; a body
 * holding a long string (a resource's data: up to 9.4 MiB of base64, contract §2) is built
 * straight into one Buffer, since undici copies a string body into a Buffer before sending
 * it, and JSON.stringify would first copy the long string once more: one copy instead of three.
 */

/** Strings at least this long (characters) are written into the Buffer directly. */
const LONG = 64 * 1024;

/** Printable ASCII without `"` and `\`: what JSON writes as is (base64 is all of it). */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** How JSON.stringify writes the string "\0", which stands for a long string in the text. */
const MARK = '"\\u0000"';

/**
 * `body` as JSON: the same text JSON.stringify gives, as a string, or as UTF-8 bytes when the
 * body holds a string of LONG characters or more made of PLAIN characters only (each such
 * string is copied into the bytes as they are, without an intermediate JSON string).
 */
export function jsonBody(body: unknown): string | Buffer {
  const long: string[] = [];
  // each long string stands as "\u0000" in the text, then is put back in the bytes
  const text = JSON.stringify(body, (_k, v: unknown) => {
    if (typeof v === 'string' && v.length >= LONG && PLAIN.test(v)) {
      long.push(v);
      return '\0';
    }
    return v;
  });
  if (long.length === 0) return text;
  const parts = text.split(MARK);
  // the body's own "\0" strings (or keys) would be taken for a marker: then the plain way
  if (parts.length !== long.length + 1) return JSON.stringify(body);
  const size = parts.reduce((n, p) => n + Buffer.byteLength(p), 0) + long.reduce((n, s) => n + s.length + 2, 0);
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  parts.forEach((p, i) => {
    at += out.write(p, at, 'utf8');
    if (i < long.length) {
      out[at++] = 0x22;
      at += out.write(long[i]!, at, 'latin1');
      out[at++] = 0x22;
    }
  });
  return out;
}
