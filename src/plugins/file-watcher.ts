import { basename } from 'node:path';
import { watch } from 'chokidar';

/**
 * Watches one file in a folder (editors often replace files by rename, so the folder is watched)
 * and calls `onChange` debounced. Returns an idempotent async closer and a promise that resolves
 * once the watcher sees changes (chokidar's `ready`).
 */
export function watchFile(dir: string, file: string, onChange: () => void, debounceMs = 300, onError: (e: unknown) => void = () => {}): { close: () => Promise<void>; ready: Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  const watcher = watch(dir, { ignoreInitial: true, depth: 0 });
  watcher.on('all', (_event, path) => {
    if (basename(path) !== file) return;
    clearTimeout(timer);
    timer = setTimeout(onChange, debounceMs);
  });
  watcher.on('error', onError);
  const ready = new Promise<void>((resolve) => {
    watcher.once('ready', () => resolve());
    setTimeout(resolve, 5000).unref();
  });
  let closed: Promise<void> | undefined;
  return {
    ready,
    close: () => {
      clearTimeout(timer);
      closed ??= watcher.close();
      return closed;
    },
  };
}
