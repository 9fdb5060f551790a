import { ValidationError } from '../spec/index.js';

/** Session ids: channel + thread such as `webui:3f2a`, `cli:default`. */
export const SESSION_ID_RE = /^[A-Za-z0-9_.:-]{1,128}$/;

/** Channel names (the part before the first `:` of a session id). */
export const CHANNEL_RE = /^[A-Za-z0-9_-]{1,64}$/;

/** Throws ValidationError unless `id` is a valid session id (no slashes, no `..`). */
export function assertSessionId(id: unknown): asserts id is string {
  if (typeof id !== 'string' || !SESSION_ID_RE.test(id) || id.includes('..')) {
    throw new ValidationError(`invalid session id ${JSON.stringify(id)}: expected 1-128 of A-Z a-z 0-9 _ . : - and no ".."`, {
      key: 'sessionId',
      id: typeof id === 'string' ? id.slice(0, 200) : String(id),
    });
  }
}

/** Throws ValidationError unless `channel` is a valid channel name. */
export function assertChannel(channel: unknown): asserts channel is string {
  if (typeof channel !== 'string' || !CHANNEL_RE.test(channel)) {
    throw new ValidationError(`invalid channel ${JSON.stringify(channel)}: expected 1-64 of A-Z a-z 0-9 _ -`, { key: 'channel' });
  }
}

/**
 * The file name stem of a session: every character outside `[A-Za-z0-9_-]` as `%XX`
 * (`webui:3f2a` → `webui%3A3f2a`), so it never starts with a dot, never holds a separator and
 * is valid on Windows too. Reversible with {@link sessionIdFromFileStem}.
 */
export function sessionFileStem(id: string): string {
  assertSessionId(id);
  return id.replace(/[^A-Za-z0-9_-]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/** Inverse of {@link sessionFileStem}; undefined when the stem is not one of ours. */
export function sessionIdFromFileStem(stem: string): string | undefined {
  try {
    const id = decodeURIComponent(stem);
    return SESSION_ID_RE.test(id) && !id.includes('..') && sessionFileStem(id) === stem ? id : undefined;
  } catch {
    return undefined;
  }
}
