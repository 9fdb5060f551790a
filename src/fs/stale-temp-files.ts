import { readdirSync, rmSync, type Dirent } from 'node:fs';
import { join } from 'node:path';

/** The name {@link writeFileAtomic} gives its temp file: `.<target>.<pid>.<12 hex>.tmp`. */
const TEMP_NAME = /^\..+\.(\d+)\.[0-9a-f]{12}\.tmp$/;

/** Folders never walked: installed code and the like (large, and not written by the atomic writer). */
const SKIP = new Set(['node_modules', '.git']);

/** True while a process with this pid exists (EPERM: it exists but is not ours). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the temp files that interrupted atomic writes left behind (a kill between the temp
 * write and the rename) under `root`, down to `maxDepth` folders. A temp file of a process that
 * is still running (another writer than this one) is left alone. Returns the removed paths.
 * Unreadable folders are skipped; nothing here throws.
 */
export function removeStaleTempFiles(root: string, opts: { maxDepth?: number } = {}): string[] {
  const removed: string[] = [];
  const walk = (dir: string, depth: number) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (depth < (opts.maxDepth ?? 4) && !SKIP.has(e.name)) walk(p, depth + 1);
        continue;
      }
      const m = e.isFile() ? TEMP_NAME.exec(e.name) : null;
      if (!m) continue;
      const pid = Number(m[1]);
      if (pid !== process.pid && alive(pid)) continue;
      try {
        rmSync(p, { force: true });
        removed.push(p);
      } catch {
        // left for the next start
      }
    }
  };
  walk(root, 0);
  return removed;
}
