import type { ContextEvent } from '../../spec/memory.js';
import { cleanText } from '../embedder/index.js';

/** A tool's cleaner (seed: ToolDef.Cleaner): filters its output before the computation layer. */
export type ToolCleaner = (output: string) => string;

/** Looks up the cleaner of a tool by name. */
export type CleanerLookup = (tool: string) => ToolCleaner | undefined;

/**
 * The text an event contributes to vectors and keywords (seed: textForVector), three branches:
 * agent → response + tool outputs (noMemory outputs skipped, each tool's cleaner applied),
 * user → input, cold_storage → input + response. Whitespace is normalised by `cleanText`.
 * A cleaner that throws leaves that output raw (reported through `onCleanerError`).
 */
export function textForVector(event: Pick<ContextEvent, 'kind' | 'input' | 'response' | 'toolOutputs'>, cleaners?: CleanerLookup, onCleanerError?: (tool: string, e: unknown) => void): string {
  switch (event.kind) {
    case 'agent': {
      const parts = [event.response];
      for (const out of event.toolOutputs ?? []) {
        if (out.noMemory) continue;
        let text = out.text;
        const clean = cleaners?.(out.tool);
        if (clean) {
          try {
            text = clean(text);
          } catch (e) {
            onCleanerError?.(out.tool, e);
          }
        }
        parts.push(text);
      }
      return cleanText(parts.filter(Boolean).join('\n'));
    }
    case 'cold_storage':
      return cleanText(`${event.input} ${event.response}`);
    case 'user':
      return cleanText(event.input);
    default:
      return cleanText(event.input || event.response);
  }
}
