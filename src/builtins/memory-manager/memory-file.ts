import { createRequire } from 'node:module';
import { ValidationError } from '../../sdk/index.js';
import { cleanStringList, cleanTags, sanitizeImpressions } from './impressions.js';
import { MEMORY_ID_RE } from './memory-id.js';

// yaml (~70 CommonJS modules, ~30 ms) is loaded on the first front-matter that needs it, not at
// daemon start.
const requireLazy = createRequire(import.meta.url);
let yamlParse: ((src: string) => unknown) | undefined;
function parseYaml(src: string): unknown {
  yamlParse ??= (requireLazy('yaml') as typeof import('yaml')).parse;
  return yamlParse(src);
}

/** Where a memory came from: a session and the seqs of the events it covers. */
export interface MemorySource {
  sessionId: string;
  seqs: number[];
}

/** The front-matter of a memory (M-1). Times are ISO-8601 strings. */
export interface MemoryMeta {
  id: string;
  title: string;
  impressions: string[];
  tags: string[];
  enabled: boolean;
  links: string[];
  composedOf: string[];
  source?: MemorySource;
  /**
   * Who said what the memory was saved from, on a chat channel (issue 13 part 5): front-matter
   * `speaker` (`telegram:42`) and `speakerName` (`Alice`), flat text properties Obsidian edits.
   * Absent: the owner (WebUI, CLI) or unknown.
   */
  speaker?: { id: string; name?: string };
  /** Where it was said (`conversation`: the chat's id, `qq:group:5`). */
  conversation?: string;
  createdAt: string;
  updatedAt: string;
  /** Front-matter keys we do not know (added in Obsidian …), kept as they were. */
  extra?: Record<string, unknown>;
  /**
   * Why the file's front matter could not be read whole (a hand edit that is not valid YAML): the
   * record holds only what could be read, so the app does not write the file over (it would lose
   * the rest) until the person fixes it. Never written to the file.
   */
  frontMatterError?: string;
}

/** A whole memory: meta + the immutable snapshot + the editable notes. */
export interface MemoryRecord extends MemoryMeta {
  snapshot: string;
  notes: string;
}

export const SNAPSHOT_HEADING = '## 快照';
export const NOTES_MARKER = '<!-- notes -->';
// The tags of convention memories and session summaries (M-3): shared with the MCP server, which
// guards them for its clients as the agent tools do (decision 0240).
export { TAG_CONVENTION, TAG_SUMMARY } from '../shared/index.js';

const KNOWN_KEYS = ['title', 'impressions', 'tags', 'enabled', 'links', 'composedOf', 'source', 'speaker', 'speakerName', 'conversation', 'createdAt', 'updatedAt'] as const;
const SPEAKER_RE = /^[A-Za-z0-9_-]{1,64}:[^\s]{1,100}$/;
const FM_LINE_RE = /^([A-Za-z_][A-Za-z0-9_-]*):(?: (.*))?$/;

/** Trims blank lines at the start and whitespace at the end; the canonical form of snapshot and notes. */
export function normalizeText(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/^(?:[ \t]*\n)+/, '').replace(/\s+$/, '');
}

/** Throws when a snapshot would break the file layout (a line that is exactly the notes marker). */
export function assertSnapshotText(snapshot: string): void {
  if (snapshot.split('\n').some((l) => l.trim() === NOTES_MARKER)) {
    throw new ValidationError(`the snapshot must not contain a line "${NOTES_MARKER}"`, { key: 'snapshot' });
  }
}

function parseValue(raw: string): unknown {
  const v = raw.trim();
  if (v === '') return '';
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

function parseFrontMatter(block: string): { fm: Record<string, unknown>; error?: string } {
  const lines = block.split('\n').filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#'));
  const out: Record<string, unknown> = {};
  let lineMode = true;
  for (const line of lines) {
    const m = FM_LINE_RE.exec(line);
    if (!m || m[2] === undefined) {
      lineMode = false;
      break;
    }
    out[m[1]] = parseValue(m[2]);
  }
  if (lineMode) return { fm: out };
  // Obsidian's property editor rewrites lists as YAML blocks: read such a block as YAML.
  try {
    const y = parseYaml(block) as unknown;
    if (y && typeof y === 'object' && !Array.isArray(y)) return { fm: y as Record<string, unknown> };
    return { fm: out, error: 'the front matter is not a list of properties' };
  } catch (e) {
    // Lenient for reading (the lines before the fault), but the record is partial: say so.
    return { fm: out, error: `the front matter is not valid YAML: ${String((e as Error).message ?? e).split('\n')[0].slice(0, 200)}` };
  }
}

function toIso(v: unknown, fallback: string): string {
  if (typeof v === 'number' && Number.isFinite(v)) return new Date(v).toISOString();
  if (v instanceof Date && !Number.isNaN(v.getTime())) return v.toISOString();
  if (typeof v === 'string' && v.trim() && !Number.isNaN(Date.parse(v))) return v.trim();
  return fallback;
}

function toSource(v: unknown): MemorySource | undefined {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.sessionId !== 'string' || !o.sessionId) return undefined;
  const seqs = Array.isArray(o.seqs) ? o.seqs.filter((n): n is number => Number.isInteger(n)) : [];
  return { sessionId: o.sessionId, seqs };
}

/** Cleans arbitrary front-matter values into a MemoryMeta (lenient: hand edits never fail a scan). */
export function normalizeMeta(id: string, fm: Record<string, unknown>, fallbackTime: string): MemoryMeta {
  const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : typeof v === 'string' && v ? [v] : []);
  const ids = (v: unknown) => cleanStringList(asList(v), 64).filter((x) => MEMORY_ID_RE.test(x) && x !== id);
  const title = typeof fm.title === 'string' || typeof fm.title === 'number' ? String(fm.title).trim() : '';
  const enabled = fm.enabled === undefined ? true : !(fm.enabled === false || fm.enabled === 'false' || fm.enabled === 0);
  const createdAt = toIso(fm.createdAt, fallbackTime);
  const meta: MemoryMeta = {
    id,
    title: title || id,
    impressions: sanitizeImpressions(asList(fm.impressions)),
    tags: cleanTags(asList(fm.tags)),
    enabled,
    links: ids(fm.links),
    composedOf: ids(fm.composedOf),
    createdAt,
    updatedAt: toIso(fm.updatedAt, createdAt),
  };
  const source = toSource(fm.source);
  if (source) meta.source = source;
  if (typeof fm.speaker === 'string' && SPEAKER_RE.test(fm.speaker.trim())) {
    meta.speaker = { id: fm.speaker.trim() };
    if (typeof fm.speakerName === 'string' && fm.speakerName.trim()) meta.speaker.name = fm.speakerName.trim().slice(0, 100);
  }
  if (typeof fm.conversation === 'string' && fm.conversation.trim() && fm.conversation.length <= 300) meta.conversation = fm.conversation.trim();
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fm)) if (!(KNOWN_KEYS as readonly string[]).includes(k) && k !== 'id') extra[k] = v;
  if (Object.keys(extra).length) meta.extra = extra;
  return meta;
}

/**
 * Parses a memory file. Lenient: a file without front-matter or without the snapshot heading
 * still parses (the body becomes the snapshot), so hand-made notes show up in the library.
 */
export function parseMemoryFile(id: string, text: string, fallbackTime = new Date(0).toISOString()): MemoryRecord {
  const src = text.replace(/\r\n?/g, '\n').replace(/^\uFEFF/, '');
  let fm: Record<string, unknown> = {};
  let fmError: string | undefined;
  let body = src;
  const fmMatch = /^---\n([\s\S]*?)\n---[ \t]*(?:\n|$)/.exec(src) ?? /^---\n---[ \t]*(?:\n|$)/.exec(src);
  if (fmMatch) {
    ({ fm, error: fmError } = parseFrontMatter(fmMatch[1] ?? ''));
    body = src.slice(fmMatch[0].length);
  }
  const lines = body.split('\n');
  const head = lines.findIndex((l) => l.trim() === SNAPSHOT_HEADING);
  const start = head >= 0 ? head + 1 : 0;
  const markerRel = lines.slice(start).findIndex((l) => l.trim() === NOTES_MARKER);
  const marker = markerRel >= 0 ? start + markerRel : -1;
  const snapshot = normalizeText(lines.slice(start, marker >= 0 ? marker : undefined).join('\n'));
  const notes = marker >= 0 ? normalizeText(lines.slice(marker + 1).join('\n')) : '';
  return { ...normalizeMeta(id, fm, fallbackTime), snapshot, notes, ...(fmError ? { frontMatterError: fmError } : {}) };
}

function fmValue(v: unknown): string {
  // JSON is a subset of YAML 1.2: strings are always double-quoted so YAML never misreads them
  // (`yes`, `12:30`, `# x`, `[a]` …) and Obsidian opens the file.
  // Unicode line separators, NEL and BOM are escaped too: some YAML readers treat them as breaks.
  return JSON.stringify(v).replace(/[\u0085\u2028\u2029\ufeff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Serializes a memory: `---` front-matter of `key: <JSON>` lines, `## 快照`, snapshot, notes marker, notes. */
export function serializeMemory(rec: MemoryRecord): string {
  const fm: [string, unknown][] = [
    ['title', rec.title],
    ['impressions', rec.impressions],
    ['tags', rec.tags],
    ['enabled', rec.enabled],
    ['links', rec.links],
    ['composedOf', rec.composedOf],
  ];
  if (rec.source) fm.push(['source', { sessionId: rec.source.sessionId, seqs: rec.source.seqs }]);
  if (rec.speaker) {
    fm.push(['speaker', rec.speaker.id]);
    if (rec.speaker.name) fm.push(['speakerName', rec.speaker.name]);
  }
  if (rec.conversation) fm.push(['conversation', rec.conversation]);
  fm.push(['createdAt', rec.createdAt], ['updatedAt', rec.updatedAt]);
  for (const [k, v] of Object.entries(rec.extra ?? {})) if (FM_LINE_RE.test(`${k}: x`) && v !== undefined) fm.push([k, v]);
  const snapshot = normalizeText(rec.snapshot);
  const notes = normalizeText(rec.notes);
  return [
    '---',
    ...fm.map(([k, v]) => `${k}: ${fmValue(v)}`),
    '---',
    SNAPSHOT_HEADING,
    '',
    ...(snapshot ? [snapshot, ''] : []),
    NOTES_MARKER,
    '',
    ...(notes ? [notes, ''] : []),
  ].join('\n');
}
