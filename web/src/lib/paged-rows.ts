/**
 * Rows read page by page in generations (the library list, W-2): a re-read starts a new generation
 * and keeps the older one's pages on screen until each page's new answer is back.
 */

/** The pages read so far, in the generation they were read in, and the older generation's still shown. */
export interface PageState<T> {
  total?: number;
  pages: Map<number, T[]>;
  /** Pages of the generation before `gen`: shown until their page of `gen` is back. */
  stale: Map<number, T[]>;
  gen: number;
  error?: Error;
}

/**
 * A page answered in generation `g`. A page of a newer generation starts that generation's pages;
 * the older generation's pages stay as `stale`, so a re-read keeps every row on screen until its
 * own page is back (two pages in view re-read: the one answered first does not blank the other).
 */
export function withPage<T>(s: PageState<T>, g: number, page: number, items: T[], total: number): PageState<T> {
  if (g < s.gen) return s;
  if (g === s.gen) {
    const pages = new Map(s.pages);
    pages.set(page, items);
    return { ...s, total, pages, error: undefined };
  }
  return { total, pages: new Map([[page, items]]), stale: new Map([...s.stale, ...s.pages]), gen: g };
}

/** The row at `i`: from this generation's page, else the stale one (undefined while neither is there). */
export function rowAt<T>(s: PageState<T>, i: number, pageSize: number): T | undefined {
  const p = Math.floor(i / pageSize);
  return (s.pages.get(p) ?? s.stale.get(p))?.[i % pageSize];
}
