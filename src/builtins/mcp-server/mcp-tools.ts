import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { PluginLogger, ServiceMap } from '../../sdk/index.js';
import { confirmQuestion, forgetCounts, HomeAgentError, localStampWithOffset } from '../../spec/index.js';
import { confirmedForget, personSays, toolTags } from '../shared/index.js';
import { SEARCH_SOURCES, type MemoryHit, type MemorySource } from './memory-source.js';

/** The tools the MCP server offers, by name. */
export const MCP_TOOL_NAMES = ['memory_search', 'memory_read', 'library_save', 'knowledge_search', 'memory_forget'] as const;

/** What the tools need besides the memory. */
export interface ToolContext {
  source: MemorySource;
  log: PluginLogger;
  /** The person's confirmation (the WebUI), when a WebUI is open. */
  confirm(): ServiceMap['host.confirm'] | undefined;
  /** Forget and its preview (K-2), when the memory control runs. */
  control(): ServiceMap['host.memory-control'] | undefined;
  /** Who is calling, for the log: `http` or `stdio`. */
  transport: string;
  /** The person's time zone (an IANA name, decision 0270): a hit's date is on their wall clock, with its offset. */
  timeZone(): string;
}

function date(ms: number | undefined, zone: string): string {
  return ms && Number.isFinite(ms) ? localStampWithOffset(ms, zone) : '';
}

function renderHit(h: MemoryHit, zone: string): string {
  const where = [h.source, date(h.createdAt, zone), h.sessionId && `session ${h.sessionId}`, h.tags?.length ? `tags ${h.tags.join(', ')}` : ''].filter(Boolean).join(' · ');
  const body = h.text.length > 600 ? `${h.text.slice(0, 600)}…` : h.text;
  return `[${h.ref}] ${h.title ? `${h.title} — ` : ''}(${where})\n${body}`;
}

const ok = (text: string, structured?: Record<string, unknown>): CallToolResult => ({ content: [{ type: 'text', text }], ...(structured ? { structuredContent: structured } : {}) });

/**
 * Registers the memory tools on one MCP server instance (R-2): search every memory tier and the
 * library, read one memory, save to the library, search the knowledge base. Tool errors come
 * back as `isError` results with the coded message (the SDK turns a throw into one).
 */
export function registerMemoryTools(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'memory_search',
    {
      title: 'Search HomeAgent memory',
      description:
        "Search the user's HomeAgent memory: the curated library (memories the user keeps), the recent context window, documents older conversation sank into, and facts in the knowledge graph. Each hit has a ref for memory_read, its source and date. Scores compare within one source only.",
      inputSchema: {
        query: z.string().trim().min(1).max(2000).describe('what to look for, in any language'),
        limit: z.number().int().min(1).max(50).optional().describe('most hits per source (default 8)'),
        sources: z.array(z.enum(SEARCH_SOURCES)).max(4).optional().describe('limit the search to these sources (default: all)'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (a) => {
      const hits = await ctx.source.search(a.query, { limit: a.limit ?? 8, sources: a.sources });
      ctx.log.info('mcp memory_search', { transport: ctx.transport, hits: hits.length });
      const text = hits.length ? hits.map((h) => renderHit(h, ctx.timeZone())).join('\n\n') : `nothing found for "${a.query}"`;
      return ok(text, { results: hits.map((h) => ({ ...h })) });
    },
  );
  server.registerTool(
    'memory_read',
    {
      title: 'Read one memory',
      description: 'Read one memory in full by the ref memory_search returned (library:…, context:…, document:…, entity:…, knowledge:…).',
      inputSchema: { ref: z.string().trim().min(3).max(300).describe('e.g. library:m-abc123') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (a) => {
      const m = await ctx.source.read(a.ref);
      ctx.log.info('mcp memory_read', { transport: ctx.transport, ref: a.ref.slice(0, 100) });
      return ok(`${m.title ? `# ${m.title}\n\n` : ''}${m.text}\n\n${JSON.stringify(m.meta)}`, { ...m });
    },
  );
  server.registerTool(
    'library_save',
    {
      title: 'Save to the HomeAgent library',
      description:
        "Save something worth keeping to the user's curated HomeAgent memory library (a markdown memory that HomeAgent and other tools can find later). The content is kept as an immutable snapshot; impressions are short retrieval keys.",
      inputSchema: {
        title: z.string().trim().min(1).max(200),
        content: z.string().trim().min(1).max(100_000).describe('what to remember'),
        impressions: z.array(z.string().min(1).max(40)).max(12).optional().describe('up to 12 short keys (≤ 40 characters)'),
        tags: z.array(z.string().min(1).max(40)).max(20).optional(),
        notes: z.string().max(20_000).optional(),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async (a) => {
      // A convention or a session summary is injected into every new HomeAgent session: a lasting
      // instruction. The model on the other side of MCP may be steered by what it read, so only the
      // person makes one — asked in the WebUI, else the memory is saved without the tag (0240).
      const { tags, note } = await toolTags(a.tags, (reserved) => personSays(ctx.confirm(), { plugin: 'mcp-server', sessionId: '', title: confirmQuestion.mcpSaveInjected(reserved), detail: `${a.title.slice(0, 200)}\n\n${a.content.slice(0, 1000)}` }));
      // In the memory history as the MCP client's save (K-3), not the user's.
      const save = () => ctx.source.save({ title: a.title, content: a.content, impressions: a.impressions, tags: tags as string[] | undefined, notes: a.notes });
      const mc = ctx.control();
      const saved = await (mc ? mc.runAs({ actor: 'mcp', tool: 'library_save' }, save) : save());
      ctx.log.info('mcp library_save', { transport: ctx.transport, id: saved.id });
      return ok(`saved as library:${saved.id}${note ? `\n(${note})` : ''}`, { ref: `library:${saved.id}`, ...saved, ...(note ? { note } : {}) });
    },
  );
  server.registerTool(
    'knowledge_search',
    {
      title: 'Search the HomeAgent knowledge base',
      description: "Search the user's HomeAgent knowledge base (reference notes kept by name). Read a whole entry with memory_read knowledge:<name>.",
      inputSchema: { query: z.string().trim().min(1).max(2000), limit: z.number().int().min(1).max(50).optional() },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (a) => {
      const hits = await ctx.source.searchKnowledge(a.query, a.limit ?? 8);
      const text = hits.length ? hits.map((h) => `[knowledge:${h.name}] (score ${h.score.toFixed(2)})\n${h.snippet}`).join('\n\n') : `nothing found for "${a.query}"`;
      return ok(text, { results: hits.map((h) => ({ ref: `knowledge:${h.name}`, ...h })) });
    },
  );
  server.registerTool(
    'memory_forget',
    {
      title: 'Ask the user to forget something in HomeAgent',
      description:
        "Ask the user to forget something everywhere in HomeAgent memory (conversation turns, documents, archive, graph facts, the session log). HomeAgent shows the user what would go in its WebUI and forgets nothing without their yes; with no WebUI open the request is refused. Returns what was forgotten, or why not.",
      inputSchema: {
        query: z.string().trim().min(1).max(2000).describe('words the forgotten things contain (every word must occur)'),
        include_library: z.boolean().optional().describe('also remove library memories that mention it (listed to the user)'),
        keep_fact_ids: z
          .array(z.number().int().positive())
          .max(100)
          .optional()
          .describe('facts to keep while the turns they came from are forgotten: the <id> of graph:relation:<id> refs memory_search gave; each must be a fact this forget would take, shown to the user as kept'),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (a) => {
      const mc = ctx.control();
      if (!mc) return { isError: true, content: [{ type: 'text', text: 'SERVICE_UNAVAILABLE: forgetting is not available (memory control is not running)' }] };
      // Never silent (docs/security.md): the model behind an MCP client reads untrusted text too.
      let r: Awaited<ReturnType<typeof confirmedForget>>;
      try {
        r = await confirmedForget(mc, ctx.confirm(), { query: a.query, ...(a.keep_fact_ids?.length ? { keepRelationIds: a.keep_fact_ids } : {}) }, { plugin: 'mcp-server', sessionId: '', who: 'An MCP client', withMemories: a.include_library === true, meta: { actor: 'mcp', tool: 'memory_forget' } });
      } catch (e) {
        // A keep the plan does not list (decision 0600): said with its code, nothing was asked or forgotten.
        if (e instanceof HomeAgentError && e.code === 'VALIDATION') return { isError: true, content: [{ type: 'text', text: `${e.code}: ${e.message}` }] };
        throw e;
      }
      ctx.log.info('mcp memory_forget', { transport: ctx.transport, status: r.status });
      if (r.status === 'nothing') return ok(`nothing found to forget for "${a.query}"`, { forgotten: false, found: 0 });
      if (r.status === 'refused') return ok(`not forgotten: ${r.reason}`, { forgotten: false, reason: r.reason });
      const left = (r.result.unfinished ?? []).map((u) => `; not finished — ${u.part}: ${u.message}`).join('');
      return ok(`forgotten: ${forgetCounts(r.result)}${left}`, { forgotten: true, ...r.result });
    },
  );
}
