import { forceLayout, type LayoutEdge, type LayoutNode, type Positions } from './graph-layout';

let worker: Worker | undefined;
let nextId = 1;
const pending = new Map<number, (p: Positions) => void>();

/** Force layout in a Web Worker (falls back to a deferred main-thread run). */
export function layoutInWorker(nodes: LayoutNode[], edges: LayoutEdge[], iterations = 160): Promise<Positions> {
  try {
    if (!worker) {
      worker = new Worker(new URL('./graph-worker.ts', import.meta.url), { type: 'module' });
      worker.onmessage = (e: MessageEvent<{ id: number; positions: Positions }>) => {
        pending.get(e.data.id)?.(e.data.positions);
        pending.delete(e.data.id);
      };
    }
    const id = nextId++;
    return new Promise((resolve) => {
      pending.set(id, resolve);
      worker!.postMessage({ id, nodes, edges, iterations });
    });
  } catch {
    return new Promise((resolve) => setTimeout(() => resolve(forceLayout(nodes, edges, iterations)), 0));
  }
}
