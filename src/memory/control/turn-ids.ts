import { ValidationError } from '../../spec/index.js';
import { TURN_ID } from './tombstone-match.js';

/** Turn ids as a caller gave them: 1–1000 kernel turn ids (`<session>#<n>`), deduplicated; else a `ValidationError`. */
export function checkTurnIds(ids: unknown): string[] {
  if (!Array.isArray(ids) || ids.length === 0 || ids.length > 1000) throw new ValidationError('turnIds must be a list of 1–1000 turn ids', { key: 'turnIds' });
  for (const id of ids) if (typeof id !== 'string' || !TURN_ID.test(id) || id.length > 400) throw new ValidationError(`invalid turn id ${JSON.stringify(String(id).slice(0, 80))}`, { key: 'turnIds' });
  return [...new Set(ids as string[])];
}
