/// <reference lib="webworker" />
import { forceLayout, type LayoutEdge, type LayoutNode } from './graph-layout';

// Runs the 160 force iterations off the main thread so the page stays responsive.
self.onmessage = (e: MessageEvent<{ id: number; nodes: LayoutNode[]; edges: LayoutEdge[]; iterations?: number }>) => {
  const { id, nodes, edges, iterations } = e.data;
  const positions = forceLayout(nodes, edges, iterations ?? 160);
  (self as unknown as Worker).postMessage({ id, positions });
};
