import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { TransferPart } from '../spec/index.js';
import type { MergeContext } from './merge-context.js';

/**
 * One file of the archive against ours at `liveFile` (a library memory or plan file, a knowledge
 * entry, the persona, a media file): new here, the same, or a conflict — `overwrite` takes theirs,
 * `keep-both` puts theirs beside ours where `canKeepBoth` names a place (it returns the live path),
 * else ours stays. What comes in is copied to `mergedFile` and swapped in.
 */
export function mergeFileItem(c: MergeContext, part: TransferPart, source: string, liveFile: string, mergedFile: string, canKeepBoth: (() => string) | undefined): void {
  const { mergedHome: M, mode, files, plan } = c;
  const p = plan(part);
  const exists = existsSync(liveFile);
  // Sizes first: media files can be large, and most that differ differ in size.
  const same = exists && statSync(liveFile).size === statSync(source).size && readFileSync(liveFile).equals(readFileSync(source));
  let target = liveFile;
  let merged = mergedFile;
  if (!exists) p.added++;
  else if (same) {
    p.same++;
    return;
  } else {
    p.conflicts++;
    if (mode === 'overwrite') p.overwritten++;
    else if (mode === 'keep-both' && canKeepBoth) {
      p.keptBoth++;
      target = canKeepBoth();
      merged = join(M, 'kept-both', String(files.length));
    } else {
      p.skipped++;
      return;
    }
  }
  mkdirSync(dirname(merged), { recursive: true, mode: 0o700 });
  copyFileSync(source, merged);
  files.push({ live: target, merged });
}
