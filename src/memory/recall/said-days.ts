import type { ContextEvent } from '../../spec/memory.js';
import { systemTimeZone } from '../../spec/local-time.js';
import { dayOf, fullKey, isValidDay, shiftDays, type CalendarDay, type FullDay } from './calendar-day.js';
import { parseTimeScopes } from './temporal-scope.js';
import type { TimeScope } from './time-scan.js';

/**
 * Days said inside a turn (decision 0160): "I went to the support group yesterday" said on 8 May
 * 2023 is about 7 May 2023; 我上周六去爬山了 said on a Wednesday is about the Saturday before. The
 * tiers store these days with the turn (`turn_days`), and day-scoped recall admits and boosts the
 * turns whose days fall in the days a query names.
 *
 * A day is kept as a number `YYYYMMDD` (20230507): sortable, so a query's days are one range read.
 */

/** Longest turn head read for days (characters): a pasted log must not cost a scan per pattern. */
export const MAX_SAID_CHARS = 2_000;
/** Widest stretch of days one expression may give a turn ("last week", "early May"); wider ones are not a day. */
export const MAX_SAID_SPAN = 14;
/** Most days one turn keeps. */
export const MAX_SAID_DAYS = 31;

/**
 * Words without which no day expression of either language can match (digits, relative-day words,
 * weekdays, parts of a month; 周/星期, 昨天, 前天, 旬 …): most turns name no day, and the full
 * expression tables (≈ 40 patterns) are skipped for them.
 */
const MAY_NAME_A_DAY = /\d|yesterday|tomorrow|\bago\b|week|(?:mon|tues|wednes|thurs|fri|satur|sun)day|\b(?:early|mid|late|beginning|start|middle|end)\b|[〇零一二三四五六七八九十两][月日号號天周]|周|星期|礼拜|昨|前天|今天|今日|明天|明日|后天|旬|月[初底末]/i;

/** A day as `YYYYMMDD`. */
export function dayKey(c: FullDay): number {
  return c.year * 10_000 + (c.month + 1) * 100 + c.day;
}

/** The day of a `YYYYMMDD` key, if it is one. */
export function dayOfKey(k: number): FullDay | undefined {
  if (!Number.isInteger(k)) return undefined;
  const year = Math.floor(k / 10_000);
  const month = (Math.floor(k / 100) % 100) - 1;
  const day = k % 100;
  return isValidDay(year, month, day) ? { year, month, day } : undefined;
}

/** Days from `a` to `b` (both with a year). */
function span(a: FullDay, b: FullDay): number {
  return Math.round((Date.UTC(b.year, b.month, b.day) - Date.UTC(a.year, a.month, a.day)) / 86_400_000);
}

/** A yearless day read in the year that puts it nearest the day it was said ("on 9 November" said on 1 December: last November). */
function nearestYear(c: CalendarDay, said: FullDay): number {
  let best = said.year;
  let dist = Infinity;
  for (const y of [said.year - 1, said.year, said.year + 1]) {
    if (!isValidDay(y, c.month, c.day)) continue;
    const d = Math.abs(span(said, { year: y, month: c.month, day: c.day }));
    if (d < dist) {
      dist = d;
      best = y;
    }
  }
  return best;
}

/**
 * The days a turn's text names, resolved against the time it was said (epoch ms): relative days
 * ("yesterday", "two weeks ago", "last Saturday", "last week", 昨天, 前天, 上周六, 上周, 三天前),
 * explicit days with and without a year ("on 9 November 2022", "November 9", 十一月九号) and ranges
 * of at most `MAX_SAID_SPAN` days ("Aug 11-15", 8月11日到15日). Months and years are not days and
 * give none; the turn's own day is left out (its time already says it). Sorted, unique, at most
 * `MAX_SAID_DAYS`. Never throws: text that does not parse gives no days. The day it was said is
 * the day in `zone` (the person's, decision 0270; default the system's): "yesterday" said at 07:00
 * in Shanghai is the day before in Shanghai.
 */
export function saidDays(text: string, time: number, zone: string = systemTimeZone()): number[] {
  if (typeof text !== 'string' || !text || !Number.isFinite(time)) return [];
  const head = text.slice(0, MAX_SAID_CHARS);
  if (!MAY_NAME_A_DAY.test(head)) return [];
  let scopes: TimeScope[];
  let said: FullDay;
  try {
    said = dayOf(time, zone);
    scopes = parseTimeScopes(head, time, { said: true, zone }).scopes;
  } catch {
    // An expression our tables mis-read must not stop a turn from being stored.
    return [];
  }
  const own = dayKey(said);
  const out = new Set<number>();
  for (const s of scopes) {
    if (s.unit !== 'day') continue;
    const from = s.from.year === undefined ? { ...s.from, year: nearestYear(s.from, said) } : (s.from as FullDay);
    // A yearless range keeps its length in the year its first day was read in.
    const to = s.to.year === undefined ? { ...s.to, year: from.year + (fullKey({ ...s.to, year: from.year }) < fullKey(from) ? 1 : 0) } : (s.to as FullDay);
    const n = span(from, to);
    if (!(n >= 0 && n < MAX_SAID_SPAN)) continue;
    for (let i = 0; i <= n && out.size < MAX_SAID_DAYS; i++) {
      const k = dayKey(shiftDays(from, i) as FullDay);
      if (k !== own) out.add(k);
    }
  }
  return [...out].sort((a, b) => a - b);
}

/** Days of context events (immutable objects), resolved once each (per zone). */
const eventDays = new WeakMap<ContextEvent, { zone: string; days: readonly number[] }>();

/** `saidDays` of a context event (its input and response, at its timestamp, in `zone`), memoised per event. */
export function eventSaidDays(e: ContextEvent, zone: string = systemTimeZone()): readonly number[] {
  const d = eventDays.get(e);
  if (d && d.zone === zone) return d.days;
  const days = saidDays(`${e.input} ${e.response}`, e.timestamp, zone);
  eventDays.set(e, { zone, days });
  return days;
}

/** An inclusive range of day keys; `yearless`: those month-days in every year. */
export interface DayKeyRange {
  from: number;
  to: number;
}

/** Widest query scope looked up in the turn days (a whole year is a month's or year's scope, not days said). */
const MAX_QUERY_SPAN = 62;

/**
 * The day-key ranges of a query's day scopes. A yearless scope ("on 7 May") is read in each year of
 * `years` (the years the stored days span); scopes wider than two months are not looked up.
 */
export function dayKeyRanges(scopes: readonly TimeScope[], years: { min: number; max: number } | undefined): DayKeyRange[] {
  const out: DayKeyRange[] = [];
  for (const s of scopes) {
    if (s.unit !== 'day') continue;
    if (s.from.year !== undefined && s.to.year !== undefined) {
      const a = s.from as FullDay;
      const b = s.to as FullDay;
      if (span(a, b) <= MAX_QUERY_SPAN) out.push({ from: dayKey(a), to: dayKey(b) });
      continue;
    }
    if (!years) continue;
    for (let y = Math.max(years.min, 1900); y <= Math.min(years.max, years.min + 50, 2199); y++) {
      const a = { year: y, month: s.from.month, day: s.from.day };
      const wraps = fullKey({ ...s.to, year: y }) < fullKey(a);
      const b = { year: wraps ? y + 1 : y, month: s.to.month, day: s.to.day };
      if (!isValidDay(a.year, a.month, a.day) || !isValidDay(b.year, b.month, b.day)) continue;
      if (span(a, b) <= MAX_QUERY_SPAN) out.push({ from: dayKey(a), to: dayKey(b) });
    }
  }
  return out;
}

/** True when one of `days` (sorted keys) falls in one of `ranges`. */
export function saidIn(days: readonly number[], ranges: readonly DayKeyRange[]): boolean {
  for (const d of days) for (const r of ranges) if (d >= r.from && d <= r.to) return true;
  return false;
}

/** The years a set of day keys spans. */
function yearsOf(keys: Iterable<number>): { min: number; max: number } | undefined {
  let min = Infinity;
  let max = -Infinity;
  for (const k of keys) {
    const y = Math.floor(k / 10_000);
    if (y < min) min = y;
    if (y > max) max = y;
  }
  return min <= max ? { min, max } : undefined;
}

/** Ids of the context events that say a day in one of the day `scopes` (their days read in `zone`), at most `limit`. */
export function eventsSaidOn(events: readonly ContextEvent[], scopes: readonly TimeScope[], limit: number, zone: string = systemTimeZone()): string[] {
  const all = events.map((e) => ({ id: e.id, days: eventSaidDays(e, zone) })).filter((x) => x.days.length > 0);
  if (!all.length) return [];
  const ranges = dayKeyRanges(scopes, yearsOf(all.flatMap((x) => x.days)));
  return all.filter((x) => saidIn(x.days, ranges)).slice(-limit).map((x) => x.id);
}

/** Documents admitted per tier because they say one of the query's days. */
export const SAID_DAY_LIMIT = 200;
/**
 * Score a turn that says one of the query's days starts from when no query word is in it (on the
 * scale where the best lexical match is 1): the day boost lifts it above weak matches of other
 * days, not above strong ones.
 */
export const SAID_DAY_FLOOR = 0.05;

/** The part of a tier recall asks for the turns that say some days (`RecallCorpus.saidOn`). */
interface SaysDays {
  saidOn?(scopes: readonly TimeScope[], limit: number, zone?: string): readonly string[];
}

/**
 * Day-scoped recall over the days said inside turns (decision 0160): the documents of every tier
 * that say a day in the query's day scopes are added to the candidates (their own lexical score
 * plus `SAID_DAY_FLOOR`) and returned, for the ranking to boost them as it boosts turns dated on
 * those days. No day scopes: nothing.
 */
export function admitSaidDays(corpora: readonly SaysDays[], scopes: readonly TimeScope[], scores: Map<string, number>, baseOf: (id: string) => number, zone?: string): Set<string> {
  const out = new Set<string>();
  const days = scopes.filter((s) => s.unit === 'day');
  if (!days.length) return out;
  for (const c of corpora) for (const id of c.saidOn?.(days, SAID_DAY_LIMIT, zone) ?? []) out.add(id);
  for (const id of out) if (!scores.has(id)) scores.set(id, baseOf(id) + SAID_DAY_FLOOR);
  return out;
}
