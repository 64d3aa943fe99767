import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_SNK_BASE64 } from '../../../src/server/seed/demo-assets.js';
import { SHARED_DATA } from '../../helpers/shared-data.js';
import { http } from '../../helpers/service.js';
import { useService } from '../../helpers/fixtures.js';

const blob = Buffer.from(DEMO_SNK_BASE64, 'base64');

/** Little-endian bytes → base64url of the big-endian magnitude (JWK integer). */
function jwkInt(le: Buffer): string {
  const be = Buffer.from(le).reverse();
  let i = 0;
  while (i < be.length - 1 && be[i] === 0) i++;
  return be.subarray(i).toString('base64url');
}

function toBigInt(le: Buffer): bigint {
  return BigInt('0x' + Buffer.from(le).reverse().toString('hex'));
}

describe('embedded strong-name key (PRIVATEKEYBLOB)', () => {
  it('has the .snk header of a 1024-bit RSA key pair and its size', () => {
    expect(blob.length).toBe(596);
    expect([...blob.subarray(0, 8)]).toEqual([0x07, 0x02, 0x00, 0x00, 0x00, 0x24, 0x00, 0x00]);
    expect(blob.subarray(8, 12).toString('ascii')).toBe('RSA2');
    expect(blob.readUInt32LE(12)).toBe(1024);
    expect(blob.readUInt32LE(16)).toBe(65537);
  });

  it('is a genuine, consistent RSA key pair', () => {
    let o = 20;
    const take = (n: number): Buffer => blob.subarray(o, (o += n));
    const n = take(128),
      p = take(64),
      q = take(64),
      dp = take(64),
      dq = take(64),
      qi = take(64),
      d = take(128);
    expect(o).toBe(596);
    expect(toBigInt(p) * toBigInt(q)).toBe(toBigInt(n));
    expect(toBigInt(n).toString(2)).toHaveLength(1024);
    const key = createPrivateKey({
      key: {
        kty: 'RSA',
        n: jwkInt(n),
        e: 'AQAB',
        d: jwkInt(d),
        p: jwkInt(p),
        q: jwkInt(q),
        dp: jwkInt(dp),
        dq: jwkInt(dq),
        qi: jwkInt(qi),
      },
      format: 'jwk',
    });
    const message = Buffer.from('lic demo license');
    const signature = sign('sha256', message, key);
    expect(verify('sha256', message, createPublicKey(key), signature)).toBe(true);
  });

  const keysSnk = join(SHARED_DATA, 'Keys.snk');
  const haveShared = existsSync(keysSnk);
  if (!haveShared) console.warn(`skipping the comparison with the vendor's Keys.snk: ${keysSnk} is absent`);
  it.skipIf(!haveShared)('has the same header layout as the real Keys.snk, but is a different key', () => {
    const real = readFileSync(keysSnk);
    expect(real.length).toBe(blob.length);
    expect(blob.subarray(0, 20).equals(real.subarray(0, 20))).toBe(true);
    expect(blob.subarray(20).equals(real.subarray(20))).toBe(false);
  });
});

// the asset files reach the service unchanged through the loader (build: esbuild `loader`;
// here: vitest.assets.ts): binary bytes not decoded as text, UTF-8 text not re-encoded
describe('the demo resources are the asset files, byte for byte', () => {
  const { svc } = useService({ seed: 'demo' });

  it.each([
    ['demo-signing-key', 'demo-signing-key.snk'],
    ['email-new-license', 'new-license-email.html'],
    ['email-renewal-reminder', 'renewal-reminder-email.html'],
    ['map-shroudil-engine-4.2.0', 'shroud-engine-mapping.xml'],
  ])('resource %s = assets/%s', async (code, file) => {
    const list = await http(svc, 'GET', `/v1/resources?filter=${encodeURIComponent(`Code = "${code}"`)}`, { key: svc.adminKey });
    expect(list.status).toBe(200);
    expect(list.body.resources).toHaveLength(1);
    const stored = Buffer.from(list.body.resources[0].data, 'base64');
    expect(stored.equals(readFileSync(new URL(`../../../src/server/seed/assets/${file}`, import.meta.url)))).toBe(true);
  });
});
