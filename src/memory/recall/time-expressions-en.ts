import { fullKey, isValidDay, utcDate, mondayOf, monthLength, shiftFull, weekdayOf, type CalendarDay, type FullDay } from './calendar-day.js';
import { dayScope, monthScope, yearScope, type TimeScan, type TimeScope } from './time-scan.js';

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** A month word with an optional abbreviation dot (one group). */
const MON = String.raw`((?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?)(?![a-z])`;
/** A day of the month, "9", "9th", "1st" (one group). */
const DAY = String.raw`(\d{1,2})(?:st|nd|rd|th)?(?!\d)`;
/** An optional year after a day or month, "2022", ", 2022", ",2022" (one group). */
const YEAR = String.raw`(?:,?\s*((?:19|20|21)\d\d)(?!\d))?`;
/** Between the two ends of a range. */
const TO = String.raw`\s*(?:-|–|—|~|\bto\b|\band\b|\buntil\b|\btill\b|\bthrough\b|\bthru\b)\s*(?:the\s+)?`;
const WEEKDAY = String.raw`(sunday|monday|tuesday|wednesday|thursday|friday|saturday)`;
const NUM = String.raw`(\d{1,2}|an?|one|two|three|four|five|six|seven|eight|nine|ten|a\s+couple\s+of|a\s+few)`;
const NUMBERS: Record<string, number> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10 };

/** Compiled patterns, by source (compiling ≈ 40 patterns per text cost more than matching them). */
const compiled = new Map<string, RegExp>();
/** A pattern (compiled once; `matchAll` matches on a copy, so sharing it is safe). */
const re = (s: string): RegExp => {
  let r = compiled.get(s);
  if (!r) compiled.set(s, (r = new RegExp(s, 'giu')));
  return r;
};

/**
 * The month of a month word, or -1. Words that are also ordinary words count only when capitalised
 * ("May", "March"); bare three-letter abbreviations only with a dot or a day number ("Aug. 11",
 * "Aug 11").
 */
function monthIndex(w: string | undefined, withDay: boolean): number {
  if (!w) return -1;
  const dot = w.endsWith('.');
  const word = dot ? w.slice(0, -1) : w;
  const lower = word.toLowerCase();
  const capital = word[0] !== lower[0];
  if ((lower === 'may' || lower === 'mar' || lower === 'march') && !capital) return -1;
  if (lower.length === 3 && lower !== 'may' && !dot && !withDay) return -1;
  return MONTHS.findIndex((m) => m.startsWith(lower.slice(0, 3)));
}

function yearOf(s: string | undefined): number | undefined {
  return s ? Number(s) : undefined;
}

function numberOf(s: string): number {
  const w = s.toLowerCase().replace(/\s+/g, ' ');
  if (/^\d+$/.test(w)) return Number(w);
  if (w === 'a couple of') return 2;
  if (w === 'a few') return 3;
  return NUMBERS[w] ?? 0;
}

/** A day if the numbers make one. */
function day(year: number | undefined, month: number, d: number): CalendarDay | undefined {
  return month >= 0 && isValidDay(year, month, d) ? { year, month, day: d } : undefined;
}

/** Days `from`…`to`; a yearless range that wraps the year end, or a reversed one, is refused. */
function range(a: CalendarDay | undefined, b: CalendarDay | undefined): TimeScope | undefined {
  if (!a || !b) return undefined;
  if ((a.year === undefined) !== (b.year === undefined)) {
    const y = a.year ?? b.year;
    a = { ...a, year: y };
    b = { ...b, year: y };
  }
  return fullKey(a) <= fullKey(b) ? dayScope(a, b) : undefined;
}

/** Days `first`…`last` of a month. */
function monthPart(year: number | undefined, month: number, first: number, last: number): TimeScope {
  const len = monthLength(year, month);
  return dayScope({ year, month, day: Math.min(first, len) }, { year, month, day: Math.min(last, len) });
}

/** The most recent `weekday` strictly before `ref` (or on it, when `inclusive`). */
function lastWeekday(ref: FullDay, weekday: number, inclusive = false): FullDay {
  const back = (weekdayOf(ref) - weekday + 7) % 7 || (inclusive ? 0 : 7);
  return shiftFull(ref, -back);
}

/** The first `weekday` strictly after `ref`. */
function nextWeekday(ref: FullDay, weekday: number): FullDay {
  return shiftFull(ref, (weekday - weekdayOf(ref) + 7) % 7 || 7);
}

/** The weekend (Saturday–Sunday) before the week of `ref`. */
function weekendBefore(ref: FullDay): TimeScope {
  const sat = shiftFull(mondayOf(ref), -2);
  return dayScope(sat, shiftFull(sat, 1));
}

/** `n` units before `ref` (`dir` 1: after): a day, a week (±3 days), or a month. */
export function offset(ref: FullDay, n: number, unit: string, dir: -1 | 1 = -1): TimeScope | undefined {
  if (!(n > 0 && n <= 60)) return undefined;
  const u = unit.toLowerCase();
  if (u.startsWith('day') || u === '天') return dayScope(shiftFull(ref, dir * n));
  if (u.startsWith('week') || u === '周' || u === '星期' || u === '礼拜') {
    const c = shiftFull(ref, dir * 7 * n);
    return dayScope(shiftFull(c, -3), shiftFull(c, 3));
  }
  const d = utcDate(ref.year, ref.month + dir * n, 1);
  return monthScope(d.getUTCFullYear(), d.getUTCMonth());
}

/** Explicit English dates, then day expressions counted from them (or from the query's time). */
export function scanEnglish(scan: TimeScan): void {
  const anchored = (c: CalendarDay | undefined, scopes?: TimeScope[]) => (c ? { scopes: scopes ?? [dayScope(c)], anchor: c } : undefined);

  // Ranges: "between August 11 and August 15 2023", "Aug 11-15, 2023", "from 11 to 15 August".
  scan.each(re(String.raw`\b(?:between\s+|from\s+)?${MON}\s+(?:the\s+)?${DAY}${YEAR}${TO}(?:${MON}\s+)?${DAY}${YEAR}`), (m) => {
    const m1 = monthIndex(m[1], true);
    const m2 = m[4] ? monthIndex(m[4], true) : m1;
    const y = yearOf(m[6]) ?? yearOf(m[3]);
    const s = range(day(yearOf(m[3]) ?? y, m1, Number(m[2])), day(y, m2, Number(m[5])));
    return s && anchored(s.to, [s]);
  });
  scan.each(re(String.raw`\b(?:between\s+|from\s+)?(?:the\s+)?${DAY}(?:\s+(?:of\s+)?${MON})?${TO}${DAY}\s+(?:of\s+)?${MON}${YEAR}`), (m) => {
    const m2 = monthIndex(m[4], true);
    const m1 = m[2] ? monthIndex(m[2], true) : m2;
    const y = yearOf(m[5]);
    const s = range(day(y, m1, Number(m[1])), day(y, m2, Number(m[3])));
    return s && anchored(s.to, [s]);
  });
  // "the second week of November", "the last week of May 2023".
  scan.each(re(String.raw`\b(?:the\s+)?(first|1st|second|2nd|third|3rd|fourth|4th|last|final)\s+week\s+(?:of|in)\s+${MON}${YEAR}`), (m) => {
    const mo = monthIndex(m[2], false);
    if (mo < 0) return undefined;
    const y = yearOf(m[3]);
    const n = ['first', '1st', 'second', '2nd', 'third', '3rd', 'fourth', '4th'].indexOf(m[1].toLowerCase());
    const len = monthLength(y, mo);
    return [n < 0 ? monthPart(y, mo, len - 6, len) : monthPart(y, mo, 7 * Math.floor(n / 2) + 1, 7 * Math.floor(n / 2) + 7)];
  });
  // "the beginning of November 2022", "early May", "mid-June", "the end of March".
  scan.each(re(String.raw`\b(?:the\s+|in\s+the\s+)?(beginning|start|middle|end)\s+of\s+${MON}${YEAR}|\b(early|mid|late)[-\s]+${MON}${YEAR}`), (m) => {
    const part = (m[1] ?? m[4]).toLowerCase();
    const mo = monthIndex(m[2] ?? m[5], false);
    if (mo < 0) return undefined;
    const y = yearOf(m[3] ?? m[6]);
    if (part === 'beginning' || part === 'start' || part === 'early') return [monthPart(y, mo, 1, 10)];
    if (part === 'middle' || part === 'mid') return [monthPart(y, mo, 11, 20)];
    return [monthPart(y, mo, 21, 31)];
  });
  // Days: "9 November, 2022", "the 8th of December", "November 9, 2022", "December 1,2023", "2022-11-09".
  scan.each(re(String.raw`\b(?:the\s+)?${DAY}\s+(?:of\s+)?${MON}${YEAR}`), (m) => anchored(day(yearOf(m[3]), monthIndex(m[2], true), Number(m[1]))));
  scan.each(re(String.raw`\b${MON}\s+(?:the\s+)?${DAY}(?!\s*(?:am|pm|%)\b)${YEAR}`), (m) => anchored(day(yearOf(m[3]), monthIndex(m[1], true), Number(m[2]))));
  scan.each(re(String.raw`\b((?:19|20|21)\d\d)[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)`), (m) => anchored(day(Number(m[1]), Number(m[2]) - 1, Number(m[3]))));
  // "last May", "this June": the latest such month before the current one (this: of this year).
  scan.each(
    re(String.raw`\b(last|this)\s+${MON}`),
    (m) => {
      const mo = monthIndex(m[2], false);
      if (mo < 0) return undefined;
      const now = scan.now;
      const y = m[1].toLowerCase() === 'this' ? now.year : mo < now.month ? now.year : now.year - 1;
      return [monthScope(y, mo)];
    },
    true,
  );
  // Months: "in June", "May 2023", "Sept. 2021".
  scan.each(re(String.raw`\b${MON}${YEAR}`), (m) => {
    const mo = monthIndex(m[1], false);
    return mo < 0 ? undefined : [monthScope(yearOf(m[2]), mo)];
  });

  // Days counted from another day: their words stay query terms (the turns say them too).
  const relative: TimeScan['each'] = (r, fn) => scan.each(r, fn, true);
  // Relative to an absolute day the query names: "the week before August 3, 2023".
  const anchor = scan.anchor();
  if (anchor) {
    relative(re(String.raw`\b(?:the\s+)?(day|week|weekend)\s+(before|after|prior\s+to)\b`), (m) => {
      const after = m[2].toLowerCase() === 'after';
      const unit = m[1].toLowerCase();
      if (unit === 'day') return [dayScope(shiftFull(anchor, after ? 1 : -1))];
      if (unit === 'week') return [after ? dayScope(shiftFull(anchor, 1), shiftFull(anchor, 7)) : dayScope(shiftFull(anchor, -7), shiftFull(anchor, -1))];
      if (after) {
        const sat = nextWeekday(anchor, 6);
        return [dayScope(sat, shiftFull(sat, 1))];
      }
      const sun = lastWeekday(anchor, 0);
      return [dayScope(shiftFull(sun, -1), sun)];
    });
    relative(re(String.raw`\b(?:the\s+)?${WEEKDAY}\s+(before|after|prior\s+to)\b`), (m) => {
      const wd = WEEKDAYS.indexOf(m[1].toLowerCase());
      return [dayScope(m[2].toLowerCase() === 'after' ? nextWeekday(anchor, wd) : lastWeekday(anchor, wd))];
    });
    relative(re(String.raw`\b${NUM}\s+(days?|weeks?|months?)\s+(before|after|prior\s+to|earlier|later)\b`), (m) => {
      const s = offset(anchor, numberOf(m[1]), m[2], /^(after|later)$/i.test(m[3]) ? 1 : -1);
      return s && [s];
    });
  }

  // Relative to the reference day: the anchor, or the query's own time.
  const ref = scan.reference();
  relative(re(String.raw`\b(?:the\s+)?day\s+before\s+yesterday\b`), () => [dayScope(shiftFull(ref, -2))]);
  relative(re(String.raw`\b${NUM}\s+(days?|weeks?|months?)\s+ago\b`), (m) => {
    const s = offset(ref, numberOf(m[1]), m[2]);
    return s && [s];
  });
  relative(re(String.raw`\b(last|past|previous|this)\s+(?:${WEEKDAY}|(week|weekend|month|year))\b`), (m) => {
    const which = m[1].toLowerCase();
    const last = which !== 'this';
    if (m[2]) {
      const wd = WEEKDAYS.indexOf(m[2].toLowerCase());
      return [dayScope(last ? lastWeekday(ref, wd) : shiftFull(mondayOf(ref), (wd + 6) % 7))];
    }
    const unit = m[3].toLowerCase();
    if (unit === 'week') {
      if (which === 'past') return [dayScope(shiftFull(ref, -7), shiftFull(ref, -1))];
      const mon = shiftFull(mondayOf(ref), last ? -7 : 0);
      return [dayScope(mon, shiftFull(mon, 6))];
    }
    if (unit === 'weekend') {
      if (last) return [weekendBefore(ref)];
      const sat = shiftFull(mondayOf(ref), 5);
      return [dayScope(sat, shiftFull(sat, 1))];
    }
    if (unit === 'month') {
      const d = utcDate(ref.year, ref.month - (last ? 1 : 0), 1);
      return [monthScope(d.getUTCFullYear(), d.getUTCMonth())];
    }
    return [yearScope(ref.year - (last ? 1 : 0))];
  });
  relative(re(String.raw`\b(yesterday|today|tonight)\b`), (m) => [dayScope(m[1].toLowerCase() === 'yesterday' ? shiftFull(ref, -1) : ref)]);
  // Said in a turn (decision 0160), plans name coming days: "tomorrow", "next week", and "next
  // Saturday" / "next weekend" — read both ways people mean them, the coming one and the one a week
  // later. Questions about the past do not use them, so queries are read as before.
  if (scan.said) {
    relative(re(String.raw`\btomorrow\b`), () => [dayScope(shiftFull(ref, 1))]);
    relative(re(String.raw`\bnext\s+(?:${WEEKDAY}|(week|weekend))\b`), (m) => {
      if (m[1]) {
        const first = nextWeekday(ref, WEEKDAYS.indexOf(m[1].toLowerCase()));
        return [dayScope(first), dayScope(shiftFull(first, 7))];
      }
      const mon = shiftFull(mondayOf(ref), 7);
      if (m[2].toLowerCase() === 'week') return [dayScope(mon, shiftFull(mon, 6))];
      const sat = nextWeekday(ref, 6);
      return [dayScope(sat, shiftFull(sat, 1)), dayScope(shiftFull(sat, 7), shiftFull(sat, 8))];
    });
  }
  if (!scan.said) relative(re(String.raw`\bon\s+${WEEKDAY}(?!s)\b`), (m) => [dayScope(lastWeekday(ref, WEEKDAYS.indexOf(m[1].toLowerCase()), true))]);
}

/**
 * Lone years ("in 2022", "… in June … 2023"): a year gives its number to the yearless months and
 * days the query names, or stands alone as a year scope. Runs after both languages.
 */
export function scanYears(scan: TimeScan): void {
  scan.each(re(String.raw`\b((?:19|20|21)\d\d)(?!\d)(?!\s*年)`), (m) => {
    const y = Number(m[1]);
    const open = scan.openScopes();
    if (!open.length) return [yearScope(y)];
    for (const s of open) {
      s.from.year = y;
      s.to.year = y;
      if (fullKey(s.from) > fullKey(s.to)) s.from.year = y - 1;
    }
    return [];
  });
}
