import { basename } from 'node:path';
import { watch } from 'chokidar';

/**
 * Watches one file in a folder (editors often replace files by rename, so the folder is watched)
 * and calls `onChange` debounced. Returns an idempotent async closer.
 */
export function watchFile(dir: string, file: string, onChange: () => void, debounceMs = 300, onError: (e: unknown) => void = () => {}): () => Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const watcher = watch(dir, { ignoreInitial: true, depth: 0 });
  watcher.on('all', (_event, path) => {
    if (basename(path) !== file) return;
    clearTimeout(timer);
    timer = setTimeout(onChange, debounceMs);
  });
  watcher.on('error', onError);
  let closed: Promise<void> | undefined;
  return () => {
    clearTimeout(timer);
    closed ??= watcher.close();
    return closed;
  };
}
