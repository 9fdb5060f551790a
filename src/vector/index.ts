/** Vector math shared by the memory tiers and plugins (a leaf: imports nothing). */
export { cosine } from './cosine.js';
