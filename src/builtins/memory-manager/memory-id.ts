import { randomBytes } from 'node:crypto';
import { ValidationError } from '../../sdk/index.js';

/** A memory id: `^[A-Za-z0-9_-]{3,64}$` (M-1); it is the file name, so nothing else passes. */
export const MEMORY_ID_RE = /^[A-Za-z0-9_-]{3,64}$/;

/** Throws a ValidationError unless `id` is a valid memory id (guards against path traversal). */
export function assertMemoryId(id: unknown, field = 'id'): string {
  if (typeof id !== 'string' || !MEMORY_ID_RE.test(id)) {
    throw new ValidationError(`invalid memory id ${JSON.stringify(typeof id === 'string' ? id.slice(0, 80) : id)}: must match ${MEMORY_ID_RE}`, { key: field });
  }
  return id;
}

/** The shape of an id {@link newMemoryId} made (a file named by hand has any other). */
export const GENERATED_MEMORY_ID = /^m-[0-9a-z]{1,12}-[0-9a-f]{8}$/;

/** A fresh id: `m-<time base36>-<random hex>`. */
export function newMemoryId(): string {
  return `m-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}
