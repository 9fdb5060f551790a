import { systemTimeZone } from '../../spec/local-time.js';
import { dayOf, fullKey, monthDayKey, shiftDays } from './calendar-day.js';
import { scanEnglish, scanYears } from './time-expressions-en.js';
import { scanChinese } from './time-expressions-zh.js';
import { TimeScan, type ParsedTime, type TimeParseOptions, type TimeScope } from './time-scan.js';

export type { ParsedTime, TimeParseOptions, TimeScope } from './time-scan.js';

/** Longest query head read for dates (characters). */
export const MAX_TIME_CHARS = 1_000;

/**
 * Finds the time a query refers to, in English and Chinese: years, months, days ("on 9 November
 * 2022", "November 9", "2022-11-09", "十一月九号", "2022年11月9日"), ranges ("between August 11 and
 * 15", "8月11日到15日"), weeks and parts of a month ("the second week of November", "early May",
 * "十一月第二周", "11月上旬") and relative days ("last Saturday", "the week before August 3, 2023",
 * "yesterday", "two weeks ago", "上周六", "前天", "三天前"). Relative days count from the first
 * absolute day the query names, otherwise from `now` (the query's own time). Month names that are
 * also words ("may", "march") count only when capitalised. Only the first `MAX_TIME_CHARS` are read.
 * `now` is a day in `opts.zone` (the person's zone; default the system's).
 */
export function parseTimeScopes(query: string, now: number = Date.now(), opts: TimeParseOptions = {}): ParsedTime {
  // Dates are read from the head of a long query only: a pasted log must not cost a scan per pattern.
  const scan = new TimeScan(query.slice(0, MAX_TIME_CHARS), dayOf(now, opts.zone ?? systemTimeZone()), opts.days !== false, opts.said === true);
  scanEnglish(scan);
  scanChinese(scan);
  scanYears(scan);
  return scan.result();
}

/** Month / year scopes of a query: `parseTimeScopes` without day level (the view `dayBoost` 0 ranks with). */
export function temporalScopes(query: string, now?: number, zone?: string): TimeScope[] {
  return parseTimeScopes(query, now, { days: false, zone }).scopes;
}

/** Days after a scope's end that still count: people talk about last week's events. */
export const MONTH_GRACE_DAYS = 14;

/**
 * True when `time` (epoch ms) falls in the scope or up to `graceDays` after its end (a session
 * that tells of the named days comes after them). The time's day is the one in `zone` (the
 * person's: a turn said at 23:30 UTC on a Monday is a Tuesday's in Shanghai); default the system's.
 */
export function inScope(time: number, s: TimeScope, graceDays = MONTH_GRACE_DAYS, zone: string = systemTimeZone()): boolean {
  const d = dayOf(time, zone);
  const end = shiftDays(s.to, graceDays);
  if (s.from.year !== undefined && end.year !== undefined) return fullKey(d) >= fullKey(s.from) && fullKey(d) <= fullKey(end);
  const k = monthDayKey(d);
  const a = monthDayKey(s.from);
  const b = monthDayKey(end);
  return a <= b ? k >= a && k <= b : k >= a || k <= b;
}
