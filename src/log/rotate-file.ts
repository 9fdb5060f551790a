import { existsSync, renameSync, statSync, unlinkSync } from 'node:fs';

/** Default size at which a log file without a setting of its own is rotated. */
export const LOG_ROTATE_BYTES = 5 * 1024 * 1024;

/**
 * Moves `file` to `file.1` (and `.1` to `.2` …, the oldest past `keep` deleted). Never throws: a
 * log that cannot rotate keeps growing rather than stopping the writer.
 */
export function rotateFile(file: string, keep: number): void {
  try {
    // The oldest goes first: deleted after the shift, it would be the file just moved there.
    if (existsSync(`${file}.${keep}`)) unlinkSync(`${file}.${keep}`);
    for (let i = keep - 1; i >= 1; i--) {
      const from = `${file}.${i}`;
      if (existsSync(from)) renameSync(from, `${file}.${i + 1}`);
    }
    renameSync(file, `${file}.1`);
  } catch {}
}

/** Rotates `file` when it has reached `maxBytes` (a log some process appends to through its own handle). */
export function rotateIfLarge(file: string, maxBytes = LOG_ROTATE_BYTES, keep = 1): boolean {
  try {
    if (statSync(file).size < maxBytes) return false;
  } catch {
    return false;
  }
  rotateFile(file, keep);
  return true;
}
