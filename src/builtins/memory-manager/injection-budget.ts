import type { MemoryRecord } from './memory-file.js';

/** The exact first and last line of the injected block (M-6). */
export const BLOCK_HEADER = '=== 记忆库上下文（用户指定，供参考；非当前对话的实时内容） ===';
export const BLOCK_FOOTER = '=== 记忆库上下文结束 ===';
/** Length of the preview of the compact view. */
export const COMPACT_PREVIEW_CHARS = 300;

export interface BudgetLimits {
  pinChars: number;
  memoryChars: number;
  totalChars: number;
}

export type BudgetSection = 'pinned' | 'memory' | 'once';

/** One candidate piece of the block: a heading (not counted) and its text (counted). */
export interface BudgetCandidate {
  id?: string;
  heading: string;
  text: string;
}

export interface BudgetInput {
  pinned: BudgetCandidate[];
  memories: BudgetCandidate[];
  once: BudgetCandidate[];
  limits: BudgetLimits;
}

export interface BudgetItem extends BudgetCandidate {
  section: BudgetSection;
  /** Characters (code points) of `text` after clipping. */
  chars: number;
  truncated: boolean;
}

export interface BudgetResult {
  items: BudgetItem[];
  dropped: { section: BudgetSection; id?: string; heading: string }[];
  used: { pinned: number; memories: number; once: number; total: number };
  caps: { pinned: number; memory: number; total: number };
}

/** Length in code points (a Chinese character counts 1, an emoji 1). */
export function charLength(text: string): number {
  return Array.from(text).length;
}

/** Clips to at most `max` code points; a clipped text ends with `…` (counted). */
export function clip(text: string, max: number): { text: string; truncated: boolean } {
  const cps = Array.from(text);
  if (cps.length <= max) return { text, truncated: false };
  if (max <= 0) return { text: '', truncated: true };
  return { text: `${cps.slice(0, max - 1).join('')}…`, truncated: true };
}

/**
 * The budget arithmetic of M-6, a pure function: pinned messages first within
 * `min(pinChars, totalChars)`; then memories, each within `memoryChars` and all together within
 * what is left of `totalChars`; then the once queue within what is still left. Only the texts
 * count, headings and the wrapper do not. An item with no room left is dropped (and reported).
 */
export function allocateBudget(input: BudgetInput): BudgetResult {
  const total = Math.max(0, input.limits.totalChars);
  const pinCap = Math.max(0, Math.min(input.limits.pinChars, total));
  const memCap = Math.max(0, input.limits.memoryChars);
  const items: BudgetItem[] = [];
  const dropped: BudgetResult['dropped'] = [];
  const used = { pinned: 0, memories: 0, once: 0, total: 0 };
  const take = (section: BudgetSection, c: BudgetCandidate, room: number): number => {
    if (!c.text) return 0;
    if (room <= 0) {
      dropped.push({ section, id: c.id, heading: c.heading });
      return 0;
    }
    const r = clip(c.text, room);
    const chars = charLength(r.text);
    items.push({ ...c, section, text: r.text, chars, truncated: r.truncated });
    used.total += chars;
    return chars;
  };
  for (const p of input.pinned) used.pinned += take('pinned', p, pinCap - used.pinned);
  for (const m of input.memories) used.memories += take('memory', m, Math.min(memCap, total - used.total));
  for (const o of input.once) used.once += take('once', o, total - used.total);
  return { items, dropped, used, caps: { pinned: pinCap, memory: memCap, total } };
}

const SECTION_TITLES: Record<BudgetSection, string> = { pinned: '## 固定消息', memory: '## 记忆', once: '## 一次性注入' };

/** Renders allocated items into the wrapped block; undefined when nothing fits. */
export function renderBlock(result: BudgetResult): string | undefined {
  if (result.items.length === 0) return undefined;
  const out: string[] = [BLOCK_HEADER];
  let section: BudgetSection | undefined;
  for (const it of result.items) {
    if (it.section !== section) {
      section = it.section;
      out.push('', SECTION_TITLES[section]);
    }
    out.push('', it.heading, it.text);
  }
  out.push('', BLOCK_FOOTER);
  return out.join('\n');
}

/** The text of a memory in the block: full = impressions + snapshot + notes; compact = impressions + 300-char preview. */
export function memoryText(rec: Pick<MemoryRecord, 'impressions' | 'snapshot' | 'notes'>, view: 'full' | 'compact'): string {
  const imp = rec.impressions.length ? `印象：${rec.impressions.join('、')}\n` : '';
  if (view === 'compact') return `${imp}预览：${clip(rec.snapshot, COMPACT_PREVIEW_CHARS).text}`;
  return `${imp}${rec.snapshot}${rec.notes ? `\n\n批注：\n${rec.notes}` : ''}`;
}

/** The heading of a memory in the block (title + id). */
export function memoryHeading(rec: Pick<MemoryRecord, 'id' | 'title'>): string {
  return `### ${rec.title}（${rec.id}）`;
}
