import { forceLayout, type LayoutEdge, type LayoutNode, type Positions } from './graph-layout';

let worker: Worker | undefined;
let nextId = 1;
const pending = new Map<number, { resolve: (p: Positions) => void; onProgress?: (done: number) => void }>();

/**
 * Force layout in a Web Worker (falls back to a deferred main-thread run). `onProgress` gets the
 * share done (0…1) as the worker goes; `known` keeps those nodes where they are (forceLayout).
 */
export function layoutInWorker(nodes: LayoutNode[], edges: LayoutEdge[], iterations = 160, onProgress?: (done: number) => void, known?: Positions): Promise<Positions> {
  try {
    if (!worker) {
      worker = new Worker(new URL('./graph-worker.ts', import.meta.url), { type: 'module' });
      worker.onmessage = (e: MessageEvent<{ id: number; positions?: Positions; progress?: number }>) => {
        const p = pending.get(e.data.id);
        if (!p) return;
        if (e.data.positions) {
          pending.delete(e.data.id);
          p.resolve(e.data.positions);
        } else if (e.data.progress !== undefined) p.onProgress?.(e.data.progress);
      };
    }
    const id = nextId++;
    return new Promise((resolve) => {
      pending.set(id, { resolve, onProgress });
      worker!.postMessage({ id, nodes, edges, iterations, known });
    });
  } catch {
    return new Promise((resolve) => setTimeout(() => resolve(forceLayout(nodes, edges, iterations, onProgress, known)), 0));
  }
}
