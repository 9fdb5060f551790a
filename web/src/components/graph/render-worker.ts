/// <reference lib="webworker" />
/**
 * Renders the whole graph off the main thread (W-3): the page sends the scene once per data change
 * and then asks for bitmaps of screen rectangles; each answer is an ImageBitmap, already rasterized,
 * that the page copies in a fraction of a millisecond. Protocol in render-client.ts.
 */
import { drawBase, type Scene } from './scene';
import type { RenderReply, RenderRequest } from './render-client';

let scene: (Scene & { id: number }) | undefined;
let canvas: OffscreenCanvas | undefined;

self.onmessage = (e: MessageEvent<RenderRequest>) => {
  const m = e.data;
  if (m.type === 'scene') {
    scene = { id: m.sceneId, nodes: m.nodes, edges: m.edges, byId: new Map(m.nodes.map((n) => [n.id, n])) };
    return;
  }
  const reply = (r: RenderReply, transfer: Transferable[] = []) => (self as unknown as Worker).postMessage(r, transfer);
  if (!scene || scene.id !== m.sceneId) {
    reply({ type: 'skipped', seq: m.seq });
    return;
  }
  try {
    const t0 = performance.now();
    const { rect, view: v } = m.frame;
    const w = Math.max(1, Math.round(rect.w * m.dpr));
    const h = Math.max(1, Math.round(rect.h * m.dpr));
    if (!canvas || canvas.width !== w || canvas.height !== h) canvas = new OffscreenCanvas(w, h);
    const ctx = canvas.getContext('2d')!;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, w, h);
    ctx.setTransform(m.dpr * v.k, 0, 0, m.dpr * v.k, m.dpr * (v.tx - rect.x), m.dpr * (v.ty - rect.y));
    drawBase(ctx, scene, v.k, m.visible, m.colors, m.maxLabels);
    const bitmap = canvas.transferToImageBitmap();
    reply({ type: 'bitmap', seq: m.seq, sceneId: m.sceneId, frame: m.frame, bitmap, ms: performance.now() - t0 }, [bitmap]);
  } catch (err) {
    reply({ type: 'failed', seq: m.seq, error: String(err) });
  }
};
