import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readAssemblyIdentity } from '../../src/dotnet/assembly-identity.js';
import { NotAStrongNameKeyError, publicKeyToken, readStrongNameKey } from '../../src/dotnet/strong-name.js';
import { buildDemoDataset } from '../../src/server/seed/demo.js';
import { SHARED_DATA } from '../helpers/shared-data.js';
import { generatedKey } from './generated-key.js';

function reason(bytes: Uint8Array): string {
  try {
    readStrongNameKey(bytes);
  } catch (e) {
    expect(e).toBeInstanceOf(NotAStrongNameKeyError);
    return (e as Error).message;
  }
  throw new Error('expected NotAStrongNameKeyError');
}

describe('the strong-name rule on generated keys', () => {
  const k1024 = generatedKey(1024);

  it('a key pair (PRIVATEKEYBLOB) → keyPair, 1024 bits, the sn -p public blob and its SHA-1 token (last 8 bytes reversed)', () => {
    expect(k1024.pair.length).toBe(596); // the size of every 1024-bit .snk
    const k = readStrongNameKey(k1024.pair);
    expect(k.kind).toBe('keyPair');
    expect(k.keySize).toBe(1024);
    expect(Buffer.from(k.publicKey).equals(k1024.snPublic)).toBe(true);
    expect(k.publicKeyToken).toBe(k1024.token);
    expect(k.publicKeyToken).toMatch(/^[0-9a-f]{16}$/);
  });

  it('the public key alone (PUBLICKEYBLOB) and the wrapped strong-name blob give the same token', () => {
    const pub = readStrongNameKey(k1024.pub);
    expect(pub).toMatchObject({ kind: 'publicKey', keySize: 1024, publicKeyToken: k1024.token });
    const wrapped = readStrongNameKey(k1024.snPublic);
    expect(wrapped).toMatchObject({ kind: 'publicKeyBlob', keySize: 1024, publicKeyToken: k1024.token });
    expect(publicKeyToken(k1024.snPublic)).toBe(k1024.token);
  });

  it('a key pair whose aiKeyAlg is CALG_RSA_KEYX still gets the CALG_RSA_SIGN public blob (as sn -p writes it)', () => {
    const keyx = Buffer.from(k1024.pair);
    keyx.writeUInt32LE(0xa400, 4);
    expect(readStrongNameKey(keyx).publicKeyToken).toBe(k1024.token);
  });

  it('a 2048-bit key pair: 1172 bytes, keySize 2048', () => {
    const k = generatedKey(2048);
    expect(k.pair.length).toBe(1172);
    expect(readStrongNameKey(k.pair)).toMatchObject({ keySize: 2048, publicKeyToken: k.token });
  });

  it('no key in an empty blob: token ""', () => {
    expect(publicKeyToken(new Uint8Array(0))).toBe('');
  });

  it('refuses what is not a key, saying why', () => {
    expect(reason(new Uint8Array(0))).toBe('the data is empty');
    expect(reason(Buffer.from('<html><body>Dear {CustomerName}</body></html>'))).toMatch(/first byte is 0x3c/);
    expect(reason(k1024.pair.subarray(0, 300))).toBe('the key pair (PRIVATEKEYBLOB) is 300 bytes; a 1024-bit key takes 596');
    expect(reason(k1024.pair.subarray(0, 10))).toMatch(/shorter than its 20-byte header/);
    const magic = Buffer.from(k1024.pair);
    magic.write('RSA1', 8, 'ascii');
    expect(reason(magic)).toMatch(/RSA magic "RSA1", expected "RSA2"/);
    const dsa = Buffer.from(k1024.pair);
    dsa.writeUInt32LE(0x2200, 4); // CALG_DSS_SIGN
    expect(reason(dsa)).toMatch(/key algorithm 0x2200 is not RSA/);
    const bits = Buffer.from(k1024.pub);
    bits.writeUInt32LE(100, 12);
    expect(reason(bits)).toMatch(/a modulus of 100 bits/);
    const damaged = Buffer.from(k1024.pair);
    damaged[20 + 128 + 5]! ^= 0xff; // a byte of prime1
    expect(reason(damaged)).toMatch(/damaged: its primes do not multiply to its modulus/);
    const wrappedShort = Buffer.from(k1024.snPublic);
    wrappedShort.writeUInt32LE(0x07, 12); // a PRIVATEKEYBLOB type inside a public blob
    expect(reason(wrappedShort)).toMatch(/inside the strong-name blob: blob type 0x7, expected 0x6/);
  });
});

// ---------------------------------------------------------------------------
// Real files from ../shared/data (absent in a user's clone: skipped with a visible note).
// ---------------------------------------------------------------------------

const SNK = join(SHARED_DATA, 'Keys.snk');
const ROCKS = join(SHARED_DATA, 'Mono.Cecil.Rocks.dll');
const LINQ = join(SHARED_DATA, 'System.Xml.Linq.dll');
const haveData = [SNK, ROCKS, LINQ].every((p) => existsSync(p));
if (!haveData)
  console.warn(`SKIPPED: strong-name tests on real files need ${SHARED_DATA} (Keys.snk, Mono.Cecil.Rocks.dll, System.Xml.Linq.dll)`);

/** Where the 160-byte strong-name public key of a 1024-bit key (SigAlgID 0x2400, HashAlgID 0x8004, cb 0x94) sits in `bytes`. */
function findPublicKey(bytes: Buffer): number {
  const at = bytes.indexOf(Buffer.from('00240000048000009400000006020000', 'hex'));
  expect(at, 'a 1024-bit strong-name public key in the file').toBeGreaterThan(0);
  expect(bytes.indexOf(Buffer.from('00240000048000009400000006020000', 'hex'), at + 1)).toBe(-1);
  return at;
}

describe.skipIf(!haveData)('real files: Keys.snk and strong-named assemblies', () => {
  it('Keys.snk is a 1024-bit key pair with token 790be717c1fbe6a7', () => {
    // token cross-checked with an independent Python (hashlib) rendering of the same rule
    const k = readStrongNameKey(readFileSync(SNK));
    expect(k).toMatchObject({ kind: 'keyPair', keySize: 1024, publicKeyToken: '790be717c1fbe6a7' });
    expect(k.publicKey.length).toBe(160);
  });

  it('the public key stored in Mono.Cecil.Rocks.dll gives the token the assembly reader gives (0738eb9f132ed756)', () => {
    const dll = readFileSync(ROCKS);
    const at = findPublicKey(dll);
    const k = readStrongNameKey(dll.subarray(at, at + 160));
    expect(k).toMatchObject({ kind: 'publicKeyBlob', keySize: 1024, publicKeyToken: '0738eb9f132ed756' });
    expect(readAssemblyIdentity(dll).publicKeyToken).toBe(k.publicKeyToken);
  });

  it('an assembly whose metadata carries Keys.snk’s public key reads back with Keys.snk’s token, both ways', () => {
    // Mono.Cecil.Rocks.dll with its 1024-bit public key replaced by Keys.snk's (same length):
    // the identity an assembly signed with Keys.snk declares
    const key = readStrongNameKey(readFileSync(SNK));
    const dll = Buffer.from(readFileSync(ROCKS));
    Buffer.from(key.publicKey).copy(dll, findPublicKey(dll));
    const id = readAssemblyIdentity(dll);
    expect(id.name).toBe('Mono.Cecil.Rocks');
    expect(id.publicKeyToken).toBe(key.publicKeyToken);
    expect(id.publicKeyToken).toBe('790be717c1fbe6a7');
  });

  it('System.Xml.Linq.dll carries the 16-byte ECMA standard key: token b77a5c561934e089, no RSA key size', () => {
    const dll = readFileSync(LINQ);
    const ecma = Buffer.from('10' + '0000000000000000' + '0400000000000000', 'hex'); // blob length 16, then the key
    const at = dll.indexOf(ecma);
    expect(at).toBeGreaterThan(0);
    const k = readStrongNameKey(dll.subarray(at + 1, at + 17));
    expect(k).toEqual({ kind: 'publicKeyBlob', publicKey: k.publicKey, publicKeyToken: 'b77a5c561934e089' });
    expect(k.keySize).toBeUndefined();
    expect(readAssemblyIdentity(dll).publicKeyToken).toBe('b77a5c561934e089');
  });
});

describe('the demo signing key of lic serve --seed demo', () => {
  it('reads as a 1024-bit key pair whose token is the one the seed writes in its description and its assemblies', () => {
    const res = (buildDemoDataset(new Date('2026-01-01T00:00:00Z')).resources ?? []).find((r) => r.type === 'RSA')!;
    const k = readStrongNameKey(Buffer.from(res.data, 'base64'));
    expect(k.kind).toBe('keyPair');
    expect(k.keySize).toBe(1024);
    // pinned: the token the seed's former implementation of the rule computed for this key
    expect(k.publicKeyToken).toBe('0bbe75556158122f');
    expect(res.description).toContain(`public key token ${k.publicKeyToken}`);
    const own = (buildDemoDataset(new Date('2026-01-01T00:00:00Z')).assemblies ?? []).filter((a) => a.name.startsWith('ShroudIL.'));
    expect(own.length).toBeGreaterThan(0);
    for (const a of own) expect(a.publicKeyToken).toBe(k.publicKeyToken);
  });
});
