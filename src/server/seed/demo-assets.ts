/**
 * Assets of the demo dataset (`lic serve --seed demo`): a strong-name signing key blob,
 * HTML e-mail templates and an obfuscation mapping file, kept as the files in ./assets.
 * The bundler inlines them (scripts/build.mjs `loader`: .html and .xml as text, .snk as
 * bytes; vitest.config.ts does the same for tests), so nothing is read at run time.
 * Everything there was written or generated for this project.
 */
import NEW_LICENSE_EMAIL from './assets/new-license-email.html';
import RENEWAL_REMINDER_EMAIL from './assets/renewal-reminder-email.html';
import SHROUD_ENGINE_MAPPING from './assets/shroud-engine-mapping.xml';
import DEMO_SNK from './assets/demo-signing-key.snk';

/**
 * A genuine 1024-bit RSA strong-name key pair in the Microsoft PRIVATEKEYBLOB layout that
 * `.snk` files use (596 bytes), base64-encoded. Demo only: it is public, never sign
 * anything real with it.
 *
 * Generated once, with node:crypto, by this script:
 *
 *   const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024, publicExponent: 65537 });
 *   const jwk = privateKey.export({ format: 'jwk' });
 *   // big-endian base64url → little-endian, zero-padded to `len` bytes
 *   const le = (b64u, len) => { const be = Buffer.from(b64u, 'base64url'); const out = Buffer.alloc(len);
 *     for (let i = 0; i < be.length; i++) out[i] = be[be.length - 1 - i]; return out; };
 *   const header = Buffer.alloc(20);
 *   header.writeUInt8(0x07, 0);            // bType = PRIVATEKEYBLOB
 *   header.writeUInt8(0x02, 1);            // bVersion = 2
 *   header.writeUInt16LE(0, 2);            // reserved
 *   header.writeUInt32LE(0x2400, 4);       // aiKeyAlg = CALG_RSA_SIGN
 *   header.write('RSA2', 8, 'ascii');      // RSAPUBKEY.magic (private key)
 *   header.writeUInt32LE(1024, 12);        // bitlen
 *   header.writeUInt32LE(65537, 16);       // pubexp
 *   const blob = Buffer.concat([header, le(jwk.n, 128), le(jwk.p, 64), le(jwk.q, 64),
 *     le(jwk.dp, 64), le(jwk.dq, 64), le(jwk.qi, 64), le(jwk.d, 128)]);
 *   console.log(blob.toString('base64'));
 *
 * Layout (all integers little-endian): 8-byte BLOBHEADER, 12-byte RSAPUBKEY, modulus
 * (bitlen/8), prime1, prime2, exponent1, exponent2, coefficient (bitlen/16 each),
 * privateExponent (bitlen/8).
 */
export const DEMO_SNK_BASE64: string = Buffer.from(DEMO_SNK).toString('base64');

/**
 * HTML body of the e-mail sent when a license is issued (resource type `email`, data
 * format `html`). `{Name}` placeholders are filled in by the sender: CustomerName,
 * ProductName, ProductVersion, LicenseId, LicenseKey, SupportExpireDate, DownloadUrl.
 * Deliberately contains non-ASCII text (accents, em dash, euro sign, ©).
 */
export const NEW_LICENSE_EMAIL_HTML: string = NEW_LICENSE_EMAIL;

/**
 * HTML body of the reminder sent before the support period of a license ends (resource
 * type `email`, data format `html`). Placeholders: CustomerName, ProductName, LicenseId,
 * SupportExpireDate, DaysLeft, RenewalUrl.
 */
export const RENEWAL_REMINDER_EMAIL_HTML: string = RENEWAL_REMINDER_EMAIL;

/**
 * An obfuscation mapping file (resource type `MappingFile`, data format `xml`): original
 * → obfuscated names of a few members of the demo ShroudIL.Engine assembly, as a stack
 * trace decoder would use it. Invented for the demo.
 */
export const SHROUD_ENGINE_MAPPING_XML: string = SHROUD_ENGINE_MAPPING;
