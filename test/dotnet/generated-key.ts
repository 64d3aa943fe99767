/**
 * Strong-name key blobs built from a fresh node:crypto RSA key, laid out as `sn -k`
 * (PRIVATEKEYBLOB) and `sn -p` (strong-name public key blob) write them, with the public
 * key token computed here by the rule (ECMA-335 II.6.2.1.3), for tests that must run
 * without ../shared/data.
 */
import { createHash, generateKeyPairSync } from 'node:crypto';

/** base64url big-endian (JWK) → little-endian bytes of exactly `n` bytes (CryptoAPI order). */
function le(b64url: string, n: number): Buffer {
  const be = Buffer.from(b64url, 'base64url');
  const out = Buffer.alloc(n);
  for (let i = 0; i < be.length; i++) out[i] = be[be.length - 1 - i]!;
  return out;
}

/** BLOBHEADER + RSAPUBKEY: `bType`, `magic`, the modulus size in bits, exponent 65537. */
function keyHeader(bType: number, alg: number, magic: string, bits: number): Buffer {
  const h = Buffer.alloc(20);
  h.writeUInt8(bType, 0);
  h.writeUInt8(2, 1);
  h.writeUInt32LE(alg, 4);
  h.write(magic, 8, 'ascii');
  h.writeUInt32LE(bits, 12);
  h.writeUInt32LE(65537, 16);
  return h;
}

/** A fresh RSA key of `bits`, as the three .snk layouts (built from its JWK, as `sn -k` / `sn -p` lay them out). */
export function generatedKey(bits: number) {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: bits, publicExponent: 65537 });
  const j = privateKey.export({ format: 'jwk' }) as Record<string, string>;
  const [full, half] = [bits / 8, bits / 16];
  const modulus = le(j.n!, full);
  const pair = Buffer.concat([
    keyHeader(0x07, 0x2400, 'RSA2', bits),
    modulus,
    le(j.p!, half),
    le(j.q!, half),
    le(j.dp!, half),
    le(j.dq!, half),
    le(j.qi!, half),
    le(j.d!, full),
  ]);
  const pub = Buffer.concat([keyHeader(0x06, 0x2400, 'RSA1', bits), modulus]);
  const wrapped = Buffer.alloc(12);
  wrapped.writeUInt32LE(0x2400, 0); // SigAlgID CALG_RSA_SIGN
  wrapped.writeUInt32LE(0x8004, 4); // HashAlgID CALG_SHA1
  wrapped.writeUInt32LE(pub.length, 8);
  const snPublic = Buffer.concat([wrapped, pub]);
  const digest = createHash('sha1').update(snPublic).digest();
  const token = Buffer.from(digest.subarray(12)).reverse().toString('hex');
  return { pair, pub, snPublic, token };
}
