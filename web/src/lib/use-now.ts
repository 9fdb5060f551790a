import { useEffect, useState } from 'react';

/**
 * The time now, read again every `everyMs` while `active` (a countdown on the page); when not
 * active it does not tick, and nothing re-renders.
 */
export function useNow(active: boolean, everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [active, everyMs]);
  return now;
}
