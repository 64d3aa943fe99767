export { main } from './main.js';
export { systemContext } from './system.js';
// for scripts/build.mjs (dist/version.json's rootFlags)
export { rootFlagArity } from './program.js';
export type { Context } from './context.js';
