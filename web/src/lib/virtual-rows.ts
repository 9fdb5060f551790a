import { useEffect, useState, type RefObject } from 'react';

/** The rows to render of a list of fixed-height rows: the ones in view plus `overscan` each side. */
export interface RowRange {
  start: number;
  end: number;
}

/**
 * Which rows of a list (`count` rows of `rowHeight` px, starting `listTop` px into the scroll
 * area) are in a viewport scrolled to `scrollTop` with height `viewport`. Pure: unit-tested.
 */
export function visibleRows(count: number, rowHeight: number, listTop: number, scrollTop: number, viewport: number, overscan = 6): RowRange {
  if (count <= 0 || rowHeight <= 0) return { start: 0, end: 0 };
  const first = Math.floor((scrollTop - listTop) / rowHeight);
  const last = Math.ceil((scrollTop - listTop + viewport) / rowHeight);
  const start = Math.max(0, Math.min(count, first - overscan));
  const end = Math.max(start, Math.min(count, last + overscan));
  return { start, end };
}

/**
 * Follows the scroll area that holds `list` (its nearest scrolling ancestor) and answers the rows
 * to render: a library of 10,000 memories keeps a few dozen rows in the page.
 */
export function useVisibleRows(list: RefObject<HTMLElement | null>, count: number, rowHeight: number): RowRange {
  const [range, setRange] = useState<RowRange>({ start: 0, end: Math.min(count, 30) });
  useEffect(() => {
    const el = list.current;
    if (!el) return;
    let scroller: HTMLElement | null = el.parentElement;
    while (scroller && !/(auto|scroll)/.test(getComputedStyle(scroller).overflowY)) scroller = scroller.parentElement;
    const area = scroller ?? document.documentElement;
    let frame = 0;
    const update = () => {
      frame = 0;
      const listTop = el.getBoundingClientRect().top - area.getBoundingClientRect().top + area.scrollTop;
      const next = visibleRows(count, rowHeight, listTop, area.scrollTop, area.clientHeight);
      setRange((r) => (r.start === next.start && r.end === next.end ? r : next));
    };
    const schedule = () => {
      if (!frame) frame = requestAnimationFrame(update);
    };
    update();
    area.addEventListener('scroll', schedule, { passive: true });
    const ro = new ResizeObserver(schedule);
    ro.observe(area);
    return () => {
      area.removeEventListener('scroll', schedule);
      ro.disconnect();
      if (frame) cancelAnimationFrame(frame);
    };
  }, [list, count, rowHeight]);
  return range;
}
