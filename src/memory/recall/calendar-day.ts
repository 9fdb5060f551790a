import { wallTime } from '../../spec/local-time.js';

/**
 * Calendar days: what a query's dates are resolved to and what a turn's time is compared with. A
 * time becomes a day in the person's zone (`core.agent.timezone`, decision 0270) — "Tuesday" is the
 * person's Tuesday, not the machine's; the arithmetic on days is zone-free (UTC dates).
 */

/** A calendar day; without `year` it is that day of any year ("on 9 November"). */
export interface CalendarDay {
  year?: number;
  /** 0-based month. */
  month: number;
  day: number;
}

/** A calendar day with its year. */
export type FullDay = Required<CalendarDay>;

/** A leap year for arithmetic on days without a year (29 February exists). */
const ANY_YEAR = 2000;

/** The calendar day of a time (epoch ms) in a time zone (an IANA name). */
export function dayOf(time: number, zone: string): FullDay {
  const w = wallTime(time, zone);
  return { year: w.year, month: w.month - 1, day: w.day };
}

/** A UTC date for calendar arithmetic (years 0–99 are years, not 1900–1999). */
export function utcDate(year: number, month: number, day: number): Date {
  const d = new Date(0);
  d.setUTCFullYear(year, month, day);
  return d;
}

/** `n` days after (negative: before) a day; a day without a year stays without one. */
export function shiftDays(c: CalendarDay, n: number): CalendarDay {
  const d = utcDate(c.year ?? ANY_YEAR, c.month, c.day + n);
  return c.year === undefined ? { month: d.getUTCMonth(), day: d.getUTCDate() } : { year: d.getUTCFullYear(), month: d.getUTCMonth(), day: d.getUTCDate() };
}

/** `shiftDays` for a day with its year. */
export function shiftFull(c: FullDay, n: number): FullDay {
  return shiftDays(c, n) as FullDay;
}

/** Day of the week, 0 = Sunday … 6 = Saturday. */
export function weekdayOf(c: FullDay): number {
  return utcDate(c.year, c.month, c.day).getUTCDay();
}

/** Days in a month (29 for February of no particular year). */
export function monthLength(year: number | undefined, month: number): number {
  return utcDate(year ?? ANY_YEAR, month + 1, 0).getUTCDate();
}

/** True when the numbers make a real calendar day (years 1900–2199). */
export function isValidDay(year: number | undefined, month: number, day: number): boolean {
  if (!Number.isInteger(month) || month < 0 || month > 11 || !Number.isInteger(day) || day < 1) return false;
  if (year !== undefined && (!Number.isInteger(year) || year < 1900 || year > 2199)) return false;
  return day <= monthLength(year, month);
}

/** The Monday of a day's week (weeks start on Monday, as 上周 / 本周 count them). */
export function mondayOf(c: FullDay): FullDay {
  return shiftFull(c, -((weekdayOf(c) + 6) % 7));
}

/** Sort key of a day with its year. */
export function fullKey(c: CalendarDay): number {
  return (c.year ?? 0) * 512 + c.month * 32 + c.day;
}

/** Sort key of a day within its year. */
export function monthDayKey(c: CalendarDay): number {
  return c.month * 32 + c.day;
}

/**
 * The year to read a yearless day in, relative to `ref`: the most recent occurrence on or before it
 * ("the Sunday before October 25" asked in January means last October).
 */
export function latestYear(c: CalendarDay, ref: FullDay): number {
  return monthDayKey(c) <= monthDayKey(ref) ? ref.year : ref.year - 1;
}
