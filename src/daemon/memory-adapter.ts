import type { GraphEntity, GraphRelation } from '../spec/index.js';
import { NotFoundError, ValidationError } from '../spec/index.js';
import { firstPersonAs, type MemorySystem } from '../memory/index.js';
import type { MemoryLike } from './host-services.js';
import { aboutPerson } from './memory-about.js';

/**
 * Maps the memory subsystem onto what the `host.memory` admin service needs (WebUI browsers and
 * `waiter memory …`), so the service contract stays independent of the tiers' classes.
 */
export function memoryAdapter(m: MemorySystem): MemoryLike {
  const graphOf = (entities: GraphEntity[], relations: GraphRelation[]) => ({ entities, relations });
  return {
    stats: async () => ({
      context: { events: m.context.events().length },
      documents: { count: m.docs.size },
      archive: { count: m.archive.isOpen ? m.archive.size : 0, bytes: m.archive.isOpen ? m.archive.diskBytes() : 0 },
      graph: m.graph.stats(),
      knowledge: { entries: (await m.knowledge.list()).length },
      embedder: m.embedder.modelId(),
      // A vector file being downloaded (T-1): what `waiter memory stats` shows while it runs.
      ...(m.embedder.downloadProgress() ? { embedderDownload: m.embedder.downloadProgress() } : {}),
    }),
    contextEvents: () => m.context.events(),
    // A search a person reads (WebUI, `waiter memory search`, MCP): what matches, not its neighbours.
    searchDocuments: (q, k) => m.recall.search(q, { k, matchesOnly: true }),
    reindex: (onProgress) => m.reindex(onProgress),
    readMemory: async (tier, id) => {
      const when = (at: number) => ({ createdAt: at });
      if (tier === 'context') {
        const e = m.context.events().find((x) => x.id === id);
        if (e) return { text: [e.input && `input: ${e.input}`, e.response && `response: ${e.response}`].filter(Boolean).join('\n'), meta: { kind: e.kind, source: e.source, sessionId: e.sessionId, channel: e.channel, speaker: e.speaker, turnId: e.refs?.[0], ...when(e.timestamp) } };
      } else if (tier === 'document' || tier === 'archive') {
        const d = tier === 'document' ? m.docs.get(id) : m.archive.isOpen ? m.archive.get(id)?.doc : undefined;
        if (d) return { text: d.content, meta: { tier, kind: d.eventKind ?? d.kind, sessionId: d.sessionId, channel: d.channel, speaker: d.speaker, turnId: d.refs[0], refs: d.refs, accessCount: d.accessCount, ...when(d.createdAt) } };
      } else if (tier === 'graph') {
        const r = /^relation:(\d+)$/.exec(id) ? m.graph.relation(Number(id.slice('relation:'.length))) : undefined;
        if (r) return { text: `${r.subject} ${r.predicate} ${r.object}`, meta: { confidence: r.confidence, sentence: r.sentence, sources: m.recall.sources(r.refs ?? []).map((h) => ({ tier: h.tier, id: h.id, text: h.text, sessionId: h.sessionId, turnId: h.turnId, createdAt: h.createdAt })) } };
      }
      throw new NotFoundError(`${tier} memory`, id);
    },
    listDocuments: async (limit, offset) => m.docs.list({ limit, offset }).map((d) => ({ id: d.id, text: d.content, createdAt: d.createdAt, accessCount: d.accessCount })),
    deleteDocument: async (id) => {
      const doc = m.docs.get(id);
      const vec = m.docs.vectorOf(id);
      if (!m.docs.remove(id)) throw new NotFoundError('document', id);
      if (doc && m.status().control) m.control.recordDocument('delete', doc, vec);
    },
    graph: async (o) => {
      if (o.entity) {
        const r = m.graph.expand(o.entity, o.depth ?? 2, { maxEntities: o.limit ?? 150 });
        if (r.entities.length === 0) throw new NotFoundError('entity', o.entity);
        return graphOf(r.entities, r.relations);
      }
      if (o.query) {
        const r = m.graph.recall([o.query], o.depth ?? 1, { maxEntities: o.limit ?? 150, touch: false });
        return graphOf(r.entities, r.relations);
      }
      const ents = m.graph.listEntities({ limit: o.limit ?? 150 }).items;
      const names = new Set(ents.map((e) => e.name.toLowerCase()));
      const rels = m.graph.relations({ limit: (o.limit ?? 150) * 3 }).items.filter((r) => names.has(r.subject.toLowerCase()) && names.has(r.object.toLowerCase()));
      return graphOf(ents, rels);
    },
    deleteEntity: async (name) => {
      m.graph.deleteEntity(name);
    },
    // The person's delete (waiter memory delete-fact, the WebUI): the fact leaves a mark, so the same
    // words distilled again (reindex, a replayed log, an import) do not bring it back (decision 0490).
    deleteRelation: async (id) => {
      const r = Number.isInteger(id) ? m.graph.relation(id) : undefined;
      if (!r || !m.graph.deleteRelation(id)) throw new NotFoundError('fact', String(id));
      if (m.status().control) m.control.markDeletedFact(r.subject, r.predicate, r.object);
    },
    correctRelation: async (id, object) => {
      const r = Number.isInteger(id) ? m.graph.relation(id) : undefined;
      if (!r) throw new NotFoundError('fact', String(id));
      const value = typeof object === 'string' ? object.trim() : '';
      if (!value) throw new ValidationError('the corrected value is empty', { key: 'object' });
      if (value === r.object) return r;
      const edited = m.graph.editRelation(id, { object: value });
      if (m.status().control) m.control.markDeletedFact(r.subject, r.predicate, r.object);
      return edited;
    },
    about: async (q) => aboutPerson(m, q),
    // The owner's own surface (waiter memory commit): "me", "Owner" are the owner's entity.
    commitTriples: async (triples) => m.graph.commit(firstPersonAs(triples)),
    editEntity: async (name, patch) => m.graph.editEntity(name, patch),
    mergeEntities: async (keep, drop) => {
      const r = m.graph.merge(keep, drop);
      return { kept: r.kept, removed: r.removed };
    },
    addDocument: async (text, refs) => {
      const doc = m.docs.commit(text, { refs: refs ?? [], source: 'waiter' });
      if (m.status().control) m.control.recordDocument('create', doc, m.docs.vectorOf(doc.id));
      return { id: doc.id };
    },
    knowledge: {
      list: () => m.knowledge.list(),
      get: async (name) => m.knowledge.get(name),
      put: async (name, content) => {
        await m.knowledge.create(name, content, { overwrite: true });
      },
      create: async (name, content) => {
        await m.knowledge.create(name, content);
      },
      delete: (name) => m.knowledge.delete(name),
      search: (q, k) => m.knowledge.search(q, k),
    },
  };
}
