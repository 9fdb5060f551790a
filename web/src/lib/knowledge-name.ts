/**
 * Knowledge entry names in the page: the knowledge base's own rule (src/knowledge
 * `assertKnowledgeName`: a letter or digit first, then letters, digits, spaces, "_", "-", ".", at
 * most 64 characters, no "..", no dot or space at the end), checked before a request is sent, and
 * a name made from a file's name for "Add from file…".
 */
const NAME_RE = /^[\p{L}\p{N}][\p{L}\p{N} _.-]{0,63}$/u;

/** True when the daemon will take `name` for a knowledge entry. */
export function isKnowledgeName(name: string): boolean {
  const n = name.normalize('NFC');
  return NAME_RE.test(n) && !n.includes('..') && !/[. ]$/.test(n);
}

/**
 * An entry name from a file's name: its extension dropped, characters the rule does not take
 * ("(1)", "，", "#") made spaces, a letter or digit first, at most 64 characters
 * (`体检报告 (2024).pdf` → `体检报告 2024`). Empty when nothing of it is left.
 */
export function knowledgeNameFromFile(fileName: string): string {
  const base = (fileName.split(/[\\/]/).pop() ?? '').normalize('NFC');
  const stem = base.includes('.') && !base.startsWith('.') ? base.slice(0, base.lastIndexOf('.')) : base;
  const cleaned = stem
    .replace(/[^\p{L}\p{N} _.-]+/gu, ' ')
    .replace(/\.{2,}/g, '.')
    .replace(/\s+/g, ' ')
    .replace(/^[^\p{L}\p{N}]+/u, '');
  return [...cleaned].slice(0, 64).join('').replace(/[. _-]+$/, '');
}
