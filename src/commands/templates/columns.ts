import type { Column } from '../../cli/output.js';
import type { LicenseTemplate } from '../../wire.js';

/** Table columns of a license template; the template body itself is for `lic templates show`. */
export const LICENSE_TEMPLATE_COLUMNS: Column<LicenseTemplate>[] = [
  { header: 'ID', kind: 'id', get: (t) => t.id },
  { header: 'NAME', kind: 'name', get: (t) => t.name },
  { header: 'CODE', kind: 'code', get: (t) => t.code },
  { header: 'FORMAT', kind: 'label', get: (t) => t.format },
  { header: 'FILE NAME', kind: 'text', get: (t) => t.licenseFileName },
  // the id of the signing-key resource; 0 means none
  { header: 'SIGNING KEY', kind: 'id', get: (t) => (t.signatureKeysId ? t.signatureKeysId : '') },
  { header: 'DESCRIPTION', kind: 'text', get: (t) => t.description },
];
