import type { PluginSDK, ServiceMap } from '../../sdk/index.js';
import { HomeAgentError, NotFoundError, ValidationError } from '../../sdk/index.js';

/** Where a hit comes from: the memory tiers (context window, documents, cold archive, graph) or the library. */
export type HitSource = 'context' | 'document' | 'archive' | 'graph' | 'library';

/** Sources a search may be limited to (what the `memory_search` tool offers). */
export const SEARCH_SOURCES = ['context', 'documents', 'graph', 'library'] as const;
export type SearchSource = (typeof SEARCH_SOURCES)[number];

/** One search hit with its provenance; `ref` is what `memory_read` takes. */
export interface MemoryHit {
  ref: string;
  source: HitSource;
  title?: string;
  text: string;
  /** Relative score, comparable within one source only. */
  score: number;
  createdAt?: number;
  sessionId?: string;
  turnId?: string;
  tags?: string[];
}

/** What `library_save` takes. */
export interface LibrarySaveInput {
  title: string;
  content: string;
  impressions?: string[];
  tags?: string[];
  notes?: string;
}

type Memory = ServiceMap['host.memory'];
/** A hit of `host.memory.searchDocuments`: today a document; with the recall over every tier (K-1) it names its tier. */
type DocHit = Awaited<ReturnType<Memory['searchDocuments']>>[number] & { tier?: string; sessionId?: string; turnId?: string };

const WORD = /[\p{L}\p{N}]+/gu;

/** Lower-cased words of a query; runs of CJK characters become overlapping pairs (no spaces to split on). */
export function queryTerms(query: string): string[] {
  const out = new Set<string>();
  for (const w of query.toLowerCase().match(WORD) ?? []) {
    if (/\p{Script=Han}/u.test(w) && w.length > 2) for (let i = 0; i + 1 < w.length; i++) out.add(w.slice(i, i + 2));
    else out.add(w);
  }
  return [...out];
}

/**
 * The memory the MCP server exposes, behind one small seam: every tier through the `host.memory`
 * service and the curated library through the memory-manager's API (the handler the WebUI and
 * `waiter library` call, in process). When `searchDocuments` answers with tiered hits (the one
 * recall over every tier, K-1), those stand for context, documents, archive and graph, and the
 * separate context and graph lookups below are skipped.
 */
export class MemorySource {
  constructor(private readonly sdk: PluginSDK) {}

  private memory(): Memory {
    const m = this.sdk.use('host.memory');
    if (!m) throw new HomeAgentError('UNAVAILABLE', 'the memory tiers are not running in this daemon');
    return m;
  }

  /** Calls one op of the memory-manager API (M-11) and returns its value, or throws its coded error. */
  async library(op: string, args: Record<string, unknown>): Promise<unknown> {
    const route = this.sdk
      .use('host.routes')
      ?.list()
      .find((r) => r.method === 'POST' && r.path === '/api/memory-manager');
    if (!route) throw new HomeAgentError('UNAVAILABLE', 'the memory library (memory-manager plugin) is not running');
    const res = await route.handler(new Request('http://homed.local/api/memory-manager', { method: 'POST', body: JSON.stringify({ op, args }), headers: { 'content-type': 'application/json' } }), {});
    const body = (await res.json()) as { ok: boolean; value: unknown };
    if (!body.ok) {
      const v = (body.value ?? {}) as { error?: string; code?: string };
      throw new HomeAgentError(v.code ?? 'LIBRARY_ERROR', v.error ?? 'the library operation failed');
    }
    return body.value;
  }

  /** Searches the chosen sources; each source ranks its own hits (at most `limit` per source). */
  async search(query: string, opts: { limit: number; sources?: readonly SearchSource[] }): Promise<MemoryHit[]> {
    const want = new Set(opts.sources?.length ? opts.sources : SEARCH_SOURCES);
    const out: MemoryHit[] = [];
    if (want.has('library')) {
      type LibHit = { id: string; title: string; tags: string[]; preview: string; score: number; updatedAt?: string; source?: { sessionId?: string } };
      let hits: LibHit[] = [];
      try {
        hits = (await this.library('memory.search', { query, limit: opts.limit, forModel: true })) as LibHit[];
      } catch (e) {
        // A library that is off (plugin stopped, master switch) leaves a search of everything to the tiers.
        if (opts.sources?.includes('library')) throw e;
      }
      for (const h of hits) out.push({ ref: `library:${h.id}`, source: 'library', title: h.title, text: h.preview, score: h.score, createdAt: h.updatedAt ? Date.parse(h.updatedAt) : undefined, sessionId: h.source?.sessionId, tags: h.tags });
    }
    let tiered = false;
    if (want.has('documents') || want.has('context') || want.has('graph')) {
      const docs = (await this.memory().searchDocuments(query, opts.limit)) as DocHit[];
      tiered = docs.some((d) => typeof d.tier === 'string');
      for (const d of docs) {
        const source = (tiered ? d.tier : 'document') as HitSource;
        const asked = source === 'context' ? 'context' : source === 'graph' ? 'graph' : 'documents';
        if (want.has(asked)) out.push({ ref: `${source}:${d.id}`, source, text: d.text, score: d.score, createdAt: d.createdAt, sessionId: d.sessionId, turnId: d.turnId ?? d.refs?.[0] });
      }
    }
    if (!tiered && want.has('context')) out.push(...this.searchContext(await this.memory().context(), query, opts.limit));
    if (!tiered && want.has('graph')) out.push(...(await this.searchGraph(query, opts.limit)));
    return out;
  }

  /** The context window is small (top-K events): a word-overlap ranking over it is enough. */
  private searchContext(events: Awaited<ReturnType<Memory['context']>>, query: string, limit: number): MemoryHit[] {
    const terms = queryTerms(query);
    if (!terms.length) return [];
    return events
      .map((e) => {
        const text = [e.input, e.response].filter(Boolean).join('\n');
        const lower = text.toLowerCase();
        const score = terms.filter((t) => lower.includes(t)).length / terms.length;
        return { e, text, score };
      })
      .filter((x) => x.score > 0)
      .sort((a, b) => b.score - a.score || b.e.timestamp - a.e.timestamp)
      .slice(0, limit)
      .map(({ e, text, score }) => ({ ref: `context:${e.id}`, source: 'context' as const, text, score, createdAt: e.timestamp, sessionId: e.sessionId }));
  }

  /** Graph facts whose entities match a query word (keyword recall, T-4), as `subject predicate object`. */
  private async searchGraph(query: string, limit: number): Promise<MemoryHit[]> {
    const words = queryTerms(query)
      .filter((w) => w.length >= 2)
      .slice(0, 6);
    const facts = new Map<string, MemoryHit>();
    for (const w of words) {
      const g = await this.memory().graph({ query: w, depth: 1, limit: 30 });
      for (const r of g.relations) {
        const text = `${r.subject} ${r.predicate} ${r.object}`;
        const prev = facts.get(text);
        if (prev) prev.score += 1;
        else facts.set(text, { ref: `entity:${r.subject}`, source: 'graph', text, score: 1, turnId: r.refs?.[0] });
      }
    }
    return [...facts.values()].sort((a, b) => b.score - a.score).slice(0, limit);
  }

  /**
   * Reads one memory by the `ref` a search returned: `library:<id>` (snapshot, notes, meta),
   * `context:<id>`, `document:<id>`, `archive:<id>`, `graph:relation:<id>` (a fact with the turns it
   * cites), `entity:<name>` (its facts), `knowledge:<name>`.
   */
  async read(ref: string): Promise<{ ref: string; title?: string; text: string; meta: Record<string, unknown> }> {
    const i = ref.indexOf(':');
    const kind = i > 0 ? ref.slice(0, i) : '';
    const id = i > 0 ? ref.slice(i + 1) : '';
    if (!id) throw new ValidationError(`"${ref.slice(0, 80)}" is not a memory reference: use one that memory_search returned (library:…, context:…, document:…, archive:…, graph:…, entity:…, knowledge:…)`);
    switch (kind) {
      case 'library': {
        const m = (await this.library('memory.get', { id, forModel: true })) as { id: string; title: string; snapshot: string; notes: string; impressions: string[]; tags: string[]; links: string[]; backlinks?: string[]; createdAt: string; updatedAt: string };
        const text = [m.snapshot, m.notes ? `\n--- notes ---\n${m.notes}` : ''].join('');
        return { ref, title: m.title, text, meta: { id: m.id, impressions: m.impressions, tags: m.tags, links: m.links, backlinks: m.backlinks ?? [], createdAt: m.createdAt, updatedAt: m.updatedAt } };
      }
      case 'context': {
        const e = (await this.memory().context()).find((x) => x.id === id);
        if (!e) throw new NotFoundError('context event', id);
        return { ref, text: [e.input && `input: ${e.input}`, e.response && `response: ${e.response}`].filter(Boolean).join('\n'), meta: { kind: e.kind, source: e.source, sessionId: e.sessionId, at: e.timestamp } };
      }
      case 'graph':
      case 'document':
      case 'archive': {
        // The recall's own lookup by tier and id (an archived turn, a fact and the turns it cites).
        const mem = this.memory();
        if (typeof mem.readMemory === 'function') {
          const r = await mem.readMemory(kind, id);
          return { ref, text: r.text, meta: r.meta };
        }
        if (kind === 'graph') throw new NotFoundError('memory', ref);
        // Older hosts: page through the documents (a read is rare and explicit).
        for (let offset = 0; offset < 200_000; offset += 1000) {
          const page = await this.memory().listDocuments({ limit: 1000, offset });
          const d = page.find((x) => x.id === id);
          if (d) return { ref, text: d.text, meta: { createdAt: d.createdAt, accessCount: d.accessCount } };
          if (page.length < 1000) break;
        }
        throw new NotFoundError('document', id);
      }
      case 'entity': {
        const g = await this.memory().graph({ entity: id, depth: 1, limit: 50 });
        const ent = g.entities.find((e) => e.name.toLowerCase() === id.toLowerCase());
        return { ref, title: id, text: g.relations.map((r) => `${r.subject} ${r.predicate} ${r.object}`).join('\n'), meta: { type: ent?.type, attributes: ent?.attributes ?? {} } };
      }
      case 'knowledge': {
        const k = await this.memory().knowledgeGet(id);
        return { ref, title: k.name, text: k.content, meta: { updatedAt: k.updatedAt } };
      }
      default:
        throw new ValidationError(`unknown memory reference kind "${kind.slice(0, 40)}": use library:, context:, document:, archive:, graph:, entity: or knowledge:`);
    }
  }

  /** Saves a memory to the curated library (the snapshot is immutable once saved). */
  async save(input: LibrarySaveInput): Promise<{ id: string; title: string; tags: string[] }> {
    const m = (await this.library('memory.save', { title: input.title, snapshot: input.content, impressions: input.impressions, tags: input.tags, notes: input.notes })) as { id: string; title: string; tags: string[] };
    return { id: m.id, title: m.title, tags: m.tags };
  }

  /** Searches the knowledge base (T-10). */
  async searchKnowledge(query: string, limit: number): Promise<{ name: string; score: number; snippet: string }[]> {
    return this.memory().knowledgeSearch(query, limit);
  }
}
