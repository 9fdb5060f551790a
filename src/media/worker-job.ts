/**
 * The worker side of a {@link WorkerPool} (worker-pool.ts): a reader's worker module calls
 * {@link serveJobs} once its libraries are loaded; the pool then hands it one job at a time. A job
 * that stalls the worker is the main thread's to end (it terminates this thread).
 */
import { parentPort } from 'node:worker_threads';

/** A job as the pool posts it (its bytes transferred, not copied). */
export interface WorkerJobRequest<Req> {
  id: number;
  request: Req;
}

/** What a worker posts: once `ready`, then one answer per job; a failure carries the error's name (`PasswordException` …) and message. */
export type WorkerJobReply<Res> = { ready: true } | { id: number; ok: true; result: Res } | { id: number; ok: false; name?: string; message: string };

/** Answers the pool's jobs with `handle`, after saying this worker is ready. */
export function serveJobs<Req, Res>(handle: (request: Req) => Promise<Res>): void {
  const port = parentPort;
  if (!port) throw new Error('a reader\'s worker module runs only as a worker thread of its pool');
  port.on('message', (m: WorkerJobRequest<Req>) => {
    handle(m.request).then(
      (result) => port.postMessage({ id: m.id, ok: true, result } satisfies WorkerJobReply<Res>),
      (e: unknown) => port.postMessage({ id: m.id, ok: false, name: (e as Error)?.name, message: e instanceof Error ? e.message : String(e) } satisfies WorkerJobReply<Res>),
    );
  });
  port.postMessage({ ready: true } satisfies WorkerJobReply<Res>);
}
