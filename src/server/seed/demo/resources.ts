/**
 * The demo's resources: the strong-name key pair that signs every license, two HTML
 * e-mail templates and the obfuscation mapping file of one assembly.
 */
import { readStrongNameKey } from '../../../dotnet/strong-name.js';
import type { DatasetResource } from '../dataset.js';
import { DEMO_SNK_BASE64, NEW_LICENSE_EMAIL_HTML, RENEWAL_REMINDER_EMAIL_HTML, SHROUD_ENGINE_MAPPING_XML } from '../demo-assets.js';
import { DAY, iso } from '../../../time.js';

/** Id of the signing key resource, which every product and license template names as signatureKeysId. */
export const SIGNING_KEY_ID = 1;
/** Id of the mapping file resource of ShroudIL.Engine. */
export const MAPPING_ID = 4;

/**
 * The public key token of the demo signing key (16 lowercase hex digits), as .NET computes
 * it from the key pair's public key (ECMA-335 II.6.2.1.3): the token of the vendor's own
 * strong-named assemblies.
 */
export function signingKeyToken(): string {
  return readStrongNameKey(Buffer.from(DEMO_SNK_BASE64, 'base64')).publicKeyToken;
}

/** The four resources, ids 1..4, dated relative to `nowMs` (ms since the epoch); `token` is signingKeyToken(). */
export function makeResources(nowMs: number, token: string): DatasetResource[] {
  return [
    {
      id: SIGNING_KEY_ID,
      name: 'Demo signing key',
      type: 'RSA',
      code: 'demo-signing-key',
      description: `1024-bit RSA strong-name key pair (public key token ${token}) that signs the demo licenses. It is public: never sign real licenses with it.`,
      source: 'Generated with node:crypto for the lic demo dataset',
      password: '',
      createdAt: iso(nowMs - 1200 * DAY),
      updatedAt: iso(nowMs - 1200 * DAY),
      data: DEMO_SNK_BASE64,
      dataFormat: 'SNK',
    },
    {
      id: 2,
      name: 'New license e-mail',
      type: 'email',
      code: 'email-new-license',
      description: 'Sent to the customer when an order is completed and its licenses are issued.',
      source: 'Halvard Software marketing, rev. 3',
      password: '',
      createdAt: iso(nowMs - 1150 * DAY),
      updatedAt: iso(nowMs - 141 * DAY),
      data: Buffer.from(NEW_LICENSE_EMAIL_HTML, 'utf8').toString('base64'),
      dataFormat: 'html',
    },
    {
      id: 3,
      name: 'Support renewal reminder e-mail',
      type: 'email',
      code: 'email-renewal-reminder',
      description: 'Sent 30 days before the support period of a license ends.',
      source: 'Halvard Software marketing, rev. 1',
      password: '',
      createdAt: iso(nowMs - 610 * DAY),
      updatedAt: iso(nowMs - 610 * DAY),
      data: Buffer.from(RENEWAL_REMINDER_EMAIL_HTML, 'utf8').toString('base64'),
      dataFormat: 'html',
    },
    {
      id: MAPPING_ID,
      name: 'ShroudIL.Engine 4.2.0 mapping',
      type: 'MappingFile',
      code: 'map-shroudil-engine-4.2.0',
      description: 'Obfuscation map of ShroudIL.Engine 4.2.0.0, for decoding customer stack traces.',
      source: 'ShroudIL build 4.2.0.1187',
      password: '',
      createdAt: iso(nowMs - 52 * DAY),
      updatedAt: iso(nowMs - 52 * DAY),
      data: Buffer.from(SHROUD_ENGINE_MAPPING_XML, 'utf8').toString('base64'),
      dataFormat: 'xml',
    },
  ];
}
