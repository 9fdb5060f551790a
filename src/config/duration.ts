import { z } from 'zod';
import { ValidationError } from '../spec/index.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION_RE = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/;
const PART_RE = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/g;

/**
 * Parses a duration string such as `"30m"`, `"2h"`, `"45s"`, `"1h30m"` or `"500ms"` into
 * milliseconds. Throws ValidationError for anything else (empty, negative, unknown unit, zero).
 *
 * @example parseDuration('1h30m') // 5_400_000
 */
export function parseDuration(text: string): number {
  const s = typeof text === 'string' ? text.trim() : '';
  if (!DURATION_RE.test(s)) {
    throw new ValidationError(`invalid duration ${JSON.stringify(text)}: expected e.g. "45s", "30m", "2h", "1h30m", "500ms"`, { value: String(text) });
  }
  let ms = 0;
  for (const m of s.matchAll(PART_RE)) ms += Number(m[1]) * UNIT_MS[m[2]];
  ms = Math.round(ms);
  if (ms <= 0) throw new ValidationError(`invalid duration ${JSON.stringify(text)}: must be greater than zero`, { value: text });
  return ms;
}

/** True when `text` is a valid duration for {@link parseDuration}. */
export function isDuration(text: unknown): text is string {
  if (typeof text !== 'string') return false;
  try {
    parseDuration(text);
    return true;
  } catch {
    return false;
  }
}

/** Zod schema of a duration string (kept as the string; convert with {@link parseDuration}). */
export function durationSchema(): z.ZodType<string> {
  return z.string().refine(isDuration, { message: 'expected a duration such as "45s", "30m", "2h", "1h30m"' });
}
