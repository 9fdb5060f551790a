import type { ConfigKeyInfo } from '../../../../src/spec/index.js';

/** JSON with object keys sorted: two values the same setting would store alike compare equal. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'undefined';
}

/**
 * Whether a setting shows the "custom" badge: the person stored a value, and it is not the default
 * (decision 0690). A list cleared back to empty is stored as `[]`, its default: it is not custom, now
 * or after a reload. (A secret is compared masked, as the page gets it: two masks alike are the same.)
 */
export function isCustomSetting(info: Pick<ConfigKeyInfo, 'origin' | 'value' | 'default'>): boolean {
  return info.origin === 'stored' && canonical(info.value) !== canonical(info.default);
}
