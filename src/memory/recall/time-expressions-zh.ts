import { isValidDay, utcDate, mondayOf, monthLength, shiftFull, weekdayOf, type CalendarDay, type FullDay } from './calendar-day.js';
import { offset } from './time-expressions-en.js';
import { dayScope, monthScope, yearScope, type TimeScan, type TimeScope } from './time-scan.js';

const DIGITS: Record<string, number> = { 零: 0, 〇: 0, 一: 1, 二: 2, 两: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9 };

/** A number written in digits or Chinese numerals up to 99 (十一, 二十九, 三十一) or a year (二〇二三). */
export function chineseNumber(s: string): number {
  if (/^\d+$/.test(s)) return Number(s);
  if (/^[〇零一二三四五六七八九]{4}$/.test(s)) return Number([...s].map((c) => DIGITS[c]).join(''));
  const i = s.indexOf('十');
  if (i < 0) return s.length === 1 ? (DIGITS[s] ?? NaN) : NaN;
  const tens = i === 0 ? 1 : DIGITS[s.slice(0, i)];
  const ones = i === s.length - 1 ? 0 : DIGITS[s.slice(i + 1)];
  return tens === undefined || ones === undefined ? NaN : tens * 10 + ones;
}

/** A number: digits or Chinese numerals (one group); not the tail of a longer number. */
const NUM = String.raw`(?<![\d一二两三四五六七八九十〇零])(\d{1,2}|[一二两三四五六七八九十]{1,3})`;
/** An optional year before a month: "2023年", "二〇二三年", 去年 / 前年 / 今年 (one group). */
const YEAR = String.raw`(?:(\d{4}|[〇零一二三四五六七八九]{4}|去|前|今)\s*年\s*)?`;
const DAYMARK = '[日号號]';
const WEEK = '(?:周|星期|礼拜)';
/** 一 … 六, 日 / 天 (Sunday). */
const WD = '([一二三四五六日天1-7])';

/** Compiled patterns, by source (compiling ≈ 40 patterns per text cost more than matching them). */
const compiled = new Map<string, RegExp>();
/** A pattern (compiled once; `matchAll` matches on a copy, so sharing it is safe). */
const re = (s: string): RegExp => {
  let r = compiled.get(s);
  if (!r) compiled.set(s, (r = new RegExp(s, 'gu')));
  return r;
};

/** A year group: digits, or 去年 / 前年 / 今年 counted from the query's own time. */
function yearIn(s: string | undefined, now: FullDay): number | undefined {
  if (!s) return undefined;
  const back = ({ 今: 0, 去: 1, 前: 2 } as Record<string, number>)[s];
  return back === undefined ? chineseNumber(s) : now.year - back;
}

function day(year: number | undefined, month: number, d: number): CalendarDay | undefined {
  return isValidDay(year, month, d) ? { year, month, day: d } : undefined;
}

/** 周一 … 周六 → 1 … 6, 周日 / 周天 / 周7 → 0. */
function weekdayNumber(c: string): number {
  if (c === '日' || c === '天' || c === '7') return 0;
  return /\d/.test(c) ? Number(c) : DIGITS[c];
}

/** The day of the week `wd` in the Monday-started week `weeks` from the week of `ref`. */
function inWeek(ref: FullDay, weeks: number, wd: number): FullDay {
  return shiftFull(mondayOf(ref), 7 * weeks + ((wd + 6) % 7));
}

/** Days `first`…`last` of a month. */
function monthPart(year: number | undefined, month: number, first: number, last: number): TimeScope {
  const len = monthLength(year, month);
  return dayScope({ year, month, day: Math.min(first, len) }, { year, month, day: Math.min(last, len) });
}

const WEEKS: Record<string, number> = { 上上: -2, 上: -1, 这: 0, 本: 0, 下: 1 };

/**
 * Chinese dates: 2022年11月9日, 十一月九号, 8月11日到15日, 十一月第二周, 11月上旬, 5月 / 2023年,
 * and days counted from the first absolute day named or the query's time: 上周六, 这周日, 周六,
 * 上周, 上周末, 昨天, 前天, 三天前, 两周前, 上个月, 去年. Weeks start on Monday (上周六 is the
 * Saturday of the previous calendar week).
 */
export function scanChinese(scan: TimeScan): void {
  const yearOf = (s: string | undefined) => yearIn(s, scan.now);
  const anchored = (c: CalendarDay | undefined, scopes?: TimeScope[]) => (c ? { scopes: scopes ?? [dayScope(c)], anchor: c } : undefined);

  scan.each(re(String.raw`${YEAR}${NUM}\s*月\s*${NUM}\s*${DAYMARK}?\s*(?:到|至|~|～|-|–|—|－)\s*(?:${YEAR}${NUM}\s*月\s*)?${NUM}\s*${DAYMARK}`), (m) => {
    const y1 = yearOf(m[1]);
    const y2 = yearOf(m[4]) ?? y1;
    const m1 = chineseNumber(m[2]) - 1;
    const m2 = m[5] ? chineseNumber(m[5]) - 1 : m1;
    const a = day(y1 ?? y2, m1, chineseNumber(m[3]));
    const b = day(y2, m2, chineseNumber(m[6]));
    if (!a || !b) return undefined;
    return anchored(b, [dayScope(a, b)]);
  });
  scan.each(re(String.raw`${YEAR}${NUM}\s*月份?的?(?:第\s*([一二三四1-4])\s*个?|(最后一)\s*个?)${WEEK}`), (m) => {
    const y = yearOf(m[1]);
    const mo = chineseNumber(m[2]) - 1;
    if (!isValidDay(y, mo, 1)) return undefined;
    const len = monthLength(y, mo);
    if (m[4]) return [monthPart(y, mo, len - 6, len)];
    const n = chineseNumber(m[3]);
    return [monthPart(y, mo, 7 * (n - 1) + 1, 7 * n)];
  });
  scan.each(re(String.raw`${YEAR}${NUM}\s*月份?(初|上旬|中旬|下旬|底|末)`), (m) => {
    const y = yearOf(m[1]);
    const mo = chineseNumber(m[2]) - 1;
    if (!isValidDay(y, mo, 1)) return undefined;
    const part = m[3];
    if (part === '初' || part === '上旬') return [monthPart(y, mo, 1, 10)];
    if (part === '中旬') return [monthPart(y, mo, 11, 20)];
    return [monthPart(y, mo, 21, 31)];
  });
  scan.each(re(String.raw`${YEAR}${NUM}\s*月\s*${NUM}\s*${DAYMARK}`), (m) => anchored(day(yearOf(m[1]), chineseNumber(m[2]) - 1, chineseNumber(m[3]))));
  scan.each(re(String.raw`${YEAR}${NUM}\s*月份?`), (m) => {
    const mo = chineseNumber(m[2]) - 1;
    const y = yearOf(m[1]);
    return isValidDay(y, mo, 1) ? [monthScope(y, mo)] : undefined;
  });
  scan.each(re(String.raw`(\d{4}|[〇零一二三四五六七八九]{4})\s*年(?![级代])`), (m) => {
    const y = chineseNumber(m[1]);
    return y >= 1900 && y < 2200 ? [yearScope(y)] : undefined;
  });

  // Days counted from another day: their words stay query terms (the turns say them too).
  const relative: TimeScan['each'] = (r, fn) => scan.each(r, fn, true);
  const ref = scan.reference();
  relative(re(String.raw`(上上|上|这|本|下)?\s*个?${WEEK}${WD}`), (m) => {
    const wd = weekdayNumber(m[2]);
    if (!m[1]) {
      // Said in a turn, 周六 alone may be the coming one: no day (decision 0160).
      if (scan.said) return [];
      // 周六 alone: the latest one, today included.
      const back = (weekdayOf(ref) - wd + 7) % 7;
      return [dayScope(shiftFull(ref, -back))];
    }
    return [dayScope(inWeek(ref, WEEKS[m[1]], wd))];
  });
  relative(re(String.raw`(上上|上|这|本|下)\s*个?(?:周末|${WEEK}末)`), (m) => {
    const sat = inWeek(ref, WEEKS[m[1]], 6);
    return [dayScope(sat, shiftFull(sat, 1))];
  });
  relative(re(String.raw`(上上|上|这|本|下)\s*个?${WEEK}`), (m) => {
    const mon = shiftFull(mondayOf(ref), 7 * WEEKS[m[1]]);
    return [dayScope(mon, shiftFull(mon, 6))];
  });
  // Said in a turn (decision 0160), plans name coming days too; questions about the past do not.
  if (scan.said) relative(re('(大后天|后天|明天|明日)'), (m) => [dayScope(shiftFull(ref, ({ 大后天: 3, 后天: 2, 明天: 1, 明日: 1 } as Record<string, number>)[m[1]]))]);
  relative(re('(大前天|前天|昨天|昨日|今天|今日)'), (m) => [dayScope(shiftFull(ref, -({ 大前天: 3, 前天: 2, 昨天: 1, 昨日: 1 } as Record<string, number>)[m[1]] || 0))]);
  relative(re(String.raw`${NUM}\s*(天|周|个星期|个礼拜|个月)\s*(?:前|以前|之前)`), (m) => {
    const unit = m[2].replace('个', '');
    const s = offset(ref, chineseNumber(m[1]), unit === '月' ? 'month' : unit);
    return s && [s];
  });
  relative(re('(上个?月|这个月|本月|去年|前年|今年)'), (m) => {
    const w = m[1];
    if (w.endsWith('年')) return [yearScope(ref.year - (w === '去年' ? 1 : w === '前年' ? 2 : 0))];
    const d = utcDate(ref.year, ref.month - (w.startsWith('上') ? 1 : 0), 1);
    return [monthScope(d.getUTCFullYear(), d.getUTCMonth())];
  });
}
