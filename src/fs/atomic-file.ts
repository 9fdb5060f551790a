import { promises as fsp, closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeSync, fchmodSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

/** Options of {@link writeFileAtomic}. */
export interface AtomicWriteOptions {
  /**
   * Permission bits of the written file, applied exactly (not masked by the umask). Default: the
   * mode of the file being replaced, or `0o600` for a new file (user data is private by default).
   * `'umask'`: the mode of the file being replaced, or for a new file what any program would get
   * (`0o666` less the umask) — for files written on the user's behalf into their own folders.
   */
  mode?: number | 'umask';
}

/** Options of {@link writeJsonAtomic}. */
export interface AtomicJsonOptions extends AtomicWriteOptions {
  /** `JSON.stringify` indentation; default none. */
  indent?: number;
}

/** What {@link writeFileAtomic} accepts: text (UTF-8), bytes, or a (async) stream of chunks. */
export type AtomicData = string | Uint8Array | AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>;

const DEFAULT_MODE = 0o600;

/** The temp file sits in the target's folder so that the rename never crosses a file system. */
function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
}

/** The mode to open with and whether to chmod to it exactly (`'umask'` on a new file: let the umask apply). */
async function modeFor(path: string, mode: AtomicWriteOptions['mode']): Promise<{ mode: number; exact: boolean }> {
  if (typeof mode === 'number') return { mode, exact: true };
  try {
    return { mode: (await fsp.stat(path)).mode & 0o7777, exact: true };
  } catch {
    return mode === 'umask' ? { mode: 0o666, exact: false } : { mode: DEFAULT_MODE, exact: true };
  }
}

function modeForSync(path: string, mode: AtomicWriteOptions['mode']): { mode: number; exact: boolean } {
  if (typeof mode === 'number') return { mode, exact: true };
  try {
    return { mode: statSync(path).mode & 0o7777, exact: true };
  } catch {
    return mode === 'umask' ? { mode: 0o666, exact: false } : { mode: DEFAULT_MODE, exact: true };
  }
}

/** Flushes a folder (the names in it) to disk; a file system that refuses fsync on a folder is skipped. */
export async function syncDir(dir: string): Promise<void> {
  try {
    const dh = await fsp.open(dir, 'r');
    try {
      await dh.sync();
    } finally {
      await dh.close();
    }
  } catch {
    // Some file systems refuse fsync on a folder; the rename itself is still atomic.
  }
}

/**
 * Replaces `path` atomically with `data`: a temp file in the same folder is written, fsynced and
 * renamed over the target, then the folder is fsynced so the rename survives a power cut. Readers
 * see either the old content or the complete new one, never a torn file. On any failure the temp
 * file is removed and the old file (if any) is left untouched. Missing parent folders are created.
 *
 * @example
 * ```ts
 * await writeFileAtomic(join(home, 'notes.md'), text);
 * await writeFileAtomic(join(home, 'secret.json'), json, { mode: 0o600 });
 * ```
 */
export async function writeFileAtomic(path: string, data: AtomicData, opts: AtomicWriteOptions = {}): Promise<void> {
  const dir = dirname(path);
  await fsp.mkdir(dir, { recursive: true });
  const { mode, exact } = await modeFor(path, opts.mode);
  const tmp = tempPathFor(path);
  try {
    const fh = await fsp.open(tmp, 'wx', mode);
    try {
      // open() applies the umask; chmod makes the requested mode exact.
      if (exact) await fh.chmod(mode);
      await fsp.writeFile(fh, data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fsp.rename(tmp, path);
  } catch (e) {
    await fsp.rm(tmp, { force: true }).catch(() => undefined);
    throw e;
  }
  await syncDir(dir);
}

/** {@link writeFileAtomic} of `JSON.stringify(value)`. */
export function writeJsonAtomic(path: string, value: unknown, opts: AtomicJsonOptions = {}): Promise<void> {
  const { indent, ...rest } = opts;
  return writeFileAtomic(path, JSON.stringify(value, null, indent), rest);
}

/**
 * Synchronous {@link writeFileAtomic}, for the few places that must not yield (pid file at start,
 * registry state written inside a synchronous install step). Same guarantees.
 */
export function writeFileAtomicSync(path: string, data: string | Uint8Array, opts: AtomicWriteOptions = {}): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  const { mode, exact } = modeForSync(path, opts.mode);
  const tmp = tempPathFor(path);
  try {
    const fd = openSync(tmp, 'wx', mode);
    try {
      if (exact) fchmodSync(fd, mode);
      const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      let off = 0;
      while (off < buf.byteLength) off += writeSync(fd, buf, off, buf.byteLength - off);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
  fsyncPathsSync([], [dir]);
}

/**
 * Flushes files (their data) and then their folders (the names in them) to disk, synchronously:
 * for files written without {@link writeFileAtomic} (SQLite copies, merged imports) before they are
 * renamed over live data, and for folders after such renames. A folder that refuses fsync is skipped.
 */
export function fsyncPathsSync(files: readonly string[], dirs: readonly string[] = []): void {
  for (const f of files) {
    const fd = openSync(f, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
  for (const d of new Set(dirs)) {
    try {
      const fd = openSync(d, 'r');
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    } catch {
      // Some file systems refuse fsync on a folder (see syncDir); a folder gone is nothing to flush.
    }
  }
}

/** {@link fsyncPathsSync} without blocking the event loop (an import flushing many files). */
export async function fsyncPaths(files: readonly string[], dirs: readonly string[] = []): Promise<void> {
  for (const f of files) {
    const fh = await fsp.open(f, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  }
  for (const d of new Set(dirs)) await syncDir(d);
}
