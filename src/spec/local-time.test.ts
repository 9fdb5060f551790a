import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalTimeZone, isTimeZone, localDateTime, localDay, localIso, localStamp, localStampWithOffset, resolveTimeZone, systemTimeZone, utcOffset, wallTime, zonedEpoch } from './local-time.js';

test('zone names: canonical IANA names; anything else is not a zone, and an empty setting is the system zone', () => {
  assert.equal(canonicalTimeZone('asia/shanghai'), 'Asia/Shanghai');
  assert.equal(canonicalTimeZone('Etc/UTC'), 'UTC');
  for (const bad of ['Mars/Olympus', '+08:00', '', ' ', 'x'.repeat(65), 42, null, undefined]) assert.equal(isTimeZone(bad), false, String(bad));
  assert.equal(resolveTimeZone('Europe/Berlin'), 'Europe/Berlin');
  assert.equal(resolveTimeZone(''), systemTimeZone());
  assert.equal(resolveTimeZone('Mars/Olympus'), systemTimeZone());
});

test('wall clock, day and offset in a zone, across a midnight and both daylight-saving changes', () => {
  // 23:30 UTC on Monday 30 November 2026 is 07:30 on Tuesday 1 December in Shanghai.
  const t = Date.UTC(2026, 10, 30, 23, 30);
  assert.deepEqual(wallTime(t, 'Asia/Shanghai'), { year: 2026, month: 12, day: 1, hour: 7, minute: 30, second: 0, weekday: 2 });
  assert.equal(localDay(t, 'Asia/Shanghai'), '2026-12-01');
  assert.equal(localDay(t, 'UTC'), '2026-11-30');
  assert.equal(localDay(t, 'America/Los_Angeles'), '2026-11-30');
  assert.equal(localStamp(t, 'America/Los_Angeles'), '2026-11-30 15:30');
  assert.equal(utcOffset(t, 'Asia/Kolkata'), '+05:30');
  assert.equal(utcOffset(t, 'Asia/Kathmandu'), '+05:45');
  assert.equal(utcOffset(t, 'America/St_Johns'), '-03:30');
  // Berlin goes from +01:00 to +02:00 at 01:00 UTC on 29 March 2026 and back at 01:00 UTC on 25 October.
  assert.equal(localStampWithOffset(Date.UTC(2026, 2, 29, 0, 59), 'Europe/Berlin'), '2026-03-29 01:59 UTC+01:00');
  assert.equal(localStampWithOffset(Date.UTC(2026, 2, 29, 1, 0), 'Europe/Berlin'), '2026-03-29 03:00 UTC+02:00');
  assert.equal(localStampWithOffset(Date.UTC(2026, 9, 25, 0, 59), 'Europe/Berlin'), '2026-10-25 02:59 UTC+02:00');
  assert.equal(localStampWithOffset(Date.UTC(2026, 9, 25, 1, 0), 'Europe/Berlin'), '2026-10-25 02:00 UTC+01:00');
  // Lord Howe moves by half an hour (+11:00 → +10:30 at 15:00 UTC on 4 April 2026).
  for (let m = -30; m <= 30; m += 5) {
    const at = Date.UTC(2026, 3, 4, 15, 0) + m * 60_000;
    assert.equal(utcOffset(at, 'Australia/Lord_Howe'), m < 0 ? '+11:00' : '+10:30', String(m));
  }
  // Kathmandu changed in the middle of an hour (18:30 UTC on 31 December 1985, +05:30 → +05:45):
  // the cached hours around it stay exact, before and after the hour itself is asked (any order).
  for (const m of [25, -25, 0, -1, 29, 31, -60, 60]) {
    const at = Date.UTC(1985, 11, 31, 18, 30) + m * 60_000;
    assert.equal(utcOffset(at, 'Asia/Kathmandu'), m < 0 ? '+05:30' : '+05:45', String(m));
  }
  assert.equal(localStamp(Date.UTC(1985, 11, 31, 18, 30), 'Asia/Kathmandu'), '1986-01-01 00:15');
});

test('the current time as the prompt says it, and ISO with the local offset', () => {
  const t = Date.UTC(2026, 11, 2, 2, 1);
  assert.equal(localDateTime(t, 'Asia/Shanghai'), '2026-12-02 10:01 (Wednesday), Asia/Shanghai (UTC+08:00)');
  assert.equal(localDateTime(t, 'UTC'), '2026-12-02 02:01 (Wednesday), UTC (UTC+00:00)');
  assert.equal(localIso(t + 5_000, 'America/New_York'), '2026-12-01T21:01:05-05:00');
  assert.equal(Date.parse(localIso(t, 'Asia/Kathmandu')), t);
});

test('a wall-clock time back to an instant: plain, skipped by a DST change, and repeated by one', () => {
  assert.equal(zonedEpoch({ year: 2026, month: 12, day: 1, hour: 21, minute: 0 }, 'Asia/Shanghai'), Date.UTC(2026, 11, 1, 13, 0));
  // 02:30 does not exist in Berlin on 29 March 2026: read with the offset from before (= 03:30 CEST).
  assert.equal(zonedEpoch({ year: 2026, month: 3, day: 29, hour: 2, minute: 30 }, 'Europe/Berlin'), Date.UTC(2026, 2, 29, 1, 30));
  // 02:30 happens twice on 25 October 2026: the first (CEST).
  assert.equal(zonedEpoch({ year: 2026, month: 10, day: 25, hour: 2, minute: 30 }, 'Europe/Berlin'), Date.UTC(2026, 9, 25, 0, 30));
  for (const zone of ['UTC', 'Asia/Shanghai', 'America/St_Johns', 'Pacific/Chatham']) {
    const t = Date.UTC(2026, 5, 15, 12, 34);
    const w = wallTime(t, zone);
    assert.equal(zonedEpoch(w, zone), t, zone);
  }
});
