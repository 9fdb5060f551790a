import { reservedSpelling } from '../../spec/index.js';

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
  const seen = new Set<string>();
  // "Convention" or a full-width look-alike is the reserved tag itself: the tool gate already asks
  // the person for it (decision 0240), so it also does what it says (injected into every session).
  return cleanStringList(input, 64)
    .map((t) => reservedSpelling(t) ?? t)
    .filter((t) => {
      const k = t.toLowerCase();
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
}
