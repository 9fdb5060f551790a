import { createHash } from 'node:crypto';

const VALID = /^[A-Za-z0-9_-]{1,64}$/;

function clean(s: string): string {
  return s.replace(/[^A-Za-z0-9_-]/g, '_') || '_';
}

/**
 * The agent tool name of an MCP tool: `mcp__<server>__<tool>`, every character outside
 * `[A-Za-z0-9_-]` replaced by `_`; names over 64 characters are cut and end in a short hash of
 * the full name so two long names stay distinct.
 */
export function mcpToolName(server: string, tool: string): string {
  const full = `mcp__${clean(server)}__${clean(tool)}`;
  if (VALID.test(full)) return full;
  const hash = createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, 8);
  return `${full.slice(0, 64 - 9)}_${hash}`;
}
