import { createRequire } from 'node:module';
import { isAutoInjected, mentionsReservedTag } from '../spec/index.js';

// The front matter of a library memory, read as the memory-manager reads it (M-1): `key: <JSON>`
// lines, else YAML (Obsidian's property editor); yaml is loaded only when a file needs it.
const requireLazy = createRequire(import.meta.url);
const FM_LINE_RE = /^([A-Za-z_][A-Za-z0-9_-]*):(?: (.*))?$/;
const FM_RE = /^---\n([\s\S]*?)\n---[ \t]*(?:\n|$)/;
const ENABLED_LINE = /^\s*["']?enabled["']?\s*:/;

function lineValue(raw: string): unknown {
  const v = raw.trim();
  if (v === '') return '';
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return v;
  }
}

/** The front matter's properties, or undefined when it cannot be read whole. */
function properties(block: string): Record<string, unknown> | undefined {
  const lines = block.split('\n').filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#'));
  const out: Record<string, unknown> = {};
  if (lines.every((l) => FM_LINE_RE.exec(l)?.[2] !== undefined)) {
    for (const l of lines) {
      const m = FM_LINE_RE.exec(l)!;
      out[m[1]] = lineValue(m[2]!);
    }
    return out;
  }
  try {
    const y = (requireLazy('yaml') as typeof import('yaml')).parse(block) as unknown;
    return y && typeof y === 'object' && !Array.isArray(y) ? (y as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : typeof v === 'string' && v ? [v] : []);

/**
 * A library memory file of an archive, as an import without the person's yes brings it (decision
 * 0350): one whose tags put it into every new session (a convention, a session summary — decision
 * 0240) comes in disabled (`enabled: false` in its front matter), so it reaches no session until
 * the person enables it in the library. `held` says whether it was such a memory; `text` is what to
 * write (undefined: held, but its front matter could not be rewritten safely — leave it out).
 * A front matter that cannot be read whole counts as held when a reserved tag appears in it.
 */
export function holdMemoryFile(raw: string): { held: boolean; text?: string } {
  const src = raw.replace(/\r\n?/g, '\n').replace(/^\uFEFF/, '');
  const m = FM_RE.exec(src);
  if (!m) return { held: false, text: raw };
  const block = m[1] ?? '';
  const props = properties(block);
  const held = props ? isAutoInjected(asList(props.tags).filter((t): t is string => typeof t === 'string')) : mentionsReservedTag(block);
  if (!held) return { held: false, text: raw };
  const rewritten = [...block.split('\n').filter((l) => !ENABLED_LINE.test(l)), 'enabled: false'].join('\n');
  // Checked as the library will read it: disabled, or not imported at all.
  if (properties(rewritten)?.enabled !== false) return { held: true };
  return { held: true, text: `---\n${rewritten}\n---\n${src.slice(m[0].length)}` };
}

/**
 * True when an injection-plan file of an archive (`pinned/plan.json`, `pinned/once.json`) would
 * put something into the owner's turns: pinned messages, memories, a one-shot item. One that
 * cannot be read counts as such.
 */
export function planInjects(name: string, raw: string): boolean {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return true;
  }
  if (name === 'once.json') return !Array.isArray(v) || v.length > 0;
  if (name !== 'plan.json') return false;
  if (!v || typeof v !== 'object' || Array.isArray(v)) return true;
  const p = v as { pinned?: unknown; memories?: unknown; injectOnce?: unknown };
  return asList(p.pinned).length > 0 || asList(p.memories).length > 0 || p.injectOnce === true;
}
