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
export const docHash = (id: string) => h('doc', id);

export function normaliseContent(text: string): string {
  return cleanText(text).toLowerCase();
}
