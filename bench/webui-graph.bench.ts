/**
 * WebUI graph with 2,000 memories (W-3 "smooth with 2,000 nodes"), measured in headless chromium:
 * - frame time: requestAnimationFrame deltas while the canvas is panned (drag) and zoomed (wheel),
 *   with 2,000 nodes and, as the same-run baseline, a 2-node graph (with none there is no canvas);
 * - paint cost: the canvas's own main-thread ms (rasterization included) of frames that copy the
 *   cached bitmap, of the first picture after opening, and of the render worker's bitmaps (when a
 *   zoom settles or a pan nears the bitmap's edge), read from `window.__haGraph.takeStats()`;
 *   main-thread renders during the gestures get a row only if there were any;
 * - layout: time from the graph answer to all 2,000 positions placed (d3-force in the Web Worker),
 *   with 200 nodes as the baseline.
 * The SPA runs on the mini host (real webui + memory-manager plugins); the `memory.graph` answer
 * is a generated graph of N memories (tags, links, composedOf) served by request interception.
 * Skipped with a printed line when chromium is missing.
 */
import { existsSync, mkdirSync } from 'node:fs';
import type { Page, Route } from 'playwright-core';
import type { BenchRow } from './run.js';
import { ARTIFACTS, CHROMIUM, launchBrowser, openPage, shot, startHarness } from '../test/e2e/support/harness.js';
import { percentile as pct } from './stats.js';

const TAGS = [['会话总结'], ['convention'], ['复盘'], []];

/** A deterministic memory graph of `n` nodes: each links to 1–2 earlier ones, every 10th composes 3. */
export function generatedGraph(n: number) {
  const nodes = Array.from({ length: n }, (_, i) => ({ id: `m${String(i).padStart(5, '0')}`, title: `记忆 ${i}`, tags: TAGS[i % TAGS.length], enabled: i % 17 !== 0 }));
  const edges: { from: string; to: string; kind: 'link' | 'composedOf' | 'backlink' }[] = [];
  let seed = 42;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (let i = 1; i < n; i++) {
    edges.push({ from: nodes[i].id, to: nodes[Math.floor(rnd() * i)].id, kind: 'link' });
    if (i % 3 === 0) edges.push({ from: nodes[i].id, to: nodes[Math.floor(rnd() * i)].id, kind: 'backlink' });
    if (i % 10 === 0) for (let k = 1; k <= 3; k++) edges.push({ from: nodes[i].id, to: nodes[i - k].id, kind: 'composedOf' });
  }
  return { mode: 'overview' as const, nodes, edges };
}
const round = (x: number) => Math.round(x * 100) / 100;

/** Opens the graph with `n` memories; resolves with ms from the answer to all positions placed. */
async function openGraph(page: Page, n: number, state: { graph: ReturnType<typeof generatedGraph>; answeredAt: number }): Promise<number> {
  state.graph = generatedGraph(n);
  await page.click('[data-testid=toggle-graph]');
  await page.waitForSelector('[data-testid=graph-canvas]');
  await page.waitForFunction((k) => (window as unknown as { __haGraph?: { ids(): string[] } }).__haGraph?.ids().length === k, n, { polling: 'raf', timeout: 60_000 });
  return Date.now() - state.answeredAt;
}

interface Costs {
  /** rAF deltas (ms) while dragging and wheeling over the canvas. */
  frames: number[];
  /** Main-thread ms of frames that copied the cached bitmap (+ the highlight layer). */
  paints: number[];
  /** Main-thread ms of frames that rendered the whole graph (rasterization included). */
  renders: number[];
  /** ms of the render worker's renders (off the main thread). */
  workerRenders: number[];
  /** Main-thread ms of the first picture after the data arrived (empty before measuring starts). */
  firstPicture: number[];
}

/** What panning and zooming costs: frame intervals and the canvas's own paint/render times. */
async function frameTimes(page: Page, shotName?: string): Promise<Costs> {
  await page.waitForFunction('window.__haGraph.settled()', undefined, { polling: 'raf', timeout: 60_000 });
  // What opening the graph cost on the main thread: the first picture of the new data.
  const opening = await page.evaluate<{ renderPaintMs: number[] }>('window.__haGraph.takeStats()');
  const box = (await page.locator('[data-testid=graph-canvas]').boundingBox())!;
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  // A string, not a function: tsx's keepNames helpers (__name) do not exist in the page.
  await page.evaluate(`(() => {
    window.__frames = [];
    window.__framesOn = true;
    let last = performance.now();
    const tick = (t) => {
      window.__frames.push(t - last);
      last = t;
      if (window.__framesOn) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  })()`);
  const pan = async (steps: number, reach: number) => {
    await page.mouse.move(cx, cy);
    await page.mouse.down();
    // A loop out and back: the graph ends where it started, so every gesture has it in view.
    for (let i = 1; i <= steps; i++) await page.mouse.move(cx + Math.sin((2 * Math.PI * i) / steps) * reach, cy + Math.sin((4 * Math.PI * i) / steps) * reach * 0.6);
    await page.mouse.up();
  };
  for (let rep = 0; rep < 2; rep++) {
    await pan(30, 120); // the fitted overview
    for (let i = 0; i < 5; i++) await page.mouse.wheel(0, -120); // zoom in ×2
    await page.waitForTimeout(250); // the zoom settles: the graph is rendered sharp at the new scale
    await pan(60, Math.min(box.width, box.height) * 0.45); // zoomed in: pans leave the cached bitmap
    if (rep === 0 && shotName) await shot(page, shotName);
    for (let i = 0; i < 40; i++) await page.mouse.move(box.x + ((i * 37) % box.width), box.y + ((i * 53) % box.height)); // hover
    await page.mouse.move(cx, cy);
    for (let i = 0; i < 5; i++) await page.mouse.wheel(0, 120); // back out
    await page.waitForTimeout(250);
  }
  const inView = await page.evaluate<number>(`(() => {
    const g = window.__haGraph, c = document.querySelector('[data-testid=graph-canvas]').getBoundingClientRect();
    return g.ids().filter((id) => { const p = g.positionOf(id); return p.x >= c.left && p.x <= c.right && p.y >= c.top && p.y <= c.bottom; }).length;
  })()`);
  console.log('in view after the gestures:', inView);
  const frames = await page.evaluate<number[]>('(window.__framesOn = false, window.__frames.slice(1))');
  const stats = await page.evaluate<{ copyPaintMs: number[]; renderPaintMs: number[]; workerRenderMs: number[] }>('window.__haGraph.takeStats()');
  return { frames, paints: stats.copyPaintMs, renders: stats.renderPaintMs, workerRenders: stats.workerRenderMs, firstPicture: opening.renderPaintMs };
}

export async function run(): Promise<BenchRow[]> {
  if (!existsSync(CHROMIUM)) {
    console.log(`- bench/webui-graph.bench.ts: chromium not found at ${CHROMIUM}, skipped`);
    return [];
  }
  mkdirSync(ARTIFACTS, { recursive: true });
  const prev = process.env.HOMEAGENT_E2E_HOST;
  process.env.HOMEAGENT_E2E_HOST = 'mini'; // the SPA + webui + memory-manager; the graph answer is generated
  const h = await startHarness();
  if (prev === undefined) delete process.env.HOMEAGENT_E2E_HOST;
  else process.env.HOMEAGENT_E2E_HOST = prev;
  const browser = await launchBrowser();
  try {
    const { page } = await openPage(browser, h.url, { lang: 'en', theme: 'light', token: h.token });
    const state = { graph: generatedGraph(0), answeredAt: 0 };
    await page.route('**/api/memory-manager', async (route: Route) => {
      const body = route.request().postDataJSON() as { op?: string } | null;
      if (body?.op !== 'memory.graph') return route.fallback();
      state.answeredAt = Date.now();
      await route.fulfill({ contentType: 'application/json', body: JSON.stringify({ ok: true, value: state.graph }) });
    });
    await page.waitForSelector('[data-testid=conn].open');
    const layouts: Record<number, number[]> = { 200: [], 2000: [] };
    const frames: Record<number, number[]> = { 0: [], 2000: [] };
    const paints: Record<number, number[]> = { 0: [], 2000: [] };
    const renders: Record<number, number[]> = { 0: [], 2000: [] };
    const workerRenders: Record<number, number[]> = { 0: [], 2000: [] };
    const firstPictures: Record<number, number[]> = { 0: [], 2000: [] };
    const add = (n: 0 | 2000, c: Costs) => {
      frames[n].push(...c.frames);
      paints[n].push(...c.paints);
      renders[n].push(...c.renders);
      workerRenders[n].push(...c.workerRenders);
      firstPictures[n].push(...c.firstPicture);
    };
    for (let rep = 0; rep < 3; rep++) {
      for (const n of [200, 2000]) {
        layouts[n].push(await openGraph(page, n, state));
        if (n === 2000) {
          add(2000, await frameTimes(page, rep === 0 ? 'perf-2000-nodes-zoomed' : undefined));
          if (rep === 0) await shot(page, 'perf-2000-nodes');
        }
        await page.click('[data-testid=toggle-graph]');
      }
      await openGraph(page, 2, state); // the baseline: a (nearly) empty graph — with none the panel shows no canvas
      add(0, await frameTimes(page));
      await page.click('[data-testid=toggle-graph]');
    }
    const row = (name: string, xs: number[], baseline?: string): BenchRow => ({ name, unit: 'ms', p50: round(pct(xs, 50)), p95: round(pct(xs, 95)), n: xs.length, baseline });
    return [
      row('webui graph frame, 2 nodes (pan/zoom)', frames[0]),
      row('webui graph frame, 2000 nodes (pan/zoom)', frames[2000], 'webui graph frame, 2 nodes (pan/zoom)'),
      row('webui graph frame copying the bitmap, 2 nodes', paints[0]),
      row('webui graph frame copying the bitmap, 2000 nodes', paints[2000], 'webui graph frame copying the bitmap, 2 nodes'),
      // Whole-graph renders on the main thread during the gestures: none while the worker runs.
      ...[0, 2000].filter((n) => renders[n].length > 0).map((n) => row(`webui graph frame rendering the graph on the main thread, ${n || 2} nodes`, renders[n])),
      row('webui graph render in the worker, 2 nodes', workerRenders[0]),
      row('webui graph render in the worker, 2000 nodes', workerRenders[2000], 'webui graph render in the worker, 2 nodes'),
      row('webui graph first picture on opening, 2 nodes', firstPictures[0]),
      row('webui graph first picture on opening, 2000 nodes', firstPictures[2000], 'webui graph first picture on opening, 2 nodes'),
      row('webui graph layout worker, 200 nodes', layouts[200]),
      row('webui graph layout worker, 2000 nodes', layouts[2000], 'webui graph layout worker, 200 nodes'),
    ];
  } finally {
    await browser.close();
    await h.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run().then((rows) => console.table(rows), (e) => {
    console.error(e);
    process.exit(1);
  });
}
