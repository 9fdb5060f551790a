import { realpathSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';

/** A path with its symlinks resolved as far as it exists (the rest appended): where it really is. */
export function realPath(p: string): string {
  const abs = resolve(p);
  try {
    return realpathSync(abs);
  } catch {
    const up = dirname(abs);
    return up === abs ? abs : join(realPath(up), abs.slice(up.length));
  }
}

/** True when `p` is `dir` or inside it (compare real paths: see {@link realPath}). */
export function within(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}
