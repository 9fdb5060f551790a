import type { ConfigValue } from '../spec/index.js';

/**
 * Masks a secret for display: long strings keep their last 4 characters (`••••abcd`), short or
 * non-string values become `(set)`, unset values (empty string, null) stay as they are so a form
 * can show "not set".
 */
export function maskSecret(value: ConfigValue): ConfigValue {
  if (value === null || value === '') return value;
  if (typeof value === 'string' && value.length >= 12) return `••••${value.slice(-4)}`;
  return '(set)';
}
