/**
 * Local time (decision 0270): every time a person or the model reads is the wall-clock time of the
 * person's time zone (`core.agent.timezone`, default the system's), with the zone said where the
 * reader cannot know it; what programs parse (stored timestamps, JSON APIs, logs) stays UTC / epoch.
 *
 * Pure functions over `Intl.DateTimeFormat` (no dependency): here, in the contracts layer, so that
 * the kernel, the memory and the built-ins (which import only `sdk` + `spec`) format times one way.
 */

/** The setting that names the person's time zone (an IANA name; empty = the system's zone). */
export const TIME_ZONE_KEY = 'core.agent.timezone';

const WEEKDAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

/** Canonical names of the zones seen, by the spelling asked (`asia/shanghai` → `Asia/Shanghai`); `null`: not a zone. */
const canonical = new Map<string, string | null>();

/**
 * The canonical name of a time zone the runtime knows (`asia/shanghai` → `Asia/Shanghai`, `Etc/UTC`
 * → `UTC`), or `undefined` for anything else (`Mars/Olympus`, `+08:00`, `''`).
 */
export function canonicalTimeZone(name: unknown): string | undefined {
  if (typeof name !== 'string' || !name || name.length > 64) return undefined;
  let c = canonical.get(name);
  if (c === undefined) {
    try {
      c = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
    } catch {
      c = null;
    }
    if (canonical.size > 1_000) canonical.clear();
    canonical.set(name, c);
  }
  return c ?? undefined;
}

/** True when the runtime knows the zone (an IANA name such as `Europe/Berlin`). */
export function isTimeZone(name: unknown): boolean {
  return canonicalTimeZone(name) !== undefined;
}

/** The system zone, by the `TZ` it was read under (the runtime rereads its zone only when `TZ` changes). */
let system: { tz: string | undefined; zone: string } | undefined;

/** The zone of the machine (`TZ`, else the system's setting); `UTC` when the runtime cannot say. */
export function systemTimeZone(): string {
  const tz = typeof process === 'undefined' ? undefined : process.env.TZ;
  if (system && system.tz === tz) return system.zone;
  let zone = 'UTC';
  try {
    zone = canonicalTimeZone(Intl.DateTimeFormat().resolvedOptions().timeZone) ?? 'UTC';
  } catch {
    // keep UTC
  }
  system = { tz, zone };
  return zone;
}

/**
 * The zone a value of `core.agent.timezone` means: its canonical name, or the system's zone when it
 * is empty (the default) or not a zone (a value stored before the schema checked it).
 */
export function resolveTimeZone(setting: unknown): string {
  return canonicalTimeZone(setting) ?? systemTimeZone();
}

/** A wall-clock time: `month` 1–12, `weekday` 0 = Sunday … 6 = Saturday. */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formatters.set(zone, f);
  }
  return f;
}

/** Offset of the zone from UTC at `ms` (whole seconds; exact, no cache). */
function exactOffset(ms: number, zone: string): number {
  const p: Record<string, number> = {};
  for (const part of formatter(zone).formatToParts(ms)) if (part.type !== 'literal') p[part.type] = Number(part.value);
  const wall = new Date(0);
  wall.setUTCFullYear(p.year, p.month - 1, p.day);
  wall.setUTCHours(p.hour, p.minute, p.second, 0);
  return wall.getTime() - Math.floor(ms / 1000) * 1000;
}

/**
 * Offsets by zone and hour. Recall asks for the day of thousands of turns per query: two
 * `formatToParts` (≈ 7 µs) per distinct hour, then a map read (≈ 0.3 µs) — not one per call. An
 * hour is cached only when its two ends have the same offset (no zone changes its offset twice
 * within an hour), so the hour of a daylight-saving change is computed exactly at each call.
 * At most 20,000 hours per zone (≈ 2.3 years of distinct hours, well under a megabyte) are kept.
 */
const offsets = new Map<string, Map<number, number>>();
const BUCKET_MS = 3_600_000;
const UTC_NAMES = new Set(['UTC', 'Etc/UTC', 'Etc/GMT', 'GMT', 'Etc/Universal', 'Etc/Zulu']);

/** The zone's offset from UTC at `ms`, in ms (`+08:00` → 28,800,000). */
export function utcOffsetMs(ms: number, zone: string): number {
  if (UTC_NAMES.has(zone) || !Number.isFinite(ms)) return 0;
  let byBucket = offsets.get(zone);
  if (!byBucket) offsets.set(zone, (byBucket = new Map()));
  const b = Math.floor(ms / BUCKET_MS);
  const hit = byBucket.get(b);
  if (hit !== undefined) return hit;
  const start = exactOffset(b * BUCKET_MS, zone);
  if (exactOffset(b * BUCKET_MS + BUCKET_MS - 1, zone) !== start) return exactOffset(ms, zone);
  if (byBucket.size >= 20_000) byBucket.clear();
  byBucket.set(b, start);
  return start;
}

/** The wall-clock time in the zone at `ms` (epoch ms). */
export function wallTime(ms: number, zone: string): WallTime {
  const d = new Date(ms + utcOffsetMs(ms, zone));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours(), minute: d.getUTCMinutes(), second: d.getUTCSeconds(), weekday: d.getUTCDay() };
}

const two = (n: number) => String(n).padStart(2, '0');
const year4 = (n: number) => (n >= 0 && n < 10_000 ? String(n).padStart(4, '0') : String(n));

/** `2026-12-02`: the day in the zone. */
export function localDay(ms: number, zone: string): string {
  const w = wallTime(ms, zone);
  return `${year4(w.year)}-${two(w.month)}-${two(w.day)}`;
}

/** `2026-12-02 10:01`: the wall-clock time in the zone, to the minute (the zone said elsewhere). */
export function localStamp(ms: number, zone: string): string {
  const w = wallTime(ms, zone);
  return `${year4(w.year)}-${two(w.month)}-${two(w.day)} ${two(w.hour)}:${two(w.minute)}`;
}

/** `+08:00`, `-03:30`, `+00:00`: the zone's offset from UTC at `ms`. */
export function utcOffset(ms: number, zone: string): string {
  const minutes = Math.round(utcOffsetMs(ms, zone) / 60_000);
  const a = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${two(Math.floor(a / 60))}:${two(a % 60)}`;
}

/** `2026-12-02 10:01 UTC+08:00`: one time shown alone (a reminder, a report), with its offset. */
export function localStampWithOffset(ms: number, zone: string): string {
  return `${localStamp(ms, zone)} UTC${utcOffset(ms, zone)}`;
}

/**
 * `2026-12-02 10:01 (Wednesday), Asia/Shanghai (UTC+08:00)`: the current time as the system prompt
 * gives it — wall clock, weekday, zone and offset, so "tonight at 9" and "on Tuesday" mean the
 * person's evening and Tuesday.
 */
export function localDateTime(ms: number, zone: string): string {
  return `${localStamp(ms, zone)} (${WEEKDAY_NAMES[wallTime(ms, zone).weekday]}), ${zone} (UTC${utcOffset(ms, zone)})`;
}

/** `2026-12-02T10:01:00+08:00`: ISO 8601 with the zone's offset — a time field the model reads and a program can still parse. */
export function localIso(ms: number, zone: string): string {
  const w = wallTime(ms, zone);
  return `${year4(w.year)}-${two(w.month)}-${two(w.day)}T${two(w.hour)}:${two(w.minute)}:${two(w.second)}${utcOffset(ms, zone)}`;
}

/**
 * The instant (epoch ms) a wall-clock time names in the zone: `month` 1–12. A time that a
 * daylight-saving change skips (02:30 on the night clocks go forward) is read with the offset from
 * before the change (03:30 after it); one that happens twice is the first.
 */
export function zonedEpoch(wall: Omit<WallTime, 'weekday' | 'second'> & { second?: number; ms?: number }, zone: string): number {
  const d = new Date(0);
  d.setUTCFullYear(wall.year, wall.month - 1, wall.day);
  d.setUTCHours(wall.hour, wall.minute, wall.second ?? 0, wall.ms ?? 0);
  const asUtc = d.getTime();
  // The offsets a day either side are the ones before and after any change near this time (zones
  // change at most once a day); of two readings that fit, the earlier wins.
  const before = asUtc - utcOffsetMs(asUtc - 86_400_000, zone);
  const after = asUtc - utcOffsetMs(asUtc + 86_400_000, zone);
  const fits = (t: number) => t + utcOffsetMs(t, zone) === asUtc;
  if (fits(before) && fits(after)) return Math.min(before, after);
  if (fits(before)) return before;
  if (fits(after)) return after;
  return before;
}
