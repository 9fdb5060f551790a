import { closeSync, openSync } from 'node:fs';
import { extname, join } from 'node:path';

/**
 * Reserves a name in `dir` that no file has yet: `name.png`, else `name (2).png`, `name (3).png` …
 * The reservation is an empty file created with O_EXCL, so two saves of the same name (parallel
 * tool calls) never pick the same path; the caller replaces it atomically with the content.
 */
export function reserveUniquePath(dir: string, fileName: string): string {
  const ext = extname(fileName);
  const stem = fileName.slice(0, fileName.length - ext.length);
  for (let n = 1; ; n++) {
    const file = join(dir, n === 1 ? fileName : `${stem} (${n})${ext}`);
    try {
      closeSync(openSync(file, 'wx', 0o600));
      return file;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || n >= 10_000) throw e;
    }
  }
}
