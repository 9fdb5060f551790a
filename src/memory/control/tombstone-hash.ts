import { createHash } from 'node:crypto';
import { cleanText } from '../embedder/index.js';

/**
 * Tombstones are hashes (K-2): they say that something was forgotten without keeping any of it.
 * A content hash is taken of the whitespace-normalised, lower-cased text, so the same message
 * logged again (an imported log, an old backup) is recognised.
 */
const h = (kind: string, value: string) => createHash('sha256').update(`${kind}\u0000${value}`).digest('hex');

export const turnHash = (turnId: string) => h('turn', turnId);
export const contentHash = (text: string) => h('text', normaliseContent(text));
export const factHash = (subject: string, predicate: string, object: string) => h('fact', `${subject.toLowerCase()}\u0000${predicate}\u0000${object.toLowerCase()}`);
/**
 * A fact the person deleted (decision 0490): not a forget — the words it was distilled from stay —
 * but a mark that the same words, distilled again (a reindex, a replayed log, an import), do not
 * bring it back. Its own kind, so an import's forget of facts never takes a fact said anew.
 */
export const deletedFactHash = (subject: string, predicate: string, object: string) => h('deleted-fact', `${subject.toLowerCase()}\u0000${predicate}\u0000${object.toLowerCase()}`);
export const docHash = (id: string) => h('doc', id);
/**
 * A turn's message and reply together (decision 0320): the tombstone of what was said *in that
 * exchange*. A reply alone ("Sorry, this turn failed: …", said in countless turns) matches nothing;
 * the same reply to the same message does.
 */
export const pairHash = (message: string, reply: string) => h('pair', `${normaliseContent(message)}\u0000${normaliseContent(reply)}`);

export function normaliseContent(text: string): string {
  return cleanText(text).toLowerCase();
}

/**
 * Shortest text (normalised) a content tombstone is recorded for and matched by. A shorter one —
 * "ok", "Noted.", "yes" — is said in countless turns: matched by its text alone, the forget of one
 * such turn would take every other turn that says the same (on import, or when an import's
 * tombstones are applied here). Such a text goes with its turn (by id, or with the turn's longer
 * text), as the local forget's search for quotes already did (same length).
 */
export const CONTENT_MIN = 12;

/** Han, kana and hangul: one such character says about what two letters do. */
const WIDE = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/gu;

/**
 * True when `text` is long enough to be told apart by its text (see {@link CONTENT_MIN}); a CJK
 * character counts twice ("门锁密码是4711" is distinctive, "好的" and "记住了" are not).
 */
export function distinctiveContent(text: string): boolean {
  if (typeof text !== 'string') return false;
  return weighs(normaliseContent(text));
}

/** What a text weighs: its length, a Han, kana or hangul character counting two. */
export function textWeight(text: string): number {
  return text.length + (text.match(WIDE)?.length ?? 0);
}

const weighs = (normalised: string) => textWeight(normalised) >= CONTENT_MIN;

/** The content tombstone a text is matched by, or undefined when it is not distinctive (normalised once: a scan asks this of every text). */
export function contentKey(text: string): string | undefined {
  if (typeof text !== 'string') return undefined;
  const t = normaliseContent(text);
  return weighs(t) ? h('text', t) : undefined;
}

/** The pair tombstone a message and its answer are matched by, or undefined (see {@link distinctivePair}). */
export function pairKey(message: string, reply: string): string | undefined {
  if (typeof message !== 'string' || typeof reply !== 'string') return undefined;
  const m = normaliseContent(message);
  const r = normaliseContent(reply);
  if (!r) return undefined;
  // A turn with no message (a proactive one): its reply with "" — distinctive on its own.
  return (m ? weighs(`${m} ${r}`) : weighs(r)) ? h('pair', `${m}\u0000${r}`) : undefined;
}

/**
 * True when a message and its reply make a pair tombstone (decision 0320): a reply said, and
 * together distinctive ("ok" / "Sure." is said in countless turns). A turn with no message (a
 * proactive one, a heartbeat's) pairs its reply with "" when the reply is distinctive alone — it
 * matches only another turn with no message that said the same (0320 review fix 4); a turn with
 * no reply goes by its id and its message.
 */
export function distinctivePair(message: string, reply: string): boolean {
  if (typeof message !== 'string' || typeof reply !== 'string' || !reply.trim()) return false;
  return message.trim() ? distinctiveContent(`${message} ${reply}`) : distinctiveContent(reply);
}
