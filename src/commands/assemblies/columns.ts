import type { Column } from '../../cli/output.js';
import type { Assembly } from '../../wire.js';

/** Table columns of an assembly; an empty culture shows as `neutral`, mapping file 0 as blank (contract §7). */
export const ASSEMBLY_COLUMNS: Column<Assembly>[] = [
  { header: 'ID', kind: 'id', get: (a) => a.id },
  { header: 'NAME', kind: 'name', get: (a) => a.name },
  { header: 'VERSION', kind: 'code', get: (a) => a.version },
  { header: 'CULTURE', kind: 'label', get: (a) => a.culture || 'neutral' },
  { header: 'PUBLIC KEY TOKEN', kind: 'code', get: (a) => a.publicKeyToken },
  { header: 'MAPPING FILE', kind: 'id', get: (a) => (a.mappingFileId ? a.mappingFileId : '') },
];
