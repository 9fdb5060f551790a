/**
 * Client-side preview of the injection budget (M-6), for instant feedback while limits are
 * edited: pinned messages first within min(pinChars, totalChars), then memories each within
 * memoryChars, all within totalChars. The daemon's `plan.preview` stays authoritative.
 */
export interface BudgetLimits {
  pinChars: number;
  memoryChars: number;
  totalChars: number;
}

export interface BudgetPreview {
  pinned: number;
  memories: number;
  total: number;
  /** Items shortened to fit. */
  truncated: string[];
  /** Items left out: no room. */
  dropped: string[];
  /** 0…100 share of totalChars in use. */
  percent: number;
}

/** Length in code points (a Chinese character or an emoji counts 1). */
export function chars(text: string): number {
  return Array.from(text).length;
}

export function previewBudget(pinned: { id: string; text: string }[], memories: { id: string; text: string }[], limits: BudgetLimits): BudgetPreview {
  const total = Math.max(0, limits.totalChars);
  const pinCap = Math.min(Math.max(0, limits.pinChars), total);
  const out: BudgetPreview = { pinned: 0, memories: 0, total: 0, truncated: [], dropped: [], percent: 0 };
  for (const p of pinned) {
    const room = pinCap - out.pinned;
    const n = chars(p.text);
    if (room <= 0) {
      out.dropped.push(p.id);
      continue;
    }
    if (n > room) out.truncated.push(p.id);
    out.pinned += Math.min(n, room);
  }
  out.total = out.pinned;
  for (const m of memories) {
    const room = total - out.total;
    const n = Math.min(chars(m.text), Math.max(0, limits.memoryChars));
    if (room <= 0 || limits.memoryChars <= 0) {
      out.dropped.push(m.id);
      continue;
    }
    if (chars(m.text) > n || n > room) out.truncated.push(m.id);
    const used = Math.min(n, room);
    out.memories += used;
    out.total += used;
  }
  out.percent = total > 0 ? Math.round((out.total / total) * 100) : 0;
  return out;
}
