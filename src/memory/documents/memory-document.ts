import { z } from 'zod';
import type { Conversation, Speaker } from '../../spec/speaker.js';

/** A document of the Document tier (T-3). */
export interface MemoryDocument {
  id: string;
  /** The text shown and indexed. */
  content: string;
  /** Original event input / response, so doc_query can re-append the event (cold_storage). */
  input: string;
  response: string;
  /** Origin: `archive` (pruned context event), `commit` (doc_commit), `graph` (snapshot), … */
  kind: string;
  source: string;
  channel: string;
  sessionId: string;
  title?: string;
  /** Original time (the event's timestamp for archived events), epoch ms. */
  createdAt: number;
  /** When it entered the store. */
  addedAt: number;
  accessCount: number;
  lastAccess?: number;
  /** Source references (turn ids, dataset dia_ids) carried into derived memories; the first is the turn id. */
  refs: string[];
  meta?: Record<string, unknown>;
  /** Who said it (archived context events carry their event's speaker; absent: the owner, or the agent for its replies). */
  speaker?: Speaker;
  /** Where it was said (absent: the owner's private session). */
  conversation?: Conversation;
  /** Kind of the context event it was archived from (`user`, `agent`, `cold_storage`), if any. */
  eventKind?: string;
}

/** The turn a document belongs to: its first ref (the kernel puts the turn id there). */
export function turnIdOf(d: { refs?: readonly string[] }): string | undefined {
  return d.refs?.[0];
}

/** Largest accepted document content (characters). */
export const MAX_DOC_CHARS = 1_000_000;

/** Input of `DocStore.add` / `commit` (validated, strict). */
export const newDocumentSchema = z.strictObject({
  id: z.string().min(1).max(200).optional(),
  content: z.string().max(MAX_DOC_CHARS).optional(),
  input: z.string().max(MAX_DOC_CHARS).optional(),
  response: z.string().max(MAX_DOC_CHARS).optional(),
  kind: z.string().max(100).optional(),
  source: z.string().max(200).optional(),
  channel: z.string().max(200).optional(),
  sessionId: z.string().max(200).optional(),
  title: z.string().max(1000).optional(),
  createdAt: z.number().finite().optional(),
  refs: z.array(z.string().max(500)).max(10_000).optional(),
  meta: z.record(z.string(), z.unknown()).optional(),
  speaker: z.strictObject({ id: z.string().min(1).max(200), name: z.string().max(200).optional(), platform: z.string().max(64).optional(), userId: z.string().max(100).optional() }).optional(),
  conversation: z.strictObject({ kind: z.enum(['private', 'group']), id: z.string().min(1).max(128), platform: z.string().max(64).optional(), title: z.string().max(200).optional() }).optional(),
});

export type NewDocument = z.infer<typeof newDocumentSchema>;
