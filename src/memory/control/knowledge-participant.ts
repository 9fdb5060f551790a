import { createHash } from 'node:crypto';
import type { ForgetParticipant } from '../../spec/index.js';
import { containsAll, preview, queryWords } from './text-match.js';

/** What forget needs of the knowledge base (KnowledgeBase fits). */
export interface ForgetKnowledgeBase {
  list(): Promise<{ name: string }[]>;
  get(name: string): Promise<{ name: string; content: string }>;
  update(name: string, content: string, opts?: { quiet?: boolean }): Promise<unknown>;
  delete(name: string, opts?: { quiet?: boolean }): Promise<void>;
}

/**
 * The id a knowledge entry has in a forget plan: entry names may hold spaces and letters of any
 * script, memory ids may not (`[A-Za-z0-9_-]{3,64}`), so the id is derived from the name.
 */
export function knowledgeForgetId(name: string): string {
  return `kb-${createHash('sha256').update(name).digest('hex').slice(0, 32)}`;
}

/**
 * The knowledge base takes part in forget (K-2) like the library: an entry that holds every word
 * of the query is listed in the preview (under the memories) and goes only when the person ticks
 * it — the agent writes entries with knowledge_create, so a forgotten fact can sit in one. A quote
 * of a forgotten turn inside an entry that stays is replaced by `[forgotten]`.
 */
export function knowledgeForgetParticipant(kb: ForgetKnowledgeBase): ForgetParticipant {
  const entries = async () => {
    const out: { id: string; name: string; content: string }[] = [];
    for (const { name } of await kb.list()) {
      const e = await kb.get(name).catch(() => undefined);
      if (e) out.push({ id: knowledgeForgetId(e.name), name: e.name, content: e.content });
    }
    return out;
  };
  const item = (e: { id: string; name: string; content: string }) => ({ id: e.id, title: `Knowledge base: ${e.name}`, preview: preview(e.content) });
  return {
    find: async (query, limit) => {
      const words = queryWords(query);
      return (await entries())
        .filter((e) => containsAll(`${e.name}\n${e.content}`, words))
        .slice(0, limit)
        .map(item);
    },
    describe: async (ids) => {
      const want = new Set(ids);
      return (await entries()).filter((e) => want.has(e.id)).map(item);
    },
    remove: async (ids) => {
      const want = new Set(ids);
      const texts: string[] = [];
      let removed = 0;
      for (const e of await entries()) {
        if (!want.has(e.id)) continue;
        texts.push(e.content);
        // Quiet: the forget is recorded as one change and keeps none of the text.
        await kb.delete(e.name, { quiet: true });
        removed++;
      }
      return { removed, texts };
    },
    scrub: async (texts) => {
      if (!texts.length) return 0;
      let n = 0;
      for (const e of await entries()) {
        let content = e.content;
        for (const x of texts) if (content.includes(x)) content = content.split(x).join('[forgotten]');
        if (content === e.content) continue;
        await kb.update(e.name, content, { quiet: true });
        n++;
      }
      return n;
    },
  };
}
