import { describe, expect, it } from 'vitest';
import { foldedPart, FOLD_CHARS } from './long-text';

describe('folding a long message', () => {
  it('leaves an ordinary message whole', () => {
    expect(foldedPart('hello')).toBeUndefined();
    expect(foldedPart('a'.repeat(FOLD_CHARS))).toBeUndefined();
  });
  it('folds a long one to its first 20 lines or 1,500 characters', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n');
    expect(foldedPart(lines)).toBe(Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n'));
    expect(Array.from(foldedPart('字'.repeat(5000))!).length).toBe(1500);
  });
});
