/// <reference lib="webworker" />
import { forceLayout, type LayoutEdge, type LayoutNode, type Positions } from './graph-layout';

// Runs the 160 force iterations off the main thread so the page stays responsive, and reports how
// far it is (a 2,000-node layout takes seconds on a slow machine).
self.onmessage = (e: MessageEvent<{ id: number; nodes: LayoutNode[]; edges: LayoutEdge[]; iterations?: number; known?: Positions }>) => {
  const { id, nodes, edges, iterations, known } = e.data;
  const post = (m: unknown) => (self as unknown as Worker).postMessage(m);
  const positions = forceLayout(nodes, edges, iterations ?? 160, (done) => post({ id, progress: done }), known);
  post({ id, positions });
};
