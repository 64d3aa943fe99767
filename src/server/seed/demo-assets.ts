/**
 * Embedded assets of the demo dataset (`lic serve --seed demo`): a strong-name signing key
 * blob, HTML e-mail templates and an obfuscation mapping file. Everything here was
 * written or generated for this project; nothing is read from ../shared at run time.
 */

/**
 * A genuine 1024-bit RSA strong-name key pair in the Microsoft PRIVATEKEYBLOB layout that
 * `.snk` files use (596 bytes), base64-encoded. Demo only: it is public, never sign
 * anything real with it.
 *
 * Generated once, with Node 20 and node:crypto, by this script:
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
export const DEMO_SNK_BASE64 =
  'BwIAAAAkAABSU0EyAAQAAAEAAQAdDmJgzEYn5stGzaoCXPiApaMrdQ8Lm0825pgXDNHQt+B0SDbjw+IQ8czAUcJsA4z6K0luqp3J' +
  'f10WumhMjCeJDFw0jJHUR8nz3QprAQSaDoARbxTZPSZmMyFbcpLeO+KAg/N8INT6iqQXH7ovrseJNipdbJGogYFEt2MrDV9n0mVG' +
  'rB4/PpfJRI/R2pTcrSEnSkslyqb6cTcmUzZFA0N1UCCODPmO3xoLecsFosFPKvy++WUkAq8v68xEWPof1+hZcY/lWdAQlQ2h334/' +
  'h+TZ0485TV7zM/JqoezuAtFy5uK90T8Yg+PhldoRC7c9k4gBCiR8wnjWyrYgJ0Ra8FTnfZqgImGpBr4w6YhtDJcvhZGkFrEFP1Uj' +
  'ADKS51XMSjwm1JJ6cmey5P4wQs7JHqZhNsBzyPAWjd+FqbHtDT8ARnlfIZg0RPWlv1HlSSnmjnDam5BG5zunk+Jb2DLVEyBn2Lp5' +
  'PXvX72mtWLePqPJH4Mze2MhL+zsTNJdItZz0am/K61Ab8FmA2cqwZjSIS5etM2H2j+erePBhk3CHSKfo4QDjZli05bvoFcGpCpyo' +
  'j5i/kN0nIHAiBn74iBXojINpoYSAPpSxGOM+CbPm96zSSPBuhWbkdCDcWLaa32Scj4ZXdCL3DK7Z/cOlccTnlet0VH63MaSzUnOc' +
  'iwgAPMV6mGJYcDUQFQgcKY+DFnV5iJuhgz6D9z9UQfLQZemfcFZdbqN4ilGix8MZrYzXcKnknhhzrkOmyHnpwDm/DTgANkM=';

/**
 * HTML body of the e-mail sent when a license is issued (resource type `email`, data
 * format `html`). `{Name}` placeholders are filled in by the sender: CustomerName,
 * ProductName, ProductVersion, LicenseId, LicenseKey, SupportExpireDate, DownloadUrl.
 * Deliberately contains non-ASCII text (accents, em dash, euro sign, ©).
 */
export const NEW_LICENSE_EMAIL_HTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Your new {ProductName} license</title>
</head>
<body style="font-family: Segoe UI, Helvetica, Arial, sans-serif; color: #1f2328;">
<p>Hello {CustomerName},</p>
<p>thank you for your order — your license for <strong>{ProductName} {ProductVersion}</strong> is ready.</p>
<table style="border-collapse: collapse;">
  <tr><td style="padding: 2px 12px 2px 0;">License ID</td><td><code>{LicenseId}</code></td></tr>
  <tr><td style="padding: 2px 12px 2px 0;">License key</td><td><code style="font-size: 13pt;">{LicenseKey}</code></td></tr>
  <tr><td style="padding: 2px 12px 2px 0;">Updates and support until</td><td>{SupportExpireDate}</td></tr>
</table>
<p>Installers for Windows, Linux and macOS are waiting for you at
<a href="{DownloadUrl}">{DownloadUrl}</a>. Keep the key somewhere safe: you will need it
to activate each developer machine.</p>
<p>Questions? Just reply to this message — our support team (Zürich · Lyon · Kraków)
usually answers within one business day.</p>
<p>Kind regards / Mit freundlichen Grüßen / Cordialement,<br>
Halvard Software licensing desk</p>
<p style="font-size: 9pt; color: #59636e;">Prices shown in your invoice are net; EU customers are billed in € without VAT where a valid VAT ID was supplied.
© Halvard Software Ltd.</p>
</body>
</html>
`;

/**
 * HTML body of the reminder sent before the support period of a license ends (resource
 * type `email`, data format `html`). Placeholders: CustomerName, ProductName, LicenseId,
 * SupportExpireDate, DaysLeft, RenewalUrl.
 */
export const RENEWAL_REMINDER_EMAIL_HTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{ProductName}: support ends on {SupportExpireDate}</title>
</head>
<body style="font-family: Segoe UI, Helvetica, Arial, sans-serif; color: #1f2328;">
<p>Hello {CustomerName},</p>
<p>the update and support period of license <code>{LicenseId}</code> for
<strong>{ProductName}</strong> ends in {DaysLeft} days, on {SupportExpireDate}.</p>
<p>Your license keeps working after that date; renewing simply keeps new releases and
priority support coming. Renew in two clicks at <a href="{RenewalUrl}">{RenewalUrl}</a>.</p>
<p>Best wishes — Halvard Software</p>
</body>
</html>
`;

/**
 * An obfuscation mapping file (resource type `MappingFile`, data format `xml`): original
 * → obfuscated names of a few members of the demo ShroudIL.Engine assembly, as a stack
 * trace decoder would use it. Invented for the demo.
 */
export const SHROUD_ENGINE_MAPPING_XML = `<?xml version="1.0" encoding="utf-8"?>
<mapping assembly="ShroudIL.Engine" version="4.2.0.0">
  <type name="ShroudIL.Engine.Renamer" newName="a">
    <method name="RenameAll" signature="void(ModuleDefinition)" newName="a" />
    <method name="ShouldKeep" signature="bool(IMemberDefinition)" newName="b" />
  </type>
  <type name="ShroudIL.Engine.ControlFlow.BlockScrambler" newName="b">
    <method name="Scramble" signature="void(MethodBody, int)" newName="a" />
    <field name="random" newName="a" />
  </type>
  <type name="ShroudIL.Engine.Strings.StringVault" newName="c">
    <method name="Encrypt" signature="byte[](string)" newName="a" />
    <method name="Decrypt" signature="string(int)" newName="b" />
  </type>
</mapping>
`;
