import { useEffect, useState } from 'react';
import { bus } from '../api/event-stream';

/**
 * A counter that goes up when the daemon says a setting under one of `prefixes` changed
 * (`config_changed`: the WebUI itself, `waiter config set`, another tab) — a burst is one bump.
 * Put it in the deps of the request that reads those settings, so the view shows them live.
 */
export function useConfigEpoch(...prefixes: string[]): number {
  const [n, setN] = useState(0);
  const key = prefixes.join('\n');
  useEffect(() => {
    const list = key.split('\n');
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = bus.subscribe((event, payload) => {
      if (event !== 'config_changed') return;
      const k = String((payload as { key?: unknown } | undefined)?.key ?? '');
      if (!list.some((p) => k.startsWith(p))) return;
      clearTimeout(timer);
      timer = setTimeout(() => setN((x) => x + 1), 150);
    });
    return () => {
      clearTimeout(timer);
      off();
    };
  }, [key]);
  return n;
}
