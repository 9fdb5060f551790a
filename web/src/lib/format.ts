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
