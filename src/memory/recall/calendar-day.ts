/**
 * Calendar days in the daemon's local time zone (the user's calendar is the machine's): what a
 * query's dates are resolved to and what a turn's time is compared with.
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

/** The local calendar day of a time (epoch ms). */
export function dayOf(time: number): FullDay {
  const d = new Date(time);
  return { year: d.getFullYear(), month: d.getMonth(), day: d.getDate() };
}

/** `n` days after (negative: before) a day; a day without a year stays without one. */
export function shiftDays(c: CalendarDay, n: number): CalendarDay {
  const d = new Date(c.year ?? ANY_YEAR, c.month, c.day + n);
  return c.year === undefined ? { month: d.getMonth(), day: d.getDate() } : { year: d.getFullYear(), month: d.getMonth(), day: d.getDate() };
}

/** `shiftDays` for a day with its year. */
export function shiftFull(c: FullDay, n: number): FullDay {
  return shiftDays(c, n) as FullDay;
}

/** Day of the week, 0 = Sunday … 6 = Saturday. */
export function weekdayOf(c: FullDay): number {
  return new Date(c.year, c.month, c.day).getDay();
}

/** Days in a month (29 for February of no particular year). */
export function monthLength(year: number | undefined, month: number): number {
  return new Date(year ?? ANY_YEAR, month + 1, 0).getDate();
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
