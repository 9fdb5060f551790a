import { latestYear, monthLength, type CalendarDay, type FullDay } from './calendar-day.js';

/**
 * A stretch of calendar days a query names: a year ("in 2022"), a month ("in May 2023", "5月"),
 * or days ("on 9 November 2022", "between August 11 and 15", "last Saturday", "上周六"). Both ends
 * inclusive; ends without a year mean those days in any year.
 */
export interface TimeScope {
  unit: 'year' | 'month' | 'day';
  from: CalendarDay;
  to: CalendarDay;
}

/** The time scopes of a query and the words that named them (not words to match). */
export interface ParsedTime {
  scopes: TimeScope[];
  /** The time expressions' text, joined: the ranker drops their tokens from the query terms. */
  words: string;
}

export interface TimeParseOptions {
  /**
   * Day-level scopes (explicit days, ranges, weeks, relative days). Off: every day expression
   * counts as its month, relative ones as nothing — the month-level parser of issue 11, kept for
   * the ablation in bench/locomo/RESULTS.md.
   */
  days?: boolean;
  /**
   * The person's time zone (an IANA name, decision 0270): `now` is a day of their calendar —
   * "yesterday" asked at 07:00 in Shanghai is the day before there. Default: the system's zone.
   */
  zone?: string;
  /**
   * Read as something said in a turn at `now` (decision 0160), not as a question about the past:
   * "yesterday", "last Saturday", 上周六 count from when it was said even when the text also names
   * an absolute day (only "the day before <day>" counts from that day), and a bare weekday ("on
   * Saturday", 周六) is skipped — said, it may be the coming one as well as the last.
   */
  said?: boolean;
}

/** One expression found: its scopes, where it starts, whether it names an absolute day (an anchor). */
interface Found {
  scopes: TimeScope[];
  at: number;
  anchor?: CalendarDay;
  /** Counted from another day ("last Saturday"): its words stay query terms (turns say them too). */
  relative: boolean;
}

/**
 * The scanner both languages' expression tables run on: each expression found is masked so a later,
 * coarser pattern ("November") does not read it again, and its text is kept (`words`).
 */
export class TimeScan {
  private masked: string;
  private readonly found: Found[] = [];
  private readonly spans: string[] = [];

  constructor(
    readonly text: string,
    /** The query's own time (epoch ms): what "last Saturday" and "上周六" count from without an anchor. */
    readonly now: FullDay,
    readonly days: boolean,
    /** Text said in a turn (`TimeParseOptions.said`). */
    readonly said = false,
  ) {
    this.masked = text;
  }

  /**
   * Runs a pattern over what is not taken yet; `fn` returns the scopes of a match (undefined: not a
   * time expression, left for other patterns). `anchor` marks an absolute day other expressions
   * may count from ("the week before August 3, 2023"); `relative` expressions count from a day.
   */
  each(re: RegExp, fn: (m: RegExpMatchArray) => { scopes: TimeScope[]; anchor?: CalendarDay } | TimeScope[] | undefined, relative = false): void {
    const source = this.masked;
    for (const m of source.matchAll(re)) {
      const r = fn(m);
      if (!r) continue;
      const at = m.index ?? 0;
      const { scopes, anchor } = Array.isArray(r) ? { scopes: r, anchor: undefined } : r;
      this.found.push({ scopes, at, anchor, relative });
      if (!relative) this.spans.push(m[0]);
      this.masked = this.masked.slice(0, at) + ' '.repeat(m[0].length) + this.masked.slice(at + m[0].length);
    }
  }

  /** The first absolute day the query names (its year read as the latest before now when absent), if any. */
  anchor(): FullDay | undefined {
    const a = this.found
      .filter((f) => f.anchor)
      .sort((x, y) => x.at - y.at)[0]?.anchor;
    return a && { year: a.year ?? latestYear(a, this.now), month: a.month, day: a.day };
  }

  /**
   * The day relative expressions count from: the first absolute day the query names (its year read
   * as the latest before now when absent), else the query's own time; said text: always its time.
   */
  reference(): FullDay {
    if (this.said) return this.now;
    return this.anchor() ?? this.now;
  }

  /** Yearless scopes found so far (a lone "2023" elsewhere in the query gives them its year). */
  openScopes(): TimeScope[] {
    return this.found.flatMap((f) => f.scopes).filter((s) => s.from.year === undefined && s.unit !== 'year');
  }

  result(): ParsedTime {
    const found = this.found.sort((a, b) => a.at - b.at);
    // Without day level, as the month-level parser did: absolute days as their months, nothing relative.
    const scopes = this.days ? found.flatMap((f) => f.scopes) : found.filter((f) => !f.relative).flatMap((f) => f.scopes.flatMap(monthLevel));
    return { scopes, words: this.spans.join(' ') };
  }
}

/** A day scope seen at month level (the day-level ablation): the months it touches. */
function monthLevel(s: TimeScope): TimeScope[] {
  if (s.unit !== 'day') return [s];
  const a = { year: s.from.year, month: s.from.month, day: 1 };
  const b = { year: s.to.year, month: s.to.month, day: 1 };
  const out = [monthScope(a.year, a.month)];
  if (a.month !== b.month || a.year !== b.year) out.push(monthScope(b.year, b.month));
  return out;
}

/** The scope of one month. */
export function monthScope(year: number | undefined, month: number): TimeScope {
  const last = monthLength(year, month);
  return { unit: 'month', from: { year, month, day: 1 }, to: { year, month, day: last } };
}

/** The scope of one year. */
export function yearScope(year: number): TimeScope {
  return { unit: 'year', from: { year, month: 0, day: 1 }, to: { year, month: 11, day: 31 } };
}

/** The scope of days `from`…`to` (inclusive; both with a year or both without). */
export function dayScope(from: CalendarDay, to: CalendarDay = from): TimeScope {
  return { unit: 'day', from, to };
}
