/** One content block of an MCP tool result (lenient: servers vary). */
export interface McpContentBlock {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; text?: string; blob?: string; mimeType?: string };
}

/** The part of an MCP `CallToolResult` that is turned into text. */
export interface McpToolResultLike {
  content?: McpContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
  toolResult?: unknown;
}

function approxBytes(b64: string | undefined): number {
  return b64 ? Math.floor((b64.length * 3) / 4) : 0;
}

/**
 * Turns an MCP tool result into the text the model sees: text blocks as is, images and audio as
 * a short note (the model cannot see the bytes here), embedded text resources inlined, links
 * and binary resources as notes. Errors are marked as such.
 */
export function contentToText(result: McpToolResultLike): string {
  const parts: string[] = [];
  for (const c of result.content ?? []) {
    switch (c.type) {
      case 'text':
        parts.push(c.text ?? '');
        break;
      case 'image':
      case 'audio':
        parts.push(`[${c.type}: ${c.mimeType ?? 'unknown type'}, about ${approxBytes(c.data)} bytes — not shown]`);
        break;
      case 'resource':
        if (c.resource?.text !== undefined) parts.push(`[resource ${c.resource.uri ?? ''}]\n${c.resource.text}`);
        else parts.push(`[resource ${c.resource?.uri ?? ''}: ${c.resource?.mimeType ?? 'binary'}, about ${approxBytes(c.resource?.blob)} bytes — not shown]`);
        break;
      case 'resource_link':
        parts.push(`[link: ${c.name ?? ''} ${c.uri ?? ''}]`.replace(/\s+\]/, ']'));
        break;
      default:
        parts.push(`[${c.type} content — not shown]`);
    }
  }
  if (parts.length === 0 && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent));
  if (parts.length === 0 && result.toolResult !== undefined) parts.push(typeof result.toolResult === 'string' ? result.toolResult : JSON.stringify(result.toolResult));
  const text = parts.join('\n');
  return result.isError ? `MCP tool error: ${text || '(no details)'}` : text || '(no output)';
}
