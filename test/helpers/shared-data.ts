import { fileURLToPath } from 'node:url';

/**
 * The real input files of ../shared/data beside the checkout (present in this workplace
 * and in CI, absent in a user's own clone). Tests that read them skip visibly when absent.
 */
export const SHARED_DATA = fileURLToPath(new URL('../../../shared/data', import.meta.url));
