/**
 * WebUI graph with 2,000 memories (W-3 "smooth with 2,000 nodes"), measured in headless chromium:
 * - frame time: requestAnimationFrame deltas while the canvas is panned (drag) and zoomed (wheel),
 *   with 2,000 nodes and, as the same-run baseline, a 2-node graph (with none there is no canvas);
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

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};
const round = (x: number) => Math.round(x * 100) / 100;

/** Opens the graph with `n` memories; resolves with ms from the answer to all positions placed. */
async function openGraph(page: Page, n: number, state: { graph: ReturnType<typeof generatedGraph>; answeredAt: number }): Promise<number> {
  state.graph = generatedGraph(n);
  await page.click('[data-testid=toggle-graph]');
  await page.waitForSelector('[data-testid=graph-canvas]');
  await page.waitForFunction((k) => (window as unknown as { __haGraph?: { ids(): string[] } }).__haGraph?.ids().length === k, n, { polling: 'raf', timeout: 60_000 });
  return Date.now() - state.answeredAt;
}

/** rAF deltas (ms) while dragging and wheeling over the canvas. */
async function frameTimes(page: Page): Promise<number[]> {
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
  for (let rep = 0; rep < 3; rep++) {
    await page.mouse.move(cx, cy);
    await page.mouse.down();
    for (let i = 0; i < 30; i++) await page.mouse.move(cx + Math.sin(i / 5) * 120, cy + i * 3);
    await page.mouse.up();
    for (let i = 0; i < 10; i++) await page.mouse.wheel(0, i % 2 ? 120 : -120);
  }
  return page.evaluate<number[]>('(window.__framesOn = false, window.__frames.slice(1))');
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
    const { page } = await openPage(browser, h.url, { lang: 'en', theme: 'light' });
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
    for (let rep = 0; rep < 3; rep++) {
      for (const n of [200, 2000]) {
        layouts[n].push(await openGraph(page, n, state));
        if (n === 2000) {
          frames[2000].push(...(await frameTimes(page)));
          if (rep === 0) await shot(page, 'perf-2000-nodes');
        }
        await page.click('[data-testid=toggle-graph]');
      }
      await openGraph(page, 2, state); // the baseline: a (nearly) empty graph — with none the panel shows no canvas
      frames[0].push(...(await frameTimes(page)));
      await page.click('[data-testid=toggle-graph]');
    }
    const row = (name: string, xs: number[], baseline?: string): BenchRow => ({ name, unit: 'ms', p50: round(pct(xs, 50)), p95: round(pct(xs, 95)), n: xs.length, baseline });
    return [
      row('webui graph frame, 2 nodes (pan/zoom)', frames[0]),
      row('webui graph frame, 2000 nodes (pan/zoom)', frames[2000], 'webui graph frame, 2 nodes (pan/zoom)'),
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
