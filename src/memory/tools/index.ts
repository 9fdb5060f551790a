/** Memory tools (T-6) and social tools (T-7) as ToolDefs. */
export { graphTools, docTools, type MemoryToolDeps, type DocToolStore, type ConsumedDoc } from './memory-tools.js';
export { socialTools } from './social-tools.js';
export { defineTool } from './define-tool.js';
