import { describe, expect, it } from 'vitest';
import { visibleRows } from './virtual-rows';

describe('visibleRows', () => {
  it('answers the rows in view plus an overscan, clamped to the list', () => {
    expect(visibleRows(10_000, 100, 0, 0, 800, 5)).toEqual({ start: 0, end: 13 });
    expect(visibleRows(10_000, 100, 0, 500_000, 800, 5)).toEqual({ start: 4995, end: 5013 });
    expect(visibleRows(10_000, 100, 0, 999_200, 800, 5)).toEqual({ start: 9987, end: 10_000 });
    expect(visibleRows(10_000, 100, 300, 0, 800, 0)).toEqual({ start: 0, end: 5 }); // a list that starts below the fold
    expect(visibleRows(0, 100, 0, 0, 800)).toEqual({ start: 0, end: 0 });
  });
});
