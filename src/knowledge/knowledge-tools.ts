import { z } from 'zod';
import type { ToolDef, ToolOutput } from '../spec/index.js';
import { localIso, systemTimeZone, ValidationError } from '../spec/index.js';
import type { KnowledgeBase } from './knowledge-base.js';

function tool<S extends z.ZodType>(name: string, description: string, schema: S, run: (args: z.infer<S>) => Promise<ToolOutput>): ToolDef {
  return {
    name,
    description,
    parameters: z.toJSONSchema(schema) as Record<string, unknown>,
    handler: async (args) => {
      const r = schema.safeParse(args ?? {});
      if (!r.success) {
        const i = r.error.issues[0];
        throw new ValidationError(`${name}: ${i?.path.join('.') || 'arguments'}: ${i?.message}`, { tool: name, path: i?.path.map(String) });
      }
      return run(r.data);
    },
  };
}

/**
 * The knowledge tools (T-10): knowledge_search, knowledge_create, knowledge_list. `timeZone`: the
 * person's (decision 0270) — an entry's `updatedAt` is ISO 8601 with its offset; default the system's.
 */
export function knowledgeTools(kb: KnowledgeBase, timeZone: () => string = systemTimeZone): ToolDef[] {
  return [
    tool('knowledge_search', 'Search the knowledge base (reference notes kept under knowledge/<name>/content.md). Returns names, scores and snippets.', z.object({ query: z.string().min(1).max(2000), limit: z.number().int().min(1).max(20).optional() }), async (a) => ({
      hits: await kb.search(a.query, a.limit ?? 5),
    })),
    tool(
      'knowledge_create',
      'Create a knowledge entry (markdown). Set overwrite=true to replace an existing one. Names: letters, digits, spaces, _ - . (max 64).',
      z.object({ name: z.string().min(1).max(64), content: z.string().min(1), overwrite: z.boolean().optional() }),
      async (a) => {
        const e = await kb.create(a.name, a.content, { overwrite: a.overwrite });
        return { created: e.name, chars: e.content.length };
      },
    ),
    tool('knowledge_list', 'List the knowledge base entries (name, size, last update).', z.object({}), async () => ({
      entries: (await kb.list()).map((e) => ({ name: e.name, size: e.size, updatedAt: localIso(e.updatedAt, timeZone()) })),
    })),
  ];
}
