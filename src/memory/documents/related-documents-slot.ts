import type { ConfigReader } from '../../spec/config.js';
import type { PromptSlotProvider } from '../../spec/memory.js';
import type { DocStore } from './doc-store.js';

/** Characters of one document shown in the prompt. */
const SNIPPET_CHARS = 400;

/**
 * Prompt-slot provider of 【相关记忆文档】 (T-3 auto-injection, slot `related_documents`): the top
 * `core.docs.auto_inject_top` (default 3) documents for the input, read-only (each counts an access).
 * Returns undefined when nothing matches or on consolidation turns.
 */
export function relatedDocumentsSlot(store: DocStore, opts: { config?: ConfigReader; top?: number } = {}): PromptSlotProvider {
  return async (q) => {
    if (q.consolidation || !q.input.trim()) return undefined;
    const top = opts.top ?? readTop(opts.config);
    if (top <= 0) return undefined;
    const hits = await store.query(q.input, top);
    if (hits.length === 0) return undefined;
    const lines = hits.map((h) => {
      const text = h.doc.content.length > SNIPPET_CHARS ? `${h.doc.content.slice(0, SNIPPET_CHARS)}…` : h.doc.content;
      return `- [${new Date(h.doc.createdAt).toISOString().slice(0, 16).replace('T', ' ')}] ${text}`;
    });
    return `【相关记忆文档】\n${lines.join('\n')}`;
  };
}

function readTop(config?: ConfigReader): number {
  try {
    const v = config?.get('core.docs.auto_inject_top');
    return typeof v === 'number' && Number.isFinite(v) ? v : 3;
  } catch {
    return 3;
  }
}
