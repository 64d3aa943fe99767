export { main } from './main.js';
export { systemContext } from './system.js';
export type { Context } from './context.js';
