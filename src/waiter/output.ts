/** Human-readable rendering of command results (waiter's default output). */
export function renderHuman(value: unknown, indent = ''): string {
  if (value === null || value === undefined) return `${indent}(none)`;
  if (typeof value !== 'object') return `${indent}${String(value)}`;
  if (Array.isArray(value)) {
    if (value.length === 0) return `${indent}(empty)`;
    if (value.every((v) => v && typeof v === 'object' && !Array.isArray(v))) return table(value as Record<string, unknown>[], indent);
    return value.map((v) => renderHuman(v, indent + '- ')).join('\n');
  }
  return Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => (v && typeof v === 'object' ? `${indent}${k}:\n${renderHuman(v, indent + '  ')}` : `${indent}${k}: ${v === undefined ? '' : String(v)}`))
    .join('\n');
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v).slice(0, 60);
  return String(v).replace(/\s+/g, ' ').slice(0, 80);
}

function table(rows: Record<string, unknown>[], indent: string): string {
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))].slice(0, 8);
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (vals: string[]) => indent + vals.map((v, i) => v.padEnd(widths[i])).join('  ').trimEnd();
  return [line(cols), line(widths.map((w) => '-'.repeat(w))), ...rows.map((r) => line(cols.map((c) => cell(r[c]))))].join('\n');
}
