import type { T } from '../i18n';

/** The tags the seed gives a meaning (convention, 会话总结, 复盘) and their dictionary keys. */
const KNOWN = { convention: 'tag.convention', 会话总结: 'tag.会话总结', 复盘: 'tag.复盘' } as const;

/**
 * What a memory's tag is called in the page's language. The stored tag stays as written (it is the
 * seed's and Obsidian's format: `会话总结` in an English UI is data, not a word to read); only the
 * known ones are translated, a person's own tags are shown as they typed them.
 */
export function tagLabel(t: T, tag: string): string {
  // Own keys only: a tag called "constructor" or "toString" is a person's own tag, not a key.
  return Object.prototype.hasOwnProperty.call(KNOWN, tag) ? t(KNOWN[tag as keyof typeof KNOWN]) : tag;
}

/**
 * A tag as the person typed it, as stored: the name the page shows for a known tag ("规约" in the
 * Chinese page, "Convention" in the English one, in any letter case) is that tag. A tag the memory
 * already has is kept as it is spelled (a person's own "Convention" stays their own tag when they
 * edit something else).
 */
export function tagFromInput(t: T, typed: string, existing: readonly string[] = []): string {
  if (existing.includes(typed)) return typed;
  const low = typed.toLowerCase();
  for (const [tag, key] of Object.entries(KNOWN)) if (t(key).toLowerCase() === low) return tag;
  return typed;
}
