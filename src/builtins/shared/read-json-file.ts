import { promises as fsp } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/** Writes `data` atomically: temp file in the same folder, fsync, rename, fsync of the folder. */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const dir = dirname(path);
  await fsp.mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fh = await fsp.open(tmp, 'w');
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await fsp.rename(tmp, path);
  } catch (e) {
    await fsp.rm(tmp, { force: true });
    throw e;
  }
  try {
    const dh = await fsp.open(dir, 'r');
    try {
      await dh.sync();
    } finally {
      await dh.close();
    }
  } catch {
    // fsync of a directory is not supported everywhere; the rename is still atomic.
  }
}

/**
 * Reads a JSON file. Missing → `fallback`. Unparseable → the file is kept aside as
 * `<name>.corrupt-<time>` and `fallback` is returned (the caller logs it through `onCorrupt`).
 */
export async function readJsonFile<T>(path: string, fallback: T, onCorrupt?: (movedTo: string, err: unknown) => void): Promise<T> {
  let text: string;
  try {
    text = await fsp.readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return fallback;
    throw e;
  }
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    const movedTo = `${path}.corrupt-${Date.now()}`;
    await fsp.rename(path, movedTo).catch(() => {});
    onCorrupt?.(movedTo, err);
    return fallback;
  }
}
