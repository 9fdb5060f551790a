import type { InjectedSource } from '../spec/index.js';

/** Sources kept per slot and turn: enough to explain a block, bounded whatever a plugin returns. */
const MAX_SOURCES = 40;
/** Characters of one source's text kept in the log. */
const MAX_TEXT = 400;
const TIERS = new Set(['context', 'document', 'archive', 'graph', 'library', 'knowledge']);

/**
 * Sources a slot provider named, made safe to log and show: a plugin's provider (external ones
 * answer over RPC) can return anything, so only well-formed items are kept, strings are bounded,
 * and a turn id must look like one (`<session>#<n>`), since the WebUI jumps to it.
 */
export function cleanSources(raw: unknown): InjectedSource[] {
  if (!Array.isArray(raw)) return [];
  const out: InjectedSource[] = [];
  for (const r of raw) {
    if (out.length >= MAX_SOURCES) break;
    if (!r || typeof r !== 'object') continue;
    const o = r as Record<string, unknown>;
    if (typeof o.tier !== 'string' || !TIERS.has(o.tier) || typeof o.id !== 'string' || typeof o.text !== 'string') continue;
    const s: InjectedSource = { tier: o.tier as InjectedSource['tier'], id: o.id.slice(0, 200), text: bound(o.text) };
    if (typeof o.at === 'number' && Number.isFinite(o.at) && o.at > 0) s.at = o.at;
    if (typeof o.sessionId === 'string' && o.sessionId.length <= 200) s.sessionId = o.sessionId;
    if (typeof o.channel === 'string' && o.channel.length <= 100) s.channel = o.channel;
    if (typeof o.turnId === 'string' && /^[^\s#]{1,200}#\d{1,12}$/.test(o.turnId)) s.turnId = o.turnId;
    if (typeof o.seq === 'number' && Number.isInteger(o.seq) && o.seq >= 0) s.seq = o.seq;
    const sp = o.speaker as Record<string, unknown> | undefined;
    if (sp && typeof sp === 'object' && typeof sp.id === 'string') {
      s.speaker = { id: sp.id.slice(0, 200), ...(typeof sp.name === 'string' ? { name: sp.name.slice(0, 100) } : {}), ...(typeof sp.platform === 'string' ? { platform: sp.platform.slice(0, 50) } : {}) };
    }
    const cv = o.conversation as Record<string, unknown> | undefined;
    if (cv && typeof cv === 'object' && (cv.kind === 'private' || cv.kind === 'group') && typeof cv.id === 'string') {
      s.conversation = { kind: cv.kind, id: cv.id.slice(0, 200), ...(typeof cv.title === 'string' ? { title: cv.title.slice(0, 100) } : {}) };
    }
    out.push(s);
  }
  return out;
}

function bound(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_TEXT ? `${flat.slice(0, MAX_TEXT)}…` : flat;
}
