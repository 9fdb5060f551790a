import fs from 'node:fs';
import path from 'node:path';
import { syncDir } from '../fs/index.js';
import type { JsonlLogger, JsonlScan } from './jsonl-file.js';

/**
 * A log without one readable line. Empty (0 bytes), or only a torn header (a kill while the
 * session was created — nothing was ever acknowledged): removed. Anything else (a file saved in
 * another encoding, edited by hand, damaged) is the person's data: it is renamed aside to
 * `<name>.corrupt-<ms>` exactly as it was (a torn tail cut off by the scan is put back), so it is
 * not loaded as a session — whose next create would start an empty log under its name — and
 * an error names it. Returns where it was moved (undefined when it was removed).
 */
export async function setAsideUnreadableLog(file: string, size: number, torn: JsonlScan['torn'], now: number, logger: JsonlLogger): Promise<{ file: string; at: number } | undefined> {
  // What the store writes first when it creates a session; a torn header is a prefix of a header line (or that start cut short).
  const HEAD = '{"type":"session"';
  const tornText = torn?.bytes.toString('utf8') ?? '';
  const onlyTornHeader = tornText.trim() === '' || tornText.startsWith(HEAD) || HEAD.startsWith(tornText);
  if (size === 0 && onlyTornHeader) {
    await fs.promises.rm(file, { force: true });
    logger.warn('removed an empty session log', { file: path.basename(file) });
    return undefined;
  }
  // Not cut by the scan (nothing was readable): the file moved aside is what was on disk.
  let aside = `${file}.corrupt-${now}`;
  for (let n = 2; fs.existsSync(aside); n++) aside = `${file}.corrupt-${now}-${n}`;
  await fs.promises.rename(file, aside);
  await syncDir(path.dirname(file));
  (logger.error ?? logger.warn).call(logger, 'a session log holds no readable line: moved aside, not loaded', { file: path.basename(file), movedTo: path.basename(aside) });
  return { file: aside, at: now };
}
