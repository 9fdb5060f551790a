import { useCallback, useEffect, useRef, useState } from 'react';
import { createSequencer } from './sequencer';

export interface RequestState<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
  reload: () => void;
  /** A local change (optimistic, or the answer of a write): answers to requests sent before it are dropped. */
  setData: (fn: (d: T | undefined) => T | undefined) => void;
}

/**
 * Loads `fn()` when `deps` change; stale answers are discarded (request sequence numbers), and so
 * are answers to requests sent before a local change ({@link RequestState.setData}). While
 * it reloads the old data stays; an answer equal to it (same JSON) keeps the old object, so a
 * refetch that found nothing new re-renders nothing (the graph is not laid out again).
 */
export function useRequest<T>(fn: () => Promise<T>, deps: unknown[]): RequestState<T> {
  const seq = useRef(createSequencer());
  const [data, setDataState] = useState<T | undefined>(undefined);
  const json = useRef<string | undefined>(undefined);
  const [error, setError] = useState<Error | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const fnRef = useRef(fn);
  fnRef.current = fn;
  const reload = useCallback(() => {
    const ticket = seq.current.next();
    setLoading(true);
    fnRef.current().then(
      (d) => {
        if (!seq.current.isLatest(ticket)) return;
        let text: string | undefined;
        try {
          text = JSON.stringify(d);
        } catch {
          // not JSON (cyclic): always a new value
        }
        if (text === undefined || text !== json.current) {
          json.current = text;
          setDataState(d);
        }
        setError(undefined);
        setLoading(false);
      },
      (e: unknown) => {
        if (!seq.current.isLatest(ticket)) return;
        setError(e instanceof Error ? e : new Error(String(e)));
        setLoading(false);
      },
    );
  }, []);
  useEffect(reload, deps);
  const setData = useCallback((f: (d: T | undefined) => T | undefined) => {
    // A local change (a switch moved before its save is through): an answer to a request sent
    // before it was read before it, and would move the switch back — or make the next click send
    // the wrong value. Such answers are dropped; the caller reads again once its change is saved.
    seq.current.next();
    setLoading(false);
    // The next answer is compared with nothing (it may undo the change).
    json.current = undefined;
    setDataState((d) => f(d));
  }, []);
  return { data, error, loading, reload, setData };
}
