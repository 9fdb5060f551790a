import type { GraphRelation, PluginLogger } from '../../spec/index.js';
import { ConflictError } from '../../spec/index.js';
import type { GraphDB } from '../graph/index.js';
import type { LlmLike } from '../distill/index.js';
import { extractJson } from '../distill/index.js';

export interface ReviewOutcome {
  kept: number;
  deleted: number;
  corrected: number;
  /** Relations sent but not answered (left for the next round). */
  unanswered: number;
}

/** The review instruction for a batch of relations. */
export function reviewPrompt(relations: GraphRelation[]): string {
  const rows = relations.map((r) => `#${r.id} (${r.subject}) -[${r.predicate}]-> (${r.object}) conf=${r.confidence.toFixed(2)} | source: ${JSON.stringify((r.sentence ?? '').slice(0, 400))}`);
  return [
    '【记忆复审】Check each relation of the memory graph against its source sentence.',
    ...rows,
    'For each relation answer "keep" (the sentence supports it), "delete" (it does not), or "correct" with the fixed fields.',
    'JSON only: {"reviews":[{"id":1,"action":"keep|delete|correct","subject":"…","predicate":"…","object":"…","confidence":0.9}]}',
  ].join('\n');
}

/**
 * Re-checks unreviewed relations against their source sentences with the LLM (T-8 review loop)
 * and applies the verdicts: keep (optionally a new confidence), delete, or correct.
 */
export async function reviewRelations(graph: GraphDB, llm: LlmLike | undefined, opts: { batch?: number; log?: PluginLogger } = {}): Promise<ReviewOutcome> {
  const out: ReviewOutcome = { kept: 0, deleted: 0, corrected: 0, unanswered: 0 };
  if (!llm?.available()) return out;
  const batch = graph.relationsForReview(opts.batch ?? 20);
  if (!batch.length) return out;
  const res = await llm.chat({
    messages: [
      { role: 'system', content: 'You review facts of a personal knowledge graph. Answer with JSON only.' },
      { role: 'user', content: reviewPrompt(batch) },
    ],
    temperature: 0,
  });
  const json = extractJson(res.text);
  const list = Array.isArray(json) ? json : (json as { reviews?: unknown } | undefined)?.reviews;
  if (!Array.isArray(list)) {
    opts.log?.warn('relation review: the LLM answer was not JSON reviews; nothing changed', { text: res.text.slice(0, 200) });
    out.unanswered = batch.length;
    return out;
  }
  const ids = new Set(batch.map((r) => r.id));
  const reviewed: number[] = [];
  for (const v of list as Record<string, unknown>[]) {
    const id = typeof v?.id === 'number' ? v.id : Number(String(v?.id ?? '').replace(/^#/, ''));
    if (!ids.has(id)) continue;
    ids.delete(id);
    const confidence = typeof v.confidence === 'number' && v.confidence >= 0 && v.confidence <= 1 ? v.confidence : undefined;
    try {
      if (v.action === 'delete') {
        graph.deleteRelation(id);
        out.deleted++;
        continue;
      }
      if (v.action === 'correct') {
        const patch: Record<string, unknown> = {};
        for (const k of ['subject', 'predicate', 'object'] as const) if (typeof v[k] === 'string' && (v[k] as string).trim()) patch[k] = v[k];
        if (confidence !== undefined) patch.confidence = confidence;
        try {
          graph.editRelation(id, patch);
        } catch (e) {
          // The corrected fact already exists: the wrong one simply goes.
          if (!(e instanceof ConflictError)) throw e;
          graph.deleteRelation(id);
        }
        out.corrected++;
      } else {
        if (confidence !== undefined) graph.editRelation(id, { confidence });
        out.kept++;
      }
      reviewed.push(id);
    } catch (e) {
      opts.log?.warn('relation review: could not apply a verdict', { id, error: (e as Error).message });
    }
  }
  graph.markReviewed(reviewed);
  out.unanswered = ids.size;
  return out;
}
