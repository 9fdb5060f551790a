import { useCallback, useEffect, useRef, useState } from 'react';
import { createSequencer } from './sequencer';

export interface RequestState<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
  reload: () => void;
  setData: (fn: (d: T | undefined) => T | undefined) => void;
}

/** Loads `fn()` when `deps` change; stale answers are discarded (request sequence numbers). */
export function useRequest<T>(fn: () => Promise<T>, deps: unknown[]): RequestState<T> {
  const seq = useRef(createSequencer());
  const [data, setDataState] = useState<T | undefined>(undefined);
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
        setDataState(d);
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
  const setData = useCallback((f: (d: T | undefined) => T | undefined) => setDataState((d) => f(d)), []);
  return { data, error, loading, reload, setData };
}
