const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH_RE = /\b(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b\.?(?:\s+(\d{4}))?/gi;
const YEAR_RE = /\b(19\d\d|20\d\d)\b/g;
/** Chinese: 2023年5月 / 5月 / 2023年 */
const ZH_RE = /(?:(\d{4})\s*年)?\s*(\d{1,2})\s*月|(\d{4})\s*年/g;

/** A time window a query refers to: a month (of a given year or of any year) or a whole year. */
export interface TimeScope {
  year?: number;
  /** 0-based month. */
  month?: number;
}

/**
 * Finds explicit month / year references in a query ("in June", "May 2023", "in 2022",
 * "2023年5月"). Words like "may" count only when capitalised ("May"), since "may" is a verb.
 */
export function temporalScopes(query: string): TimeScope[] {
  const out: TimeScope[] = [];
  const years = new Set<number>();
  for (const m of query.matchAll(MONTH_RE)) {
    const word = m[1];
    if (word[0] !== word[0].toUpperCase()) continue; // "may", "march" as verbs/nouns
    if (/^(mar|may|jan|jun|jul|aug|sep|oct|nov|dec|feb|apr)$/i.test(word) && word.toLowerCase() !== 'may' && !m[0].endsWith('.')) continue; // bare abbreviations are too ambiguous
    const month = MONTHS.findIndex((x) => x.startsWith(word.toLowerCase().slice(0, 3)));
    const year = m[2] ? Number(m[2]) : undefined;
    if (year) years.add(year);
    out.push({ month, year });
  }
  for (const m of query.matchAll(ZH_RE)) {
    if (m[2]) {
      const year = m[1] ? Number(m[1]) : undefined;
      if (year) years.add(year);
      out.push({ month: Number(m[2]) - 1, year });
    } else if (m[3]) {
      const y = Number(m[3]);
      if (!years.has(y)) out.push({ year: y });
      years.add(y);
    }
  }
  for (const m of query.matchAll(YEAR_RE)) {
    const y = Number(m[1]);
    if (years.has(y)) continue;
    years.add(y);
    // "June 2023" already captured; a lone year applies to months without a year, else stands alone.
    const open = out.filter((s) => s.month !== undefined && s.year === undefined);
    if (open.length) for (const s of open) s.year = y;
    else out.push({ year: y });
  }
  return out.filter((s) => s.month === undefined || (s.month >= 0 && s.month < 12));
}

/** Grace after a window: people talk about last week's events. */
const GRACE_MS = 14 * 86_400_000;

/** True when `time` (epoch ms) falls in the scope or up to two weeks after it. */
export function inScope(time: number, s: TimeScope): boolean {
  for (const t of [time, time - GRACE_MS]) {
    const d = new Date(t);
    if (s.year !== undefined && d.getUTCFullYear() !== s.year) continue;
    if (s.month !== undefined && d.getUTCMonth() !== s.month) continue;
    return true;
  }
  return false;
}

/** The month / year words of a query (so the ranker can drop them from the lexical terms). */
export function scopeWords(query: string): string {
  const words: string[] = [];
  for (const m of query.matchAll(MONTH_RE)) if (m[1][0] === m[1][0].toUpperCase()) words.push(m[0]);
  for (const m of query.matchAll(YEAR_RE)) words.push(m[1]);
  return words.join(' ');
}
