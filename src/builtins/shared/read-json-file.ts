import { promises as fsp } from 'node:fs';

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
