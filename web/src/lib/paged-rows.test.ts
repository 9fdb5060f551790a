import { describe, expect, it } from 'vitest';
import { rowAt, withPage, type PageState } from './paged-rows';

const rows = (page: number, tag: string) => Array.from({ length: 10 }, (_, i) => `${tag}${page * 10 + i}`);
const empty = (): PageState<string> => ({ pages: new Map(), stale: new Map(), gen: 0 });

describe('paged rows', () => {
  it('a re-read keeps the second page on screen until its own answer is back', () => {
    let s = withPage(empty(), 0, 0, rows(0, 'old'), 20);
    s = withPage(s, 0, 1, rows(1, 'old'), 20);
    // Re-read (generation 1) of both pages in view: page 0 answers first.
    s = withPage(s, 1, 0, rows(0, 'new'), 21);
    expect(rowAt(s, 3, 10)).toBe('new3');
    expect(rowAt(s, 15, 10)).toBe('old15');
    expect(s.total).toBe(21);
    s = withPage(s, 1, 1, rows(1, 'new'), 21);
    expect(rowAt(s, 15, 10)).toBe('new15');
  });

  it('an answer of an older generation is dropped; an error is cleared by the next answer', () => {
    let s = withPage(empty(), 2, 0, rows(0, 'g2'), 10);
    expect(withPage(s, 1, 0, rows(0, 'g1'), 10)).toBe(s);
    s = { ...s, error: new Error('x') };
    s = withPage(s, 2, 1, rows(1, 'g2'), 20);
    expect(s.error).toBeUndefined();
    expect(rowAt(s, 25, 10)).toBeUndefined();
  });
});
