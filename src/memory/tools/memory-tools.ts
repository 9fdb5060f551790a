import { z } from 'zod';
import type { ContextWindow, GraphEntity, GraphRelation, RecallHit, ToolDef, ToolInvocation } from '../../spec/index.js';
import { localIso, systemTimeZone, ValidationError } from '../../spec/index.js';
import type { GraphDB } from '../graph/index.js';
import { defineTool } from './define-tool.js';
import { currentFirst, toolFact } from './tool-fact.js';

/** What doc_commit needs of the Document tier (DocStore fits). */
export interface DocToolStore {
  commit(content: string, extra?: { title?: string; kind?: string; source?: string; channel?: string; sessionId?: string; refs?: string[] }): { id: string };
  readonly size?: number;
}

/** The recall over every tier the tools use (MemoryRecall fits). */
export interface ToolRecall {
  /** `scope`: only what was said in these conversations; absent: everything. */
  search(query: string, opts?: { k?: number; scope?: readonly string[] }): Promise<RecallHit[]>;
  /** doc_query: recalls (inside `scope` when given), and brings documents and archived turns back into the context window. */
  consume(query: string, k: number, context: ContextWindow, scope?: readonly string[]): Promise<{ restored: number; hits: RecallHit[] }>;
}

export interface MemoryToolDeps {
  graph?: GraphDB;
  indexer?: {
    markRecalled(names: readonly string[], turnId: string): void;
    search?(input: string): Promise<{ keywords: string[]; vectorHits: string[] }>;
  };
  docs?: DocToolStore;
  context?: ContextWindow;
  recall?: ToolRecall;
  recallDepth?: () => number;
  /** Extra counters for memory_introspect (embedder model, heartbeat runs …). */
  introspect?: () => Record<string, unknown>;
  /** The person's time zone (an IANA name, decision 0270): a hit's `time` and a fact's days are theirs. Default: the system's. */
  timeZone?: () => string;
  /**
   * The conversations a call may read memory from (R-5, decision 0360); undefined: everything.
   * Without it, a call is scoped by the kernel's `call.scope` alone.
   */
  scopeOf?: (call: ToolInvocation) => readonly string[] | undefined;
  /** Whether a fact may be shown inside a scope (its sources were said there); without it a scoped call gets no facts. */
  factInScope?: (relation: GraphRelation, scope: readonly string[]) => boolean;
}

/** The scope of a call: the deps' rule, else what the kernel put on the call. */
function scopeOfCall(deps: MemoryToolDeps, call: ToolInvocation): readonly string[] | undefined {
  return deps.scopeOf ? deps.scopeOf(call) : call.scope;
}

/**
 * A recall hit as a tool shows it: text and provenance, compact. `time` is ISO 8601 with the
 * offset of `zone` (the person's, decision 0270): the model reads their wall clock.
 */
export function toolHit(h: RecallHit, maxChars = 1500, zone: string = systemTimeZone()): Record<string, unknown> {
  const o: Record<string, unknown> = {
    tier: h.tier,
    time: h.createdAt ? localIso(h.createdAt, zone) : undefined,
    text: h.text.length > maxChars ? `${h.text.slice(0, maxChars)}…` : h.text,
  };
  if (h.sessionId) o.session = h.sessionId;
  if (h.channel) o.channel = h.channel;
  if (h.speaker) o.speaker = h.speaker.name ?? h.speaker.id;
  if (h.turnId) o.turn = h.turnId;
  return o;
}

function compactEntity(e: GraphEntity): Record<string, unknown> {
  return Object.keys(e.attributes).length ? { name: e.name, type: e.type, attributes: e.attributes } : { name: e.name, type: e.type };
}

function compactRelation(r: GraphRelation, zone: string): Record<string, unknown> {
  const o = toolFact(r, zone);
  if (r.sentence) o.source = r.sentence.slice(0, 200);
  return o;
}

const name = z.string().min(1).max(200);
const tripleInput = z.object({
  subject: name,
  predicate: z.string().min(1).max(100),
  object: name,
  confidence: z.number().min(0).max(1).optional(),
  subject_type: z.string().max(40).optional(),
  object_type: z.string().max(40).optional(),
  sentence: z.string().max(4000).optional(),
});

/** Graph tools (T-6): memory_recall, memory_commit, memory_merge, memory_purge, memory_edit, memory_delete_entity, memory_introspect. */
export function graphTools(deps: MemoryToolDeps & { graph: GraphDB }): ToolDef[] {
  const { graph } = deps;
  return [
    defineTool(
      'memory_recall',
      'Recall facts from the long-term memory graph: entities matching the keywords (or the query) and their relations up to `depth` hops.',
      z.object({ keywords: z.array(z.string().min(1).max(200)).max(20).optional(), query: z.string().max(2000).optional(), depth: z.number().int().min(0).max(5).optional() }),
      async (a, call) => {
        let kws = a.keywords ?? [];
        if (!kws.length && a.query) {
          const s = deps.indexer?.search ? await deps.indexer.search(a.query) : undefined;
          kws = s ? [...s.vectorHits, ...s.keywords] : [];
          if (!kws.length) kws = [a.query.slice(0, 200)];
        }
        if (!kws.length) throw new ValidationError('memory_recall: give keywords or a query', { tool: 'memory_recall' });
        const scope = scopeOfCall(deps, call);
        const zone = deps.timeZone?.() ?? systemTimeZone();
        const r = graph.recall(kws.slice(0, 50), a.depth ?? deps.recallDepth?.() ?? 2, { maxEntities: 40, maxRelations: 80, ...(scope ? { touch: false } : {}) });
        let { entities, relations } = r;
        if (scope) {
          // A group (or someone else's chat) gets only facts distilled from what was said there,
          // and only the entities those facts name (R-5, decision 0360).
          const inScope = deps.factInScope;
          relations = inScope ? relations.filter((x) => inScope(x, scope)) : [];
          const named = new Set(relations.flatMap((x) => [x.subject.toLowerCase(), x.object.toLowerCase()]));
          entities = entities.filter((e) => named.has(e.name.toLowerCase()));
        }
        deps.indexer?.markRecalled(
          entities.map((e) => e.name),
          call.turnId,
        );
        // An entity's attributes have no source (typed in with memory_edit, aliases from merges):
        // a scoped turn gets the names and types alone (decision 0360: nothing unsourced).
        const out: Record<string, unknown> = { entities: entities.map((e) => (scope ? { name: e.name, type: e.type } : compactEntity(e))), relations: currentFirst(relations).map((x) => compactRelation(x, zone)) };
        // The turns that best match the question, from every tier (K-1), with their provenance.
        if (deps.recall) {
          const q = a.query ?? kws.join(' ');
          out.evidence = (await deps.recall.search(q, { k: 5, ...(scope ? { scope } : {}) })).filter((h) => h.tier !== 'graph').map((h) => toolHit(h, 500, deps.timeZone?.()));
        }
        return out;
      },
      { audience: 'anyone' },
    ),
    defineTool(
      'memory_commit',
      'Write facts to the long-term memory graph as triples (subject, predicate, object). Use snake_case predicates; keep the source sentence when you have it.',
      z.object({ triples: z.array(tripleInput).min(1).max(100) }),
      (a, call) => ({
        committed: graph.commit(
          a.triples.map((t) => ({ subject: t.subject, predicate: t.predicate, object: t.object, confidence: t.confidence, subjectType: t.subject_type, objectType: t.object_type, sentence: t.sentence, refs: [call.turnId] })),
        ),
      }),
    ),
    defineTool('memory_merge', 'Merge two entity nodes that mean the same thing: `merge` is folded into `keep` (relations move over, the name stays as an alias).', z.object({ keep: name, merge: name }), (a) =>
      graph.merge(a.keep, a.merge),
    ),
    defineTool(
      'memory_purge',
      'Delete memory: the named entities (with their relations), relations by id, relations below a confidence, and/or orphan entities.',
      z.object({ entities: z.array(name).max(100).optional(), relation_ids: z.array(z.number().int()).max(500).optional(), below_confidence: z.number().min(0).max(1).optional(), orphans: z.boolean().optional() }),
      (a) => {
        if (!a.entities?.length && !a.relation_ids?.length && a.below_confidence === undefined && !a.orphans) {
          throw new ValidationError('memory_purge: say what to delete (entities, relation_ids, below_confidence or orphans)', { tool: 'memory_purge' });
        }
        return { deleted: graph.purge({ names: a.entities, relationIds: a.relation_ids, belowConfidence: a.below_confidence, orphans: a.orphans }) };
      },
    ),
    defineTool(
      'memory_edit',
      'Edit memory: an entity (rename, retype, set attributes — null removes one) or a relation by id (subject, predicate, object, confidence).',
      z.object({
        entity: name.optional(),
        new_name: name.optional(),
        type: z.string().min(1).max(40).optional(),
        attributes: z.record(z.string(), z.union([z.string().max(1000), z.number(), z.boolean(), z.null()])).optional(),
        relation_id: z.number().int().optional(),
        subject: name.optional(),
        predicate: z.string().min(1).max(100).optional(),
        object: name.optional(),
        confidence: z.number().min(0).max(1).optional(),
      }),
      (a) => {
        if ((a.entity === undefined) === (a.relation_id === undefined)) throw new ValidationError('memory_edit: give exactly one of entity or relation_id', { tool: 'memory_edit' });
        if (a.entity !== undefined) return { entity: compactEntity(graph.editEntity(a.entity, { name: a.new_name, type: a.type, attributes: a.attributes })) };
        return { relation: compactRelation(graph.editRelation(a.relation_id as number, { subject: a.subject, predicate: a.predicate, object: a.object, confidence: a.confidence }), deps.timeZone?.() ?? systemTimeZone()) };
      },
    ),
    defineTool('memory_delete_entity', 'Delete one entity and all of its relations from the memory graph.', z.object({ name }), (a) => ({ deleted: graph.deleteEntity(a.name) })),
    defineTool('memory_introspect', 'Show memory statistics: graph size, entity types, top predicates, documents and context size.', z.object({}), () => ({
      graph: graph.stats(),
      documents: deps.docs?.size,
      contextEvents: deps.context?.events().length,
      ...(deps.introspect?.() ?? {}),
    })),
  ];
}

/**
 * Document tools (T-6): doc_query (recalls from every tier; documents and archived turns it finds
 * return to the timeline as cold_storage) and doc_commit.
 */
export function docTools(deps: MemoryToolDeps & { docs: DocToolStore; context: ContextWindow; recall: ToolRecall }): ToolDef[] {
  const { docs, context, recall } = deps;
  return [
    defineTool(
      'doc_query',
      'Search the long-term memory of conversations (recent and archived turns, documents, facts). What is found is put back into the current context timeline at its original time.',
      z.object({ query: z.string().min(1).max(2000), limit: z.number().int().min(1).max(10).optional() }),
      async (a, call) => {
        const r = await recall.consume(a.query, a.limit ?? 5, context, scopeOfCall(deps, call));
        return { restored: r.restored, documents: r.hits.map((h) => toolHit(h, undefined, deps.timeZone?.())) };
      },
      { audience: 'anyone' },
    ),
    defineTool('doc_commit', 'Save a note or summary as a memory document (searchable later with doc_query).', z.object({ content: z.string().min(1).max(100_000), title: z.string().max(200).optional() }), (a, call) => {
      const d = docs.commit(a.content, { title: a.title, kind: 'commit', sessionId: call.sessionId, refs: [call.turnId] });
      return { saved: d.id };
    }),
  ];
}
