/**
 * What the turn tiers share about the days said inside a turn (decision 0160): the resolver they
 * are given (recall's `saidDays`: "yesterday" said on 8 May 2023 → 20230507) and the key ranges a
 * query looks them up by. Days are `YYYYMMDD` numbers, stored per document in a `turn_days` table.
 */

/** Resolves the days a text says against the time it was said, as YYYYMMDD keys. */
export type SaidDaysResolver = (text: string, time: number) => readonly number[];

/** An inclusive range of YYYYMMDD day keys. */
export interface DayKeyRange {
  from: number;
  to: number;
}

/** The resolver's days, or none when it throws or answers nonsense: a turn is stored regardless. */
export function safeDays(resolve: SaidDaysResolver, text: string, time: number): number[] {
  try {
    const days = resolve(text, time);
    return Array.isArray(days) ? [...new Set(days.filter((d) => Number.isInteger(d) && d >= 19_000_101 && d <= 21_991_231))] : [];
  } catch {
    return [];
  }
}
