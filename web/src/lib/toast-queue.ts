/**
 * The toasts on screen (pure, so it is tested without a page): at most {@link MAX_TOASTS}, the
 * newest last; the same message again is one toast with a count, not another one on the pile; an
 * error outlives the notes around it (a note goes first when there are too many); each stays long
 * enough to be read — longer for a longer text —, and not while the pointer rests on the toasts.
 */
export interface ToastItem {
  id: number;
  kind: 'info' | 'error' | 'ok';
  text: string;
  /** How many times this message came while it was shown. */
  count: number;
  /** When it goes (ms since the epoch); Infinity: kept until closed (its whole text opened, {@link keepToast}). */
  until: number;
  /** The conversation it is about (a reply or notice elsewhere): a click on the toast opens it (decision 0690). */
  sessionId?: string;
  /** The person opened its whole text (a long one shows its first lines until then). */
  opened?: boolean;
}

/** A toast's text up to this many characters; a longer one ends in "…" and opens to the rest ({@link toastPreview}). */
export const TOAST_PREVIEW_CHARS = 140;

/** Toasts shown at once. */
export const MAX_TOASTS = 3;
/** After the pointer leaves the toasts, each stays at least this long. */
export const LINGER_MS = 2000;

/** How long a toast stays: 4 s for a note, 8 s for an error, a little more per character past 40, at most 15 s. */
export function toastLife(kind: ToastItem['kind'], text: string): number {
  const base = kind === 'error' ? 8000 : 4000;
  return Math.min(15_000, base + Math.max(0, Array.from(text).length - 40) * 60);
}

/** The list with one more message: a repeat of one shown moves to the end with its count up; the pile keeps its limit. */
export function pushToast(list: readonly ToastItem[], t: { id: number; kind: ToastItem['kind']; text: string; sessionId?: string }, now: number): ToastItem[] {
  const until = now + toastLife(t.kind, t.text);
  const same = list.find((x) => x.kind === t.kind && x.text === t.text && x.sessionId === t.sessionId);
  const out = same ? [...list.filter((x) => x !== same), { ...same, count: same.count + 1, until: Math.max(same.until, until) }] : [...list, { ...t, count: 1, until }];
  while (out.length > MAX_TOASTS) {
    // The oldest note goes first; only when all are errors, the oldest error.
    const i = out.findIndex((x, j) => x.kind !== 'error' && j < out.length - 1);
    out.splice(i >= 0 ? i : 0, 1);
  }
  return out;
}

/** The toasts still due at `now`. */
export function expireToasts(list: readonly ToastItem[], now: number): ToastItem[] {
  return list.filter((x) => x.until > now);
}

/** When the next toast goes (undefined: none shown, or none goes by itself). */
export function nextExpiry(list: readonly ToastItem[]): number | undefined {
  const due = list.map((x) => x.until).filter((u) => Number.isFinite(u));
  return due.length ? Math.min(...due) : undefined;
}

/** The person opened this toast's whole text: it stays until they close it. */
export function keepToast(list: readonly ToastItem[], id: number): ToastItem[] {
  return list.map((x) => (x.id === id ? { ...x, until: Infinity, opened: true } : x));
}

/**
 * What a toast shows before it is opened: its text up to {@link TOAST_PREVIEW_CHARS} characters
 * (whole characters: an emoji or a Chinese character is not split), cut at a space when one is near
 * the end, and whether there is more.
 */
export function toastPreview(text: string, limit = TOAST_PREVIEW_CHARS): { text: string; cut: boolean } {
  const chars = Array.from(text);
  if (chars.length <= limit) return { text, cut: false };
  const head = chars.slice(0, limit).join('');
  const space = head.lastIndexOf(' ');
  return { text: `${(space > head.length * 0.75 ? head.slice(0, space) : head).trimEnd()}…`, cut: true };
}

/** After the pointer rested on the toasts: each stays at least {@link LINGER_MS} more. */
export function lingerToasts(list: readonly ToastItem[], now: number): ToastItem[] {
  return list.map((x) => (x.until < now + LINGER_MS ? { ...x, until: now + LINGER_MS } : x));
}
