import { describe, expect, it } from 'vitest';
import { boundsOf, cacheFrameFor, cacheServes, contentRect, CONTENT_PAD, placeCache, type View } from './view-cache';

const bounds = { minX: -100, minY: -50, maxX: 100, maxY: 50 };

describe('view cache geometry', () => {
  it('bounds of points, and none for no points', () => {
    expect(boundsOf([{ x: 1, y: 2 }, { x: -3, y: 5 }])).toEqual({ minX: -3, minY: 2, maxX: 1, maxY: 5 });
    expect(boundsOf([])).toBeUndefined();
  });

  it('a small graph is cached whole: the frame is the padded content, not the grown viewport', () => {
    const view: View = { k: 1, tx: 400, ty: 300 };
    const f = cacheFrameFor(view, 800, 600, bounds)!;
    expect(f.rect).toEqual({ x: 300 - CONTENT_PAD.x, y: 250 - CONTENT_PAD.y, w: 200 + 2 * CONTENT_PAD.x, h: 100 + 2 * CONTENT_PAD.y });
    // So any pan keeps serving from it.
    for (const [dx, dy] of [[0, 0], [350, 0], [-390, 250], [5000, 5000]]) {
      expect(cacheServes(f, { k: 1, tx: 400 + dx, ty: 300 + dy }, 800, 600, bounds)).toBe(true);
    }
  });

  it('a large graph is cached over the viewport plus a margin; panning past the margin needs a render', () => {
    const big = { minX: -5000, minY: -5000, maxX: 5000, maxY: 5000 };
    const view: View = { k: 1, tx: 0, ty: 0 };
    const f = cacheFrameFor(view, 800, 600, big)!;
    expect(f.rect).toEqual({ x: -400, y: -300, w: 1600, h: 1200 });
    expect(cacheServes(f, { k: 1, tx: 399, ty: -299 }, 800, 600, big)).toBe(true);
    expect(cacheServes(f, { k: 1, tx: 401, ty: 0 }, 800, 600, big)).toBe(false);
    expect(cacheServes(f, { k: 1, tx: 0, ty: -301 }, 800, 600, big)).toBe(false);
  });

  it('looking ahead: a pan that leaves less than the lookahead to the bitmap edge asks for a new bitmap early', () => {
    const big = { minX: -5000, minY: -5000, maxX: 5000, maxY: 5000 };
    const f = cacheFrameFor({ k: 1, tx: 0, ty: 0 }, 800, 600, big)!;
    const ahead = { x: -160, y: -120, w: 1120, h: 840 }; // 20 % of a viewport on each side
    expect(cacheServes(f, { k: 1, tx: 200, ty: 0 }, 800, 600, big, ahead)).toBe(true);
    expect(cacheServes(f, { k: 1, tx: 300, ty: 0 }, 800, 600, big, ahead)).toBe(false);
    expect(cacheServes(f, { k: 1, tx: 300, ty: 0 }, 800, 600, big)).toBe(true); // still enough to draw from
  });

  it('a zoom never serves from a bitmap of another scale (it is only copied scaled while the gesture runs)', () => {
    const view: View = { k: 1, tx: 400, ty: 300 };
    const f = cacheFrameFor(view, 800, 600, bounds)!;
    expect(cacheServes(f, { k: 1.15, tx: 400, ty: 300 }, 800, 600, bounds)).toBe(false);
    // The scaled copy lands where a fresh render would put the content.
    const z: View = { k: 2, tx: 100, ty: -20 };
    const placed = placeCache(f, z);
    const fresh = contentRect(bounds, z, { x: CONTENT_PAD.x * 2, y: CONTENT_PAD.y * 2 }); // the pad is in screen px, so it scales too
    expect(placed.x).toBeCloseTo(fresh.x);
    expect(placed.y).toBeCloseTo(fresh.y);
    expect(placed.w).toBeCloseTo(fresh.w);
    expect(placed.h).toBeCloseTo(fresh.h);
  });

  it('content out of reach needs no bitmap, and a frame with nothing visible is served by the background', () => {
    const view: View = { k: 1, tx: 10_000, ty: 0 };
    expect(cacheFrameFor(view, 800, 600, bounds)).toBeUndefined();
    expect(cacheServes(undefined, view, 800, 600, bounds)).toBe(true);
    expect(cacheServes(undefined, view, 800, 600, undefined)).toBe(true);
    expect(cacheServes(undefined, { k: 1, tx: 400, ty: 300 }, 800, 600, bounds)).toBe(false);
  });

  it('stays within the device-pixel budget on a large high-density screen', () => {
    const big = { minX: -1e5, minY: -1e5, maxX: 1e5, maxY: 1e5 };
    const f = cacheFrameFor({ k: 1, tx: 0, ty: 0 }, 2560, 1440, big, 2, 16_000_000)!;
    expect(f.rect.w * f.rect.h * 4).toBeLessThanOrEqual(16_000_000);
    expect(f.rect.w).toBeGreaterThanOrEqual(2560); // still the whole viewport
    expect(f.limited).toBeUndefined();
    const tiny = cacheFrameFor({ k: 1, tx: 0, ty: 0 }, 4000, 4000, big, 2, 1_000_000)!;
    expect(tiny.rect.w * tiny.rect.h * 4).toBeLessThanOrEqual(1_000_000);
    expect(tiny.limited).toBe(true); // cannot cover the viewport: the canvas draws directly
  });
});
