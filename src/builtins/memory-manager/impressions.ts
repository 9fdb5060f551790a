import { AUTO_INJECT_TAGS } from '../../spec/index.js';

/** At most 12 impressions per memory (M-2). */
export const MAX_IMPRESSIONS = 12;
/** At most 40 characters per impression (M-2). */
export const MAX_IMPRESSION_CHARS = 40;

/**
 * Cleans impressions (seed: `sanitizeImpressions`): strings only, whitespace collapsed and
 * trimmed, cut to 40 characters, empty dropped, duplicates dropped, at most 12 kept.
 */
export function sanitizeImpressions(input: unknown): string[] {
  if (!Array.isArray(input)) return [];
  const out: string[] = [];
  const seen = new Set<string>();
  for (const raw of input) {
    if (typeof raw !== 'string' && typeof raw !== 'number') continue;
    const s = Array.from(String(raw).replace(/\s+/g, ' ').trim()).slice(0, MAX_IMPRESSION_CHARS).join('').trim();
    if (!s || seen.has(s)) continue;
    seen.add(s);
    out.push(s);
    if (out.length >= MAX_IMPRESSIONS) break;
  }
  return out;
}

/** Cleans a list of tags or ids: strings, trimmed, non-empty, unique. */
export function cleanStringList(input: unknown, maxLen = 200): string[] {
  if (!Array.isArray(input)) return [];
  const out: string[] = [];
  for (const raw of input) {
    if (typeof raw !== 'string') continue;
    const s = raw.trim().slice(0, maxLen);
    if (s && !out.includes(s)) out.push(s);
  }
  return out;
}

/**
 * A memory's tags: trimmed, at most 64 characters, each once — "pets" and "PETS" are one tag (the
 * first spelling stays), as a person reading the row would count them.
 */
export function cleanTags(input: unknown): string[] {
  const kept = new Map<string, string>();
  for (const t of cleanStringList(input, 64)) {
    const k = t.toLowerCase();
    // A reserved tag written exactly ("convention") wins over another case of it: that spelling is
    // the one that injects. Another case of it is kept as written — a plain tag — never turned into
    // the reserved one here: that would start injecting a memory nobody asked to (0240, 0480).
    if (!kept.has(k) || AUTO_INJECT_TAGS.includes(t)) kept.set(k, t);
  }
  return [...kept.values()];
}
