import { describe, expect, it } from 'vitest';
import { chars, previewBudget } from './budget';

describe('previewBudget', () => {
  it('counts code points, so Chinese text and emoji count one each', () => {
    expect(chars('记忆库😀')).toBe(4);
  });

  it('fills pinned first within min(pinChars, totalChars), then memories each within memoryChars', () => {
    const r = previewBudget([{ id: 'p1', text: 'x'.repeat(50) }], [{ id: 'm1', text: 'y'.repeat(300) }, { id: 'm2', text: 'z'.repeat(30) }], { pinChars: 40, memoryChars: 100, totalChars: 200 });
    expect(r.pinned).toBe(40);
    expect(r.truncated).toContain('p1');
    expect(r.memories).toBe(130);
    expect(r.truncated).toContain('m1');
    expect(r.total).toBe(170);
    expect(r.percent).toBe(85);
    expect(r.dropped).toEqual([]);
  });

  it('drops what does not fit and never exceeds the total', () => {
    const r = previewBudget([], [{ id: 'a', text: 'a'.repeat(80) }, { id: 'b', text: 'b'.repeat(80) }, { id: 'c', text: 'c'.repeat(80) }], { pinChars: 0, memoryChars: 100, totalChars: 100 });
    expect(r.total).toBe(100);
    expect(r.dropped).toEqual(['c']);
    expect(r.truncated).toEqual(['b']);
  });

  it('handles a zero total without dividing by zero', () => {
    const r = previewBudget([{ id: 'p', text: 'x' }], [{ id: 'm', text: 'y' }], { pinChars: 10, memoryChars: 10, totalChars: 0 });
    expect(r).toMatchObject({ total: 0, percent: 0, dropped: ['p', 'm'] });
  });
});
