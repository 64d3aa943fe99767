import type { Column } from '../../cli/output.js';
import type { Assembly } from '../../wire.js';

/** Table columns of an assembly; an empty culture shows as `neutral`, mapping file 0 as blank (contract §7). */
export const ASSEMBLY_COLUMNS: Column<Assembly>[] = [
  { header: 'ID', get: (a) => a.id },
  { header: 'NAME', get: (a) => a.name },
  { header: 'VERSION', get: (a) => a.version },
  { header: 'CULTURE', get: (a) => a.culture || 'neutral' },
  { header: 'PUBLIC KEY TOKEN', get: (a) => a.publicKeyToken },
  { header: 'MAPPING FILE', get: (a) => (a.mappingFileId ? a.mappingFileId : '') },
];
