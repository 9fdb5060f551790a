/**
 * The page side of the render worker (render-worker.ts). One request at a time: the canvas asks
 * again, for the then-current view, once an answer is in. Created only where the browser has
 * OffscreenCanvas and module workers; without them (or after a worker failure) the canvas renders
 * on the main thread.
 */
import type { CacheFrame } from '../../lib/view-cache';
import type { CanvasEdge, CanvasNode, SceneColors, WorldBox } from './scene';

export type RenderRequest =
  | { type: 'scene'; sceneId: number; nodes: CanvasNode[]; edges: CanvasEdge[] }
  | { type: 'render'; seq: number; sceneId: number; frame: CacheFrame; dpr: number; visible: WorldBox; colors: SceneColors; maxLabels: number };

export type RenderReply =
  | { type: 'bitmap'; seq: number; sceneId: number; frame: CacheFrame; bitmap: ImageBitmap; ms: number }
  | { type: 'skipped'; seq: number }
  | { type: 'failed'; seq: number; error: string };

export class GraphRenderer {
  private worker: Worker;
  private postedScene = -1;
  private seq = 0;
  /** The request awaiting its answer, with what the answer will be valid for. */
  inFlight: { seq: number; sceneId: number; colors: SceneColors; dpr: number; generation: number } | undefined;

  private constructor(onReply: (r: RenderReply, req: NonNullable<GraphRenderer['inFlight']>) => void, onError: (e: unknown) => void) {
    this.worker = new Worker(new URL('./render-worker.ts', import.meta.url), { type: 'module' });
    this.worker.onmessage = (e: MessageEvent<RenderReply>) => {
      const req = this.inFlight;
      if (!req || e.data.seq !== req.seq) {
        if (e.data.type === 'bitmap') e.data.bitmap.close();
        return;
      }
      this.inFlight = undefined;
      onReply(e.data, req);
    };
    this.worker.onerror = (e) => onError(e);
  }

  static create(onReply: (r: RenderReply, req: NonNullable<GraphRenderer['inFlight']>) => void, onError: (e: unknown) => void): GraphRenderer | undefined {
    if (typeof OffscreenCanvas === 'undefined' || typeof Worker === 'undefined' || typeof createImageBitmap === 'undefined') return undefined;
    try {
      return new GraphRenderer(onReply, onError);
    } catch {
      return undefined;
    }
  }

  /** Asks for a bitmap; `generation` comes back with the answer so the caller can drop an outdated one. */
  render(scene: { id: number; nodes: CanvasNode[]; edges: CanvasEdge[] }, frame: CacheFrame, dpr: number, visible: WorldBox, colors: SceneColors, maxLabels: number, generation: number): void {
    if (this.postedScene !== scene.id) {
      this.worker.postMessage({ type: 'scene', sceneId: scene.id, nodes: scene.nodes, edges: scene.edges } satisfies RenderRequest);
      this.postedScene = scene.id;
    }
    const seq = ++this.seq;
    this.worker.postMessage({ type: 'render', seq, sceneId: scene.id, frame, dpr, visible, colors, maxLabels } satisfies RenderRequest);
    // Set after posting: a post that throws leaves nothing waiting for an answer that never comes.
    this.inFlight = { seq, sceneId: scene.id, colors, dpr, generation };
  }

  dispose(): void {
    this.inFlight = undefined;
    this.worker.terminate();
  }
}
