import { describe, expect, it } from 'vitest';
import { expireToasts, keepToast, LINGER_MS, lingerToasts, MAX_TOASTS, nextExpiry, pushToast, TOAST_PREVIEW_CHARS, toastLife, toastPreview, type ToastItem } from './toast-queue';

const push = (list: ToastItem[], id: number, text: string, kind: ToastItem['kind'] = 'info', now = 0) => pushToast(list, { id, kind, text }, now);

describe('toast queue', () => {
  it(`keeps at most ${MAX_TOASTS}, the newest last (several at once piled up before)`, () => {
    let l: ToastItem[] = [];
    for (let i = 1; i <= 6; i++) l = push(l, i, `note ${i}`);
    expect(l.map((x) => x.text)).toEqual(['note 4', 'note 5', 'note 6']);
  });

  it('shows a repeated message once, with its count, moved to the newest place', () => {
    let l = push([], 1, 'saved', 'ok');
    l = push(l, 2, 'other');
    l = push(l, 3, 'saved', 'ok', 1000);
    expect(l.map((x) => [x.text, x.count])).toEqual([['other', 1], ['saved', 2]]);
    expect(l[1].id).toBe(1);
    expect(l[1].until).toBe(1000 + toastLife('ok', 'saved'));
  });

  it('lets a note go before an error when there are too many', () => {
    let l = push([], 1, 'it failed', 'error');
    for (let i = 2; i <= 5; i++) l = push(l, i, `note ${i}`);
    expect(l.map((x) => x.text)).toEqual(['it failed', 'note 4', 'note 5']);
    l = push(push(push([], 1, 'e1', 'error'), 2, 'e2', 'error'), 3, 'e3', 'error');
    expect(push(l, 4, 'e4', 'error').map((x) => x.text)).toEqual(['e2', 'e3', 'e4']);
    expect(push(l, 4, 'a note').map((x) => x.text)).toEqual(['e2', 'e3', 'a note']);
  });

  it('keeps errors and long texts longer, within bounds', () => {
    expect(toastLife('info', 'short')).toBe(4000);
    expect(toastLife('error', 'short')).toBe(8000);
    expect(toastLife('error', '长'.repeat(90))).toBe(8000 + 50 * 60);
    expect(toastLife('info', 'x'.repeat(5000))).toBe(15_000);
  });

  it('expires each at its time, and gives them time to be read once the pointer leaves', () => {
    const l = push(push([], 1, 'a', 'info', 0), 2, 'b', 'error', 0);
    expect(nextExpiry(l)).toBe(4000);
    expect(expireToasts(l, 4000).map((x) => x.text)).toEqual(['b']);
    expect(nextExpiry([])).toBeUndefined();
    const later = lingerToasts(l, 3900);
    expect(later.map((x) => x.until)).toEqual([3900 + LINGER_MS, 8000]);
  });

  it('a toast whose whole text was opened stays until closed, and the others still go at their time', () => {
    const l = keepToast(push(push([], 1, 'a long reply', 'info', 0), 2, 'b', 'info', 0), 1);
    expect(nextExpiry(l)).toBe(4000);
    expect(expireToasts(l, 1e12).map((x) => x.text)).toEqual(['a long reply']);
    expect(nextExpiry(expireToasts(l, 1e12))).toBeUndefined();
    // Said again meanwhile: counted, and still kept.
    expect(pushToast(l, { id: 3, kind: 'info', text: 'a long reply' }, 5000).find((x) => x.id === 1)?.until).toBe(Infinity);
  });

  it('the same words about two conversations are two toasts, each opening its own', () => {
    const l = pushToast(pushToast([], { id: 1, kind: 'info', text: 'Done.', sessionId: 'webui:a' }, 0), { id: 2, kind: 'info', text: 'Done.', sessionId: 'webui:b' }, 0);
    expect(l.map((x) => [x.sessionId, x.count])).toEqual([['webui:a', 1], ['webui:b', 1]]);
  });

  it(`shows up to ${TOAST_PREVIEW_CHARS} characters, whole ones, and says when there is more (the rest was cut off for good)`, () => {
    expect(toastPreview('short')).toEqual({ text: 'short', cut: false });
    expect(toastPreview('x'.repeat(TOAST_PREVIEW_CHARS))).toEqual({ text: 'x'.repeat(TOAST_PREVIEW_CHARS), cut: false });
    const words = toastPreview('word '.repeat(60));
    expect(words.cut).toBe(true);
    expect(words.text).toMatch(/^(word ){27}word…$/);
    const zh = toastPreview('😀长'.repeat(100));
    expect(zh.cut).toBe(true);
    expect(Array.from(zh.text)).toHaveLength(TOAST_PREVIEW_CHARS + 1);
    expect(zh.text.endsWith('长…')).toBe(true);
  });
});
