/**
 * The graph canvas's hook for browser tests and `bench/webui-graph.bench.ts`, as `window.__haGraph`
 * (set by graph-canvas.tsx). Types only, so the test side can import it too.
 */
export interface GraphStats {
  /** Main-thread ms of frames that only copied the cached bitmap and drew the highlight layer. */
  copyPaintMs: number[];
  /** Main-thread ms of frames that rendered the whole graph (the first picture of new data). */
  renderPaintMs: number[];
  /** ms of renders in the render worker (off the main thread), rasterization included. */
  workerRenderMs: number[];
}

export interface GraphProbe {
  /** Page (client) coordinates of a node's centre. */
  positionOf(id: string): { x: number; y: number } | undefined;
  /** Page coordinates of the box a node's label takes when it is drawn (12 px text under the disc). */
  labelBoxOf(id: string): { left: number; right: number; top: number; bottom: number } | undefined;
  ids(): string[];
  /** True when the picture on screen is final: no zoom settling, no bitmap on its way, none needed. */
  settled(): boolean;
  /**
   * Paint timings since the last call (at most 1,000 of each). The first call also turns on forced
   * rasterization in each paint (a canvas otherwise rasterizes later), so the times are the frame's.
   */
  takeStats(): GraphStats;
}
