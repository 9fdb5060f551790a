/** Memory tools (T-6) and social tools (T-7) as ToolDefs. */
export { graphTools, docTools, toolHit, type MemoryToolDeps, type DocToolStore, type ToolRecall } from './memory-tools.js';
export { socialTools } from './social-tools.js';
export { defineTool } from './define-tool.js';
