/** `mcp` built-in plugin (P-7). */
export { mcpPlugin as default, mcpPlugin, createMcpPlugin } from './mcp-plugin.js';
export { McpConnection, type McpServerStatus, type McpConnectionOptions } from './mcp-connection.js';
export { mcpToolName } from './tool-name.js';
export { contentToText, type McpToolResultLike, type McpContentBlock } from './content-to-text.js';
export { serversSchema, type McpServerConfig } from './mcp-settings.js';
