/** "3 min ago" / "3 分钟前" for a time in ms. */
export function relTime(at: number | string | undefined, lang: 'zh' | 'en', now = Date.now()): string {
  if (at === undefined) return '';
  const ms = typeof at === 'string' ? Date.parse(at) : at;
  if (!Number.isFinite(ms)) return '';
  const s = Math.max(0, Math.round((now - ms) / 1000));
  const zh = lang === 'zh';
  if (s < 45) return zh ? '刚刚' : 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return zh ? `${m} 分钟前` : `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 24) return zh ? `${h} 小时前` : `${h} h ago`;
  const d = Math.round(h / 24);
  if (d < 30) return zh ? `${d} 天前` : `${d} d ago`;
  return new Date(ms).toLocaleDateString(zh ? 'zh-CN' : 'en');
}

/** Pretty-prints JSON text when it parses, else returns it as is. */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** Bytes as "1.2 MB". */
export function bytes(n: number | undefined): string {
  if (n === undefined || !Number.isFinite(n)) return '';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** `YYYY-MM-DD` formatters by zone (`''`: this device's zone). */
const dayFormats = new Map<string, Intl.DateTimeFormat>();

function dayFormat(zone: string): Intl.DateTimeFormat {
  let f = dayFormats.get(zone);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-CA', { timeZone: zone || undefined, year: 'numeric', month: '2-digit', day: '2-digit' });
    } catch {
      // Not a zone this browser knows: this device's zone, as for "".
      f = zone ? dayFormat('') : new Intl.DateTimeFormat('en-CA', { year: 'numeric', month: '2-digit', day: '2-digit' });
    }
    if (dayFormats.size > 100) dayFormats.clear();
    dayFormats.set(zone, f);
  }
  return f;
}

/**
 * The calendar day (`2026-05-01`) of a time in ms on the person's calendar (decision 0270): in
 * `zone`, the agent's `core.agent.timezone` (an IANA name); this device's zone when it is empty
 * or a name the browser does not know. Not the UTC day: 23:30 on 1 May in Shanghai is 1 May.
 */
export function localDay(ms: number, zone = ''): string {
  if (!Number.isFinite(ms)) return '';
  const parts = dayFormat(zone).formatToParts(ms);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/** A Markdown snippet as a one-line preview: no heading marks, emphasis or code ticks. */
export function plainPreview(md: string): string {
  return md.replace(/\*\*|__|`|^#+\s*/gm, '');
}

const UNIT_WORDS: Record<string, { zh: string; en: [string, string] }> = {
  ms: { zh: '毫秒', en: ['millisecond', 'milliseconds'] },
  s: { zh: '秒', en: ['second', 'seconds'] },
  m: { zh: '分钟', en: ['minute', 'minutes'] },
  h: { zh: '小时', en: ['hour', 'hours'] },
  d: { zh: '天', en: ['day', 'days'] },
};

/** A setting's duration ("10m", "1h30m") in words of the page's language; anything else as written. */
export function durationWords(d: string, lang: 'zh' | 'en'): string {
  const parts = [...d.trim().matchAll(/(\d+)(ms|s|m|h|d)/g)];
  if (!parts.length || parts.map((p) => p[0]).join('') !== d.trim()) return d;
  return parts
    .map(([, n, u]) => (lang === 'zh' ? `${n} ${UNIT_WORDS[u].zh}` : `${n} ${UNIT_WORDS[u].en[n === '1' ? 0 : 1]}`))
    .join(lang === 'zh' ? ' ' : ' ');
}
