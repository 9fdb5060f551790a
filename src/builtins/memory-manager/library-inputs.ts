/**
 * What the library's API takes (zod schemas of save, meta patches and compose) and how a bad value
 * is refused: a ValidationError naming the field, a ConflictError for the immutable fields.
 */
import { z } from 'zod';
import { ConflictError, ValidationError } from '../../sdk/index.js';
import { MEMORY_ID_RE } from './memory-id.js';
import type { MemoryMeta } from './memory-file.js';

const idList = z.array(z.string().regex(MEMORY_ID_RE, 'invalid memory id')).max(500);

/** Input of `save` (memory.save / library_save). */
export const saveInputSchema = z
  .object({
    id: z.string().regex(MEMORY_ID_RE, 'invalid memory id').optional(),
    title: z.string().max(300).optional(),
    snapshot: z.string().min(1).max(500_000),
    notes: z.string().max(500_000).optional(),
    impressions: z.array(z.string()).max(100).optional(),
    tags: z.array(z.string().max(64)).max(50).optional(),
    enabled: z.boolean().optional(),
    links: idList.optional(),
    composedOf: idList.optional(),
    source: z.object({ sessionId: z.string().min(1).max(300), seqs: z.array(z.number().int()).max(100_000) }).optional(),
    speaker: z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{1,64}:[^\s]{1,100}$/, 'a speaker id is <platform>:<user id>'), name: z.string().max(100).optional() }).strict().optional(),
    conversation: z.string().min(1).max(300).optional(),
  })
  .strict();
export type SaveInput = z.infer<typeof saveInputSchema>;

/** Editable meta (memory.updateMeta). The snapshot, source and times are not in it. */
export const metaPatchSchema = z
  .object({
    title: z.string().min(1).max(300).optional(),
    impressions: z.array(z.string()).max(100).optional(),
    tags: z.array(z.string().max(64)).max(50).optional(),
    enabled: z.boolean().optional(),
    links: idList.optional(),
    composedOf: idList.optional(),
  })
  .strict();
export type MetaPatch = z.infer<typeof metaPatchSchema>;

/** Input of `compose`: a new memory made of several (sources untouched). */
export const composeInputSchema = z
  .object({
    ids: idList.min(1),
    title: z.string().min(1).max(300),
    impressions: z.array(z.string()).max(100).optional(),
    tags: z.array(z.string().max(64)).max(50).optional(),
    notes: z.string().max(500_000).optional(),
  })
  .strict();

/** A list entry: meta + a short preview + derived backlinks. */
export interface MemorySummary extends MemoryMeta {
  preview: string;
  backlinks: string[];
}

const IMMUTABLE_FIELDS = ['snapshot', 'id', 'source', 'createdAt'];

/** Parses with zod, throwing a ValidationError naming the field. */
export function parseInput<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const r = schema.safeParse(value ?? {});
  if (!r.success) {
    const issue = r.error.issues[0];
    const path = issue?.path.join('.') ?? '';
    throw new ValidationError(`${what}: ${path ? `${path}: ` : ''}${issue?.message ?? 'invalid'}`, { path });
  }
  return r.data;
}

/** Throws ConflictError when a patch tries to touch the immutable snapshot (or identity/provenance). */
export function assertNoImmutable(patch: unknown): void {
  if (patch && typeof patch === 'object') {
    for (const k of IMMUTABLE_FIELDS) {
      if (k in patch) throw new ConflictError(`the ${k} of a memory is immutable`, { field: k });
    }
  }
}
