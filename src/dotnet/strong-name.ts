/**
 * Strong-name keys (.NET `.snk` files) and their public key token.
 *
 * An `.snk` holds one of three layouts, all little-endian:
 *
 * - a key pair: a CryptoAPI PRIVATEKEYBLOB (`sn -k`): BLOBHEADER {bType 0x07, bVersion 2,
 *   reserved, aiKeyAlg}, RSAPUBKEY {magic "RSA2", bitlen, pubexp}, then modulus (bitlen/8
 *   bytes), prime1, prime2, exponent1, exponent2, coefficient (bitlen/16 each) and
 *   privateExponent (bitlen/8): 20 + 9·bitlen/16 bytes (596 for 1024 bits);
 * - a public key: a CryptoAPI PUBLICKEYBLOB: bType 0x06, magic "RSA1", then the modulus:
 *   20 + bitlen/8 bytes;
 * - a strong-name public key blob (`sn -p`, and what an assembly's metadata stores):
 *   SigAlgID, HashAlgID, cbPublicKey (u32 each), then cbPublicKey bytes of PUBLICKEYBLOB.
 *
 * Layouts: Microsoft Learn, "Base provider key BLOBs" (PUBLICKEYBLOB / PRIVATEKEYBLOB) and
 * the StrongNameSignatureGeneration docs; ECMA-335 6th ed. II.6.2.1.3 for the token. The
 * key-pair → public-blob rewrite follows Roslyn's CryptoBlobParser (SigAlgID CALG_RSA_SIGN,
 * HashAlgID CALG_SHA1, aiKeyAlg CALG_RSA_SIGN, magic "RSA1"), which is what `sn -p` writes.
 */
import { createHash } from 'node:crypto';

/** ALG_IDs (wincrypt.h). */
const CALG_RSA_SIGN = 0x2400;
const CALG_RSA_KEYX = 0xa400;
const CALG_SHA1 = 0x8004;
const PUBLICKEYBLOB = 0x06;
const PRIVATEKEYBLOB = 0x07;
const RSA1 = 0x31415352; // "RSA1": public key
const RSA2 = 0x32415352; // "RSA2": private key
/** BLOBHEADER (8) + RSAPUBKEY (12). */
const KEY_HEADER = 20;
/** SigAlgID + HashAlgID + cbPublicKey. */
const SN_HEADER = 12;
/** Modulus sizes accepted, in bits: CryptoAPI's RSA range (384..16384, whole bytes). */
const MIN_BITS = 384;
const MAX_BITS = 16384;

/**
 * The ECMA standard public key (ECMA-335 II.6.2.1.3): 16 bytes, no RSA key inside; the
 * runtime maps it to the platform key. Its token is b77a5c561934e089.
 */
const ECMA_KEY = Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0]);

/** What a strong-name key blob turned out to hold. */
export interface StrongNameKey {
  /** `keyPair` (PRIVATEKEYBLOB), `publicKey` (PUBLICKEYBLOB) or `publicKeyBlob` (already wrapped, as `sn -p` writes). */
  kind: 'keyPair' | 'publicKey' | 'publicKeyBlob';
  /** RSA modulus size in bits (e.g. 1024); undefined only for the ECMA standard key, which holds no RSA key. */
  keySize?: number;
  /** The strong-name PublicKeyBlob (SigAlgID, HashAlgID, cbPublicKey, PUBLICKEYBLOB): what an assembly's metadata stores. */
  publicKey: Uint8Array;
  /** 16 lowercase hex digits (publicKeyToken of `publicKey`). */
  publicKeyToken: string;
}

/** Thrown when bytes are not a strong-name key in any of the three layouts; the message says why. */
export class NotAStrongNameKeyError extends Error {
  override name = 'NotAStrongNameKeyError';
}

const hex = (n: number): string => `0x${n.toString(16)}`;

/**
 * The public key token of a strong-name public key blob (ECMA-335 II.6.2.1.3): the last
 * 8 bytes of its SHA-1, in reverse order, as 16 lowercase hex digits; '' for an empty blob
 * (an assembly that is not strong-named).
 */
export function publicKeyToken(publicKeyBlob: Uint8Array): string {
  if (publicKeyBlob.length === 0) return '';
  const digest = createHash('sha1').update(publicKeyBlob).digest();
  return Buffer.from(digest.subarray(digest.length - 8))
    .reverse()
    .toString('hex');
}

/** An unsigned little-endian integer of `bytes[off, off + n)` as a BigInt. */
function littleEndian(bytes: Uint8Array, off: number, n: number): bigint {
  let v = 0n;
  for (let i = off + n - 1; i >= off; i--) v = (v << 8n) | BigInt(bytes[i] as number);
  return v;
}

/**
 * Checks a BLOBHEADER + RSAPUBKEY at `off` and returns bitlen; throws with the reason.
 * `bType` and `magic` are the values the layout needs.
 */
function readKeyHeader(view: DataView, bType: number, magic: number, what: string): number {
  if (view.byteLength < KEY_HEADER)
    throw new NotAStrongNameKeyError(`${what} is ${view.byteLength} bytes, shorter than its 20-byte header`);
  const type = view.getUint8(0);
  if (type !== bType) throw new NotAStrongNameKeyError(`${what}: blob type ${hex(type)}, expected ${hex(bType)}`);
  const version = view.getUint8(1);
  if (version !== 2) throw new NotAStrongNameKeyError(`${what}: blob version ${version}, expected 2`);
  const alg = view.getUint32(4, true);
  if (alg !== CALG_RSA_SIGN && alg !== CALG_RSA_KEYX) {
    throw new NotAStrongNameKeyError(`${what}: key algorithm ${hex(alg)} is not RSA (CALG_RSA_SIGN 0x2400 or CALG_RSA_KEYX 0xa400)`);
  }
  const m = view.getUint32(8, true);
  if (m !== magic) {
    const text = String.fromCharCode(m & 0xff, (m >>> 8) & 0xff, (m >>> 16) & 0xff, (m >>> 24) & 0xff);
    throw new NotAStrongNameKeyError(`${what}: RSA magic ${JSON.stringify(text)}, expected "${magic === RSA1 ? 'RSA1' : 'RSA2'}"`);
  }
  const bits = view.getUint32(12, true);
  if (bits < MIN_BITS || bits > MAX_BITS || bits % 16 !== 0) {
    throw new NotAStrongNameKeyError(`${what}: a modulus of ${bits} bits (expected ${MIN_BITS}..${MAX_BITS}, a multiple of 16)`);
  }
  return bits;
}

/** The strong-name PublicKeyBlob for an RSA public key (Roslyn CryptoBlobParser.CreateSnPublicKeyBlob). */
function wrapPublicKey(aiKeyAlg: number, bits: number, pubexp: number, modulus: Uint8Array): Uint8Array {
  const out = new Uint8Array(SN_HEADER + KEY_HEADER + modulus.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, CALG_RSA_SIGN, true); // SigAlgID
  v.setUint32(4, CALG_SHA1, true); // HashAlgID
  v.setUint32(8, KEY_HEADER + modulus.length, true); // cbPublicKey
  v.setUint8(12, PUBLICKEYBLOB);
  v.setUint8(13, 2);
  v.setUint32(16, aiKeyAlg, true);
  v.setUint32(20, RSA1, true);
  v.setUint32(24, bits, true);
  v.setUint32(28, pubexp, true);
  out.set(modulus, SN_HEADER + KEY_HEADER);
  return out;
}

/**
 * Reads a strong-name key from the bytes of an `.snk` (or an assembly's public key):
 * a key pair (PRIVATEKEYBLOB, bType 0x07), a public key (PUBLICKEYBLOB, bType 0x06) or a
 * strong-name public key blob (SigAlgID, HashAlgID, cbPublicKey, PUBLICKEYBLOB; the ECMA
 * standard key too). Returns its kind, RSA key size in bits, strong-name public key blob
 * and public key token (ECMA-335 II.6.2.1.3). A key pair's public blob carries aiKeyAlg
 * CALG_RSA_SIGN and magic RSA1, as `sn -p` and Roslyn write it.
 *
 * @throws {NotAStrongNameKeyError} when the bytes are none of these (wrong type, magic or
 *   length, a modulus outside 384..16384 bits, or a key pair whose primes do not multiply
 *   to its modulus); never another error type for bad input.
 */
export function readStrongNameKey(bytes: Uint8Array): StrongNameKey {
  if (bytes.length === 0) throw new NotAStrongNameKeyError('the data is empty');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

  // Already wrapped: the header's cbPublicKey accounts for the rest exactly.
  if (bytes.length > SN_HEADER && view.getUint32(8, true) === bytes.length - SN_HEADER) {
    const token = publicKeyToken(bytes);
    if (bytes.length === ECMA_KEY.length && bytes.every((b, i) => b === ECMA_KEY[i])) {
      return { kind: 'publicKeyBlob', publicKey: bytes, publicKeyToken: token };
    }
    const inner = new DataView(bytes.buffer, bytes.byteOffset + SN_HEADER, bytes.byteLength - SN_HEADER);
    const bits = readKeyHeader(inner, PUBLICKEYBLOB, RSA1, 'the public key inside the strong-name blob');
    if (inner.byteLength !== KEY_HEADER + bits / 8) {
      throw new NotAStrongNameKeyError(
        `the public key inside the strong-name blob is ${inner.byteLength} bytes; a ${bits}-bit key takes ${KEY_HEADER + bits / 8}`,
      );
    }
    return { kind: 'publicKeyBlob', keySize: bits, publicKey: bytes, publicKeyToken: token };
  }

  const type = bytes[0];
  if (type !== PRIVATEKEYBLOB && type !== PUBLICKEYBLOB) {
    throw new NotAStrongNameKeyError(
      `the first byte is ${hex(type as number)}, expected 0x07 (a key pair) or 0x06 (a public key), and it is no strong-name public key blob either`,
    );
  }
  const pair = type === PRIVATEKEYBLOB;
  const what = pair ? 'the key pair (PRIVATEKEYBLOB)' : 'the public key (PUBLICKEYBLOB)';
  const bits = readKeyHeader(view, type, pair ? RSA2 : RSA1, what);
  const expected = KEY_HEADER + (pair ? (9 * bits) / 16 : bits / 8);
  if (bytes.length !== expected) {
    throw new NotAStrongNameKeyError(`${what} is ${bytes.length} bytes; a ${bits}-bit key takes ${expected}`);
  }
  const modulus = bytes.subarray(KEY_HEADER, KEY_HEADER + bits / 8);
  if (pair) {
    // prime1 · prime2 = modulus, or the blob is damaged (or not a key at all)
    const half = bits / 16;
    const n = littleEndian(bytes, KEY_HEADER, bits / 8);
    const p = littleEndian(bytes, KEY_HEADER + bits / 8, half);
    const q = littleEndian(bytes, KEY_HEADER + bits / 8 + half, half);
    if (p * q !== n) throw new NotAStrongNameKeyError(`${what} is damaged: its primes do not multiply to its modulus`);
  }
  const aiKeyAlg = pair ? CALG_RSA_SIGN : view.getUint32(4, true);
  const publicKey = wrapPublicKey(aiKeyAlg, bits, view.getUint32(16, true), modulus);
  return { kind: pair ? 'keyPair' : 'publicKey', keySize: bits, publicKey, publicKeyToken: publicKeyToken(publicKey) };
}
