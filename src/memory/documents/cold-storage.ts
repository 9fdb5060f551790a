import type { ContextEvent, ContextWindow } from '../../spec/memory.js';
import type { MemoryDocument } from './memory-document.js';

/**
 * doc_query's second half (T-3): re-appends consumed documents to the context as `cold_storage`
 * events at their ORIGINAL timestamps, carrying their refs, so they land in their place in the
 * timeline.
 */
export function reappendAsColdStorage(docs: readonly MemoryDocument[], context: ContextWindow): ContextEvent[] {
  return docs.map((d) =>
    context.append({
      kind: 'cold_storage',
      source: 'cold_storage',
      channel: d.channel,
      sessionId: d.sessionId,
      input: d.input,
      response: d.response,
      timestamp: d.createdAt,
      refs: d.refs,
    }),
  );
}
