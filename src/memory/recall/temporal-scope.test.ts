import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CalendarDay } from './calendar-day.js';
import { inScope, parseTimeScopes, temporalScopes, type TimeScope } from './temporal-scope.js';

/** Wednesday 10 May 2023, noon local time: the query's own time in these tests. */
const NOW = new Date(2023, 4, 10, 12).getTime();
const day = (c: CalendarDay) => `${c.year ?? '*'}-${c.month + 1}-${c.day}`;
const show = (s: TimeScope) => `${s.unit} ${day(s.from)}..${day(s.to)}`;
const scopes = (q: string, now = NOW) => parseTimeScopes(q, now).scopes.map(show);
const at = (y: number, m: number, d: number, h = 12) => new Date(y, m - 1, d, h).getTime();

test('English days, ranges, weeks and parts of a month are day scopes; their words are not query terms', () => {
  assert.deepEqual(scopes('What did Caroline do on 9 November 2022?'), ['day 2022-11-9..2022-11-9']);
  assert.deepEqual(scopes('what happened on November 9, 2022'), ['day 2022-11-9..2022-11-9']);
  assert.deepEqual(scopes('the 8th of December'), ['day *-12-8..*-12-8']);
  assert.deepEqual(scopes('on 2022-11-09'), ['day 2022-11-9..2022-11-9']);
  assert.deepEqual(scopes('Where was Jon between August 11 and 15 2023?'), ['day 2023-8-11..2023-8-15']);
  assert.deepEqual(scopes('Aug 11-15, 2023'), ['day 2023-8-11..2023-8-15']);
  assert.deepEqual(scopes('from 28 July to 2 August 2023'), ['day 2023-7-28..2023-8-2']);
  assert.deepEqual(scopes('What did they do in the second week of November?'), ['day *-11-8..*-11-14']);
  assert.deepEqual(scopes('the last week of February 2024'), ['day 2024-2-23..2024-2-29']);
  assert.deepEqual(scopes('in early May'), ['day *-5-1..*-5-10']);
  assert.deepEqual(scopes('by the end of March 2023'), ['day 2023-3-21..2023-3-31']);
  const p = parseTimeScopes('What did Caroline do on 9 November 2022?', NOW);
  assert.equal(p.words, '9 November 2022');
});

test('relative English days count from the query’s time, or from the first absolute day the query names', () => {
  assert.deepEqual(scopes('What did Mel do last Saturday?'), ['day 2023-5-6..2023-5-6'], 'the Saturday before Wednesday 10 May');
  assert.deepEqual(scopes('what did I do yesterday'), ['day 2023-5-9..2023-5-9']);
  assert.deepEqual(scopes('the day before yesterday'), ['day 2023-5-8..2023-5-8']);
  assert.deepEqual(scopes('three days ago'), ['day 2023-5-7..2023-5-7']);
  assert.deepEqual(scopes('two weeks ago'), ['day 2023-4-23..2023-4-29'], 'a week ± 3 days');
  assert.deepEqual(scopes('last week'), ['day 2023-5-1..2023-5-7'], 'the previous Monday-to-Sunday week');
  assert.deepEqual(scopes('last weekend'), ['day 2023-5-6..2023-5-7']);
  assert.deepEqual(scopes('last month'), ['month 2023-4-1..2023-4-30']);
  assert.deepEqual(scopes('the Sunday before 25 May 2023'), ['day 2023-5-21..2023-5-21', 'day 2023-5-25..2023-5-25']);
  assert.deepEqual(scopes('the week before August 3, 2023'), ['day 2023-7-27..2023-8-2', 'day 2023-8-3..2023-8-3']);
  // Relative words stay query words (turns say "last Saturday" too).
  assert.equal(parseTimeScopes('What did Mel do last Saturday?', NOW).words, '');
  // Asked a year later, "last Saturday" is a year later.
  assert.deepEqual(scopes('last Saturday', at(2024, 5, 10)), ['day 2024-5-4..2024-5-4']);
});

test('Chinese days, ranges, parts of a month and relative days (weeks start on Monday)', () => {
  assert.deepEqual(scopes('2022年11月9日发生了什么'), ['day 2022-11-9..2022-11-9']);
  assert.deepEqual(scopes('十一月九号我们去了哪'), ['day *-11-9..*-11-9']);
  assert.deepEqual(scopes('8月11日到15日他在哪里'), ['day *-8-11..*-8-15']);
  assert.deepEqual(scopes('十一月第二周'), ['day *-11-8..*-11-14']);
  assert.deepEqual(scopes('11月上旬'), ['day *-11-1..*-11-10']);
  assert.deepEqual(scopes('去年5月'), ['month 2022-5-1..2022-5-31']);
  assert.deepEqual(scopes('上周六我去了哪里'), ['day 2023-5-6..2023-5-6']);
  assert.deepEqual(scopes('这周一'), ['day 2023-5-8..2023-5-8']);
  assert.deepEqual(scopes('上周末'), ['day 2023-5-6..2023-5-7']);
  assert.deepEqual(scopes('前天'), ['day 2023-5-8..2023-5-8']);
  assert.deepEqual(scopes('三天前'), ['day 2023-5-7..2023-5-7']);
  assert.deepEqual(scopes('上个月'), ['month 2023-4-1..2023-4-30']);
});

test('words that only look like dates are not dates; impossible days are refused', () => {
  assert.deepEqual(scopes('He may come in May'), ['month *-5-1..*-5-31'], 'the verb "may" is no month');
  assert.deepEqual(scopes('I will march on'), []);
  assert.deepEqual(scopes('on 31 February 2023'), ['month 2023-2-1..2023-2-28'], 'no such day: the month remains');
  assert.deepEqual(scopes('我在2023年级'), []);
});

test('years: a lone year completes the yearless months and days, or stands alone', () => {
  assert.deepEqual(scopes('When did Jon go to Paris in June 2023?'), ['month 2023-6-1..2023-6-30']);
  assert.deepEqual(scopes('in 2022'), ['year 2022-1-1..2022-12-31']);
  assert.deepEqual(scopes('on November 9 in 2022'), ['day 2022-11-9..2022-11-9']);
});

test('day level off: day expressions count as their months, relative ones as nothing (the issue-11 parser)', () => {
  assert.deepEqual(temporalScopes('between August 11 and 15 2023', NOW).map(show), ['month 2023-8-1..2023-8-31']);
  assert.deepEqual(temporalScopes('last Saturday', NOW).map(show), []);
  assert.deepEqual(temporalScopes('May 2023', NOW).map(show), ['month 2023-5-1..2023-5-31']);
});

test('inScope: a day, its grace days after, and days of any year', () => {
  const s = parseTimeScopes('on 9 November 2022', NOW).scopes[0];
  assert.equal(inScope(at(2022, 11, 9), s, 0), true);
  assert.equal(inScope(at(2022, 11, 10), s, 0), false);
  assert.equal(inScope(at(2022, 11, 15), s, 7), true, 'a session a week later tells of it');
  assert.equal(inScope(at(2022, 11, 8), s, 7), false, 'never before');
  assert.equal(inScope(at(2023, 11, 9), s, 7), false, 'another year');
  const any = parseTimeScopes('十一月九号', NOW).scopes[0];
  assert.equal(inScope(at(2019, 11, 9), any, 0), true, 'a yearless day matches every year');
  const wrap = parseTimeScopes('the last week of December', NOW).scopes[0];
  assert.equal(inScope(at(2020, 1, 3), wrap, 7), true, 'grace wraps into January');
  assert.equal(inScope(at(2020, 1, 10), wrap, 7), false);
});

test('a long query is read for dates from its head only (a pasted log is not scanned whole)', () => {
  assert.deepEqual(scopes(`${'x '.repeat(400)}on 9 November 2022`), ['day 2022-11-9..2022-11-9']);
  assert.deepEqual(scopes(`${'x '.repeat(600)}on 9 November 2022`), [], 'beyond the first 1,000 characters');
  assert.deepEqual(scopes('8月11日到'.repeat(2000)).length > 0, true, 'repeated fragments parse without error');
});
