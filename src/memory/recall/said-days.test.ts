import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ContextEvent } from '../../spec/index.js';
import { dayKey, dayKeyRanges, dayOfKey, eventsSaidOn, MAX_SAID_DAYS, saidDays, saidIn } from './said-days.js';
import { parseTimeScopes } from './temporal-scope.js';

/** Local time, as the calendar days are (the machine's calendar is the user's). */
const at = (y: number, m: number, d: number, h = 12) => new Date(y, m - 1, d, h).getTime();
/** Monday 8 May 2023. */
const MON = at(2023, 5, 8);
/** Wednesday 17 January 2024. */
const WED = at(2024, 1, 17);

test('English days said in a turn resolve against the turn’s own time', () => {
  assert.deepEqual(saidDays('I went to the support group yesterday', MON), [20230507]);
  assert.deepEqual(saidDays('the day before yesterday we moved', MON), [20230506]);
  assert.deepEqual(saidDays('We went camping last Saturday', WED), [20240113]);
  assert.deepEqual(saidDays('last week was busy', MON), [20230501, 20230502, 20230503, 20230504, 20230505, 20230506, 20230507]);
  assert.deepEqual(saidDays('I ran a marathon two days ago', MON), [20230506]);
  // An explicit day with a year, and without one (read in the year nearest the turn).
  assert.deepEqual(saidDays('I gave a talk on 9 November 2022', MON), [20221109]);
  assert.deepEqual(saidDays('I moved on November 9', at(2022, 12, 1)), [20221109]);
  assert.deepEqual(saidDays('the concert is on January 3', at(2022, 12, 20)), [20230103], 'a yearless day just after the new year is the coming one');
  // A range.
  assert.deepEqual(saidDays('our trip was Aug 11-15, 2023', at(2023, 9, 1)), [20230811, 20230812, 20230813, 20230814, 20230815]);
  // Plans: the coming days ("next Saturday" both ways people mean it).
  assert.deepEqual(saidDays('I will call you tomorrow', MON), [20230509]);
  assert.deepEqual(saidDays('we go hiking next Saturday', MON), [20230513, 20230520]);
  assert.deepEqual(saidDays('the exam is next week', MON), [20230515, 20230516, 20230517, 20230518, 20230519, 20230520, 20230521]);
  assert.deepEqual(parseTimeScopes('What did I do next Saturday?', MON).scopes, [], 'a query is read as before (no "next")');
  // "yesterday" counts from the turn, not from another day it names.
  assert.deepEqual(saidDays('Yesterday I booked the flight for 9 November 2023', MON), [20230507, 20231109]);
});

test('Chinese days said in a turn resolve against the turn’s own time (weeks start on Monday)', () => {
  assert.deepEqual(saidDays('我上周六去爬山了', WED), [20240113]);
  assert.deepEqual(saidDays('昨天下雨了', WED), [20240116]);
  assert.deepEqual(saidDays('前天我去了医院', WED), [20240115]);
  assert.deepEqual(saidDays('上周我在杭州', WED), [20240108, 20240109, 20240110, 20240111, 20240112, 20240113, 20240114]);
  assert.deepEqual(saidDays('三天前买的', WED), [20240114]);
  assert.deepEqual(saidDays('8月11日到15日我在杭州', at(2023, 9, 1)), [20230811, 20230812, 20230813, 20230814, 20230815]);
  assert.deepEqual(saidDays('2022年11月9日我搬家了', WED), [20221109]);
  assert.deepEqual(saidDays('明天去爬山，后天休息', WED), [20240118, 20240119]);
  assert.deepEqual(saidDays('十一月九号我搬家了', at(2023, 12, 1)), [20231109]);
});

test('what is not a day said gives none: months, years, the turn’s own day, a bare weekday, over-wide spans', () => {
  assert.deepEqual(saidDays('in May 2023 I started painting', MON), []);
  assert.deepEqual(saidDays('去年我在上海', WED), []);
  assert.deepEqual(saidDays('today was great, tonight too', MON), [], 'the turn’s own day is its time already');
  assert.deepEqual(saidDays('see you on Saturday', MON), [], 'said, a bare weekday may be the coming one');
  assert.deepEqual(saidDays('周六去爬山吧', WED), []);
  assert.deepEqual(saidDays('下周六去爬山', WED), [20240127], 'a named coming week is clear');
  assert.deepEqual(saidDays('between May 1 and June 30 2023 I was away', MON), [], 'two months is not a day');
  assert.ok(saidDays('every day in the first week of May, last week, the week before, yesterday', MON).length <= MAX_SAID_DAYS);
});

test('odd and corrupt dates in a turn give no days and never throw', () => {
  for (const text of ['2023-13-45', 'on 31 February 2023', '99999999-99-99', '0000年0月0日', '十十十月九十号', 'last last last week ago ago', '\u0000\uFFFF yesterday \uD800', 'x'.repeat(100_000) + ' yesterday']) {
    assert.doesNotThrow(() => saidDays(text, MON));
  }
  assert.deepEqual(saidDays('2023-13-45 and 31 February 2023', MON), []);
  assert.deepEqual(saidDays('yesterday', NaN), []);
  assert.deepEqual(saidDays(undefined as unknown as string, MON), []);
  assert.deepEqual(saidDays('x'.repeat(100_000) + ' yesterday', MON), [], 'only the head of a long turn is read');
});

test('day keys and the ranges a query looks them up by (yearless query days in each stored year)', () => {
  assert.equal(dayKey({ year: 2023, month: 4, day: 7 }), 20230507);
  assert.deepEqual(dayOfKey(20230507), { year: 2023, month: 4, day: 7 });
  assert.equal(dayOfKey(20230231), undefined);
  const q = parseTimeScopes('What did Caroline do on 7 May 2023?', at(2024, 1, 1)).scopes;
  assert.deepEqual(dayKeyRanges(q, undefined), [{ from: 20230507, to: 20230507 }]);
  const yearless = parseTimeScopes('What did Caroline do on 7 May?', at(2024, 1, 1)).scopes;
  assert.deepEqual(dayKeyRanges(yearless, undefined), [], 'no stored days: nothing to look up');
  assert.deepEqual(dayKeyRanges(yearless, { min: 2022, max: 2023 }), [{ from: 20220507, to: 20220507 }, { from: 20230507, to: 20230507 }]);
  assert.equal(saidIn([20230507], dayKeyRanges(q, undefined)), true);
  assert.equal(saidIn([20230508], dayKeyRanges(q, undefined)), false);
  // 上周六 asked a week after it was said about.
  const zh = parseTimeScopes('我上周六做了什么', at(2024, 1, 17)).scopes;
  assert.deepEqual(dayKeyRanges(zh, undefined), [{ from: 20240113, to: 20240113 }]);
});

test('context events: the events whose said days fall in the query’s days', () => {
  const ev = (id: string, input: string, t: number): ContextEvent => ({ id, timestamp: t, kind: 'user', source: 'chat', channel: 'chat', sessionId: 's', input, response: '' });
  const events = [ev('a', 'I went hiking yesterday', MON), ev('b', 'I went hiking', at(2023, 5, 7)), ev('c', 'nothing', MON)];
  const scopes = parseTimeScopes('What did I do on 7 May 2023?', MON).scopes;
  assert.deepEqual(eventsSaidOn(events, scopes, 10), ['a'], 'b is dated on the day (the date scope finds it), not said about it');
  assert.deepEqual(eventsSaidOn(events, parseTimeScopes('on 6 May 2023', MON).scopes, 10), []);
});
