import { systemTimeZone, ValidationError, zonedEpoch } from '../../spec/index.js';

const UNIT_MS: Record<string, number> = {
  s: 1000, sec: 1000, secs: 1000, second: 1000, seconds: 1000, 秒: 1000, 秒钟: 1000,
  m: 60_000, min: 60_000, mins: 60_000, minute: 60_000, minutes: 60_000, 分: 60_000, 分钟: 60_000,
  h: 3_600_000, hr: 3_600_000, hrs: 3_600_000, hour: 3_600_000, hours: 3_600_000, 小时: 3_600_000, 个小时: 3_600_000,
  d: 86_400_000, day: 86_400_000, days: 86_400_000, 天: 86_400_000,
  w: 604_800_000, week: 604_800_000, weeks: 604_800_000, 周: 604_800_000,
};

/** An ISO date or date-time without an offset: a wall-clock time of the person's zone. */
const LOCAL_ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[t ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?)?$/;

const PART = /(\d+(?:\.\d+)?)\s*(seconds|second|secs|sec|s|minutes|minute|mins|min|m|hours|hour|hrs|hr|h|days|day|d|weeks|week|w|秒钟|秒|分钟|分|个小时|小时|天|周)/gy;

/**
 * Parses when a one-shot reminder is due, relative to `now` (epoch ms):
 * `"in 10 minutes"`, `"in 1h 30m"`, `"10m"`, `"10分钟后"`, `"2小时30分钟后"`, or an ISO date-time
 * (`"2026-12-01T09:00:00+08:00"`; without an offset, `"2026-12-01T21:00"` or `"2026-12-01"`, it is
 * the wall clock of `zone` — the person's, decision 0270 — so "9 tonight" is their 21:00).
 * Throws ValidationError for anything else or a time in the past.
 */
export function parseWhen(when: string, now: number, zone: string = systemTimeZone()): number {
  const s = when.trim().toLowerCase();
  const rel = s.replace(/^in\s+/, '').replace(/\s*(后|以后|之后|later|from now)$/, '').replace(/\s+and\s+/g, ' ').trim();
  if (/^\d/.test(rel)) {
    let total = 0;
    let pos = 0;
    PART.lastIndex = 0;
    for (;;) {
      while (rel[pos] === ' ' || rel[pos] === ',') pos++;
      if (pos >= rel.length) break;
      PART.lastIndex = pos;
      const m = PART.exec(rel);
      if (!m) {
        total = NaN;
        break;
      }
      total += Number(m[1]) * UNIT_MS[m[2]];
      pos = PART.lastIndex;
    }
    if (Number.isFinite(total) && total > 0) return now + Math.round(total);
  }
  if (/^\d{4}-\d{2}-\d{2}/.test(s)) {
    const local = LOCAL_ISO.exec(s);
    const [year, month, day, hour, minute, second] = (local ?? []).slice(1, 7).map((x) => Number(x ?? 0));
    const valid = local && month >= 1 && month <= 12 && day >= 1 && new Date(Date.UTC(year, month - 1, day)).getUTCDate() === day && hour <= 23 && minute <= 59 && second <= 59;
    const t = local ? (valid ? zonedEpoch({ year, month, day, hour, minute, second, ms: Number((local[7] ?? '0').padEnd(3, '0')) }, zone) : NaN) : Date.parse(when.trim());
    if (Number.isFinite(t)) {
      if (t <= now) throw new ValidationError(`"${when}" is in the past`, { when });
      return t;
    }
  }
  throw new ValidationError(`cannot understand when=${JSON.stringify(when)}: use "in 10 minutes", "1h30m", "10分钟后" or an ISO time like 2026-12-01T09:00:00+08:00`, { when });
}
