import { describe, expect, it } from 'vitest';
import { keptOf } from './data-section';

describe('the import report’s columns', () => {
  it('kept conflicts apart from what was left out (the walk read "0 (8/0/0)": eight settings left out, no conflict)', () => {
    const settings = { conflicts: 0, skipped: 8, overwritten: 0, keptBoth: 0 };
    expect(keptOf(settings)).toBe(0);
    expect(settings.skipped - keptOf(settings)).toBe(8);
    expect(keptOf({ conflicts: 3, skipped: 5, overwritten: 1, keptBoth: 0 })).toBe(2);
    expect(keptOf({ conflicts: 2, skipped: 0, overwritten: 0, keptBoth: 2 })).toBe(0);
  });
});
