import type { ChangeMeta, ForgetRequest, ForgetResult } from '../../spec/index.js';
import type { ControlTiers } from './control-tiers.js';
import { refSet, type ControlTombstones } from './control-tombstones.js';
import { filesOfTurns } from './forget-plan.js';
import { addForgetResult } from './forget-run.js';
import { contentHash, contentKey, distinctiveContent, distinctivePair, docHash, factHash, pairHash, pairKey, turnHash } from './tombstone-hash.js';
import { findTombstoned } from './tombstone-match.js';

/**
 * Forgets what this install still holds of its tombstones — after an import brought tombstones
 * of forgets made elsewhere: turns whose id or text was forgotten (every tier, index and log, as
 * any forget), facts forgotten by hand, and notes without a turn (warm documents, the archive, the
 * context window) forgotten by id or by text. So a forget on one install reaches the copy another
 * install already had. Nothing when nothing matches (then nothing is recorded). `byContent:
 * false` matches by turn id, fact and document id only (a salvage at start, decision 0280).
 * `refs` (`sha256:<kind>:<hex>`, what an import brought that was not recorded here before)
 * matches by those tombstones only: a forget made here already acted here, exactly — matched
 * again by its texts, it would take the person's other turns that said the same (a second "hi"
 * with the same answer), which that forget, knowing the turn ids, had kept (0320 review fix 2).
 */
export async function applyTombstones(
  t: ControlTiers,
  stones: ControlTombstones,
  forget: (request: Omit<ForgetRequest, 'query'>, meta: ChangeMeta) => Promise<ForgetResult>,
  meta: ChangeMeta = {},
  opts: { byContent?: boolean; refs?: readonly string[] } = {},
): Promise<ForgetResult | undefined> {
  const byContent = opts.byContent ?? true;
  const only = opts.refs === undefined ? undefined : refSet(opts.refs);
  if (only && !only.size) return undefined;
  // Every text of every tier is asked about — a message in the log, the window and a document —
  // so the text tombstones are read once, and each text is hashed once.
  const texts = !byContent ? new Set<string>() : only ? new Set([...only].filter((k) => k.startsWith('content:') || k.startsWith('pair:')).map((k) => k.slice(k.indexOf(':') + 1))) : t.db.tombstoneSet(['content', 'pair']);
  const seen = new Map<string, boolean>();
  const once = (key: string, ask: () => boolean) => {
    let v = seen.get(key);
    if (v === undefined) seen.set(key, (v = ask()));
    return v;
  };
  const found = await findTombstoned(t, {
    turn: (id) => (only ? only.has(`turn:${turnHash(id)}`) : stones.isTombstoned(id)),
    content: (text) => texts.size > 0 && once(`c\u0000${text}`, () => texts.has(contentKey(text) ?? '')),
    pair: (message, reply) => texts.size > 0 && once(`p\u0000${message}\u0000${reply}`, () => texts.has(pairKey(message, reply) ?? '')),
    fact: (s, p, o) => (only ? only.has(`fact:${factHash(s, p, o)}`) : stones.isTombstonedFact(s, p, o)),
    doc: (id) => (only ? only.has(`document:${docHash(id)}`) : stones.isTombstonedDocument(id)),
  });
  if (!found.turnIds.length && !found.relationIds.length && !found.documents.length) return undefined;
  // A forget request takes at most 5,000 of each: larger sets go in batches.
  let total: ForgetResult | undefined;
  const B = 5000;
  const { turnIds, relationIds, documents } = found;
  for (let i = 0; i < Math.max(turnIds.length, relationIds.length, documents.length); i += B) {
    const [tb, r, d] = [turnIds.slice(i, i + B), relationIds.slice(i, i + B), documents.slice(i, i + B)];
    const res = await forget({ ...(tb.length ? { turnIds: tb } : {}), ...(r.length ? { relationIds: r } : {}), ...(d.length ? { documents: d } : {}) }, meta);
    if (!total) total = res;
    else addForgetResult(total, res);
  }
  return total;
}

/** What {@link applyTombstones} would forget here if these refs (`sha256:<kind>:<hex>`, an archive's) were recorded: counts only. */
export async function previewTombstones(t: ControlTiers, refs: readonly string[]): Promise<{ turns: number; facts: number; documents: number; files: number }> {
  const set = refSet(refs);
  if (!set.size) return { turns: 0, facts: 0, documents: 0, files: 0 };
  const found = await findTombstoned(t, {
    turn: (id) => set.has(`turn:${turnHash(id)}`),
    content: (text) => distinctiveContent(text) && set.has(`content:${contentHash(text)}`),
    pair: (message, reply) => distinctivePair(message, reply) && set.has(`pair:${pairHash(message, reply)}`),
    fact: (s, p, o) => set.has(`fact:${factHash(s, p, o)}`),
    doc: (id) => set.has(`document:${docHash(id)}`),
  });
  // The files those turns' messages brought go with them too (decision 0370).
  const files = await filesOfTurns(t, new Set(found.turnIds));
  return { turns: found.turnIds.length, facts: found.relationIds.length, documents: found.documents.length, files };
}
