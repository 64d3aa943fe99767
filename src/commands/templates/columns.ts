import type { Column } from '../../cli/output.js';
import type { LicenseTemplate } from '../../wire.js';

/** Table columns of a license template; the template body itself is for `lic templates show`. */
export const LICENSE_TEMPLATE_COLUMNS: Column<LicenseTemplate>[] = [
  { header: 'ID', get: (t) => t.id },
  { header: 'NAME', get: (t) => t.name },
  { header: 'CODE', get: (t) => t.code },
  { header: 'FORMAT', get: (t) => t.format },
  { header: 'FILE NAME', get: (t) => t.licenseFileName },
  // the id of the signing-key resource; 0 means none
  { header: 'SIGNING KEY', get: (t) => (t.signatureKeysId ? t.signatureKeysId : '') },
  { header: 'DESCRIPTION', get: (t) => t.description },
];
