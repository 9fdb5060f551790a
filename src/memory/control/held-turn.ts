import type { ContextEvent, Triple } from '../../spec/index.js';
import type { MemoryDocument } from '../documents/index.js';
import type { StoredVector } from '../embedder/index.js';
import type { GraphState } from '../graph/index.js';

/** A vector as kept in JSON: the model that made it and its float32 bytes in base64. */
export interface HeldVector {
  model: string;
  data: string;
}

/**
 * What the memory tiers held of an excluded turn (M-9), kept aside until it is restored: its
 * context events, warm documents and archived rows (with their vectors), the graph rows its
 * sources took part in (before and after they were detached) and facts committed while it was
 * excluded. Restore puts each back where it was.
 */
export interface HeldTurn {
  v: 1;
  events: ContextEvent[];
  docs: { doc: MemoryDocument; vec?: HeldVector }[];
  archived: { doc: MemoryDocument; vec?: HeldVector }[];
  /** Each detach of the turn's refs from the graph: the rows before, and the refs taken out. */
  graph: { before: GraphState; refs: string[] }[];
  triples: Triple[];
}

export function emptyHeld(): HeldTurn {
  return { v: 1, events: [], docs: [], archived: [], graph: [], triples: [] };
}

/** Parses a stored payload; anything unreadable counts as empty (and is logged by the caller). */
export function parseHeld(raw: string): HeldTurn {
  try {
    const j = JSON.parse(raw) as Partial<HeldTurn>;
    const h = emptyHeld();
    if (Array.isArray(j.events)) h.events = j.events;
    if (Array.isArray(j.docs)) h.docs = j.docs;
    if (Array.isArray(j.archived)) h.archived = j.archived;
    if (Array.isArray(j.graph)) h.graph = j.graph;
    if (Array.isArray(j.triples)) h.triples = j.triples;
    return h;
  } catch {
    return emptyHeld();
  }
}

export function heldIsEmpty(h: HeldTurn): boolean {
  return !h.events.length && !h.docs.length && !h.archived.length && !h.graph.length && !h.triples.length;
}

export function packVector(v: StoredVector | undefined): HeldVector | undefined {
  if (!v) return undefined;
  return { model: v.modelId, data: Buffer.from(v.vector.buffer, v.vector.byteOffset, v.vector.byteLength).toString('base64') };
}

export function unpackVector(v: HeldVector | undefined): StoredVector | undefined {
  if (!v) return undefined;
  const bytes = Buffer.from(v.data, 'base64');
  const copy = new Uint8Array(bytes);
  return { modelId: v.model, vector: new Float32Array(copy.buffer, 0, Math.floor(copy.byteLength / 4)) };
}

/** Every text a held turn carries (forget scans and scrubs them). */
export function heldTexts(h: HeldTurn): string[] {
  return [
    ...h.events.flatMap((e) => [e.input, e.response, ...(e.toolOutputs ?? []).map((t) => t.text)]),
    ...h.docs.flatMap((d) => [d.doc.content, d.doc.input, d.doc.response]),
    ...h.archived.flatMap((d) => [d.doc.content, d.doc.input, d.doc.response]),
    ...h.triples.flatMap((t) => [t.sentence ?? '', `${t.subject} ${t.predicate} ${t.object}`]),
  ].filter((t) => typeof t === 'string' && t.trim().length > 0);
}
