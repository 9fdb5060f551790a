/**
 * Large data and long work in a real browser against the real daemon.
 *
 * The memory graph with 2,000 memories (W-3): the library
 * is an Obsidian-style folder of 2,000 markdown files put in the data folder before the daemon
 * starts. The graph canvas keeps the whole graph in a bitmap and has a worker render new bitmaps
 * when a zoom settles or a pan nears the bitmap's edge; these tests read the canvas's pixels to
 * check that what is drawn is where the page thinks the nodes are — after opening, after a zoom and
 * after a pan far past the first bitmap — and that a click there opens that memory.
 * (How fast this is, is measured by `bench/webui-graph.bench.ts`, not asserted here.)
 *
 * A word-vector download from a slow mirror shows its progress in Settings → Documents.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, CHROMIUM, launchBrowser, openPage, shot, startHarness, type Harness } from './support/harness.js';

const T = 60_000;
const N = 2000;
const skip = existsSync(CHROMIUM) ? false : `chromium not found at ${CHROMIUM} (apt-get install -y chromium fonts-wqy-microhei)`;

/** Tag → node colour, as the legend shows it (web/src/lib/graph-layout.ts tagColor). */
const TAGS: [string[], [number, number, number]][] = [
  [['convention'], [0x3b, 0x82, 0xf6]],
  [['会话总结'], [0x22, 0xa5, 0x59]],
  [['复盘'], [0xf0, 0x8c, 0x2e]],
  [[], [0x8a, 0x94, 0xa6]],
];
const idOf = (i: number) => `vault-${String(i).padStart(4, '0')}`;

/** 2,000 memory files as a user's vault would hold them: links to earlier notes, some compositions. */
function writeVault(home: string): void {
  const dir = join(home, 'memory', 'memories');
  mkdirSync(dir, { recursive: true });
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  for (let i = 0; i < N; i++) {
    const links = i === 0 ? [] : [idOf(Math.floor(rnd() * i))];
    const composedOf = i % 10 === 0 && i >= 3 ? [idOf(i - 1), idOf(i - 2)] : [];
    const at = new Date(t0 + i * 60_000).toISOString();
    const fm = { title: `笔记 ${i}`, impressions: [`主题${i % 50}`], tags: TAGS[i % 4][0], enabled: true, links, composedOf, createdAt: at, updatedAt: at };
    const text = ['---', ...Object.entries(fm).map(([k, v]) => `${k}: ${JSON.stringify(v)}`), '---', '## 快照', '', `第 ${i} 条记忆的内容。`, '', '<!-- notes -->', ''].join('\n');
    writeFileSync(join(dir, `${idOf(i)}.md`), text);
  }
}


interface Probe {
  id: string;
  x: number;
  y: number;
  rgb: [number, number, number];
}

/**
 * Nodes in view with no other node within 16 px (so their centre pixel is theirs alone), and the
 * canvas pixel at each centre.
 */
async function probe(page: Page, max = 40): Promise<Probe[]> {
  return page.evaluate(`(() => {
    const g = window.__haGraph;
    const c = document.querySelector('[data-testid=graph-canvas]');
    const r = c.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    const pts = g.ids().map((id) => ({ id, p: g.positionOf(id) })).filter((o) => o.p && o.p.x > r.left + 20 && o.p.x < r.right - 60 && o.p.y > r.top + 20 && o.p.y < r.bottom - 20);
    const out = [];
    const ctx = c.getContext('2d');
    for (const a of pts) {
      if (pts.some((b) => b !== a && Math.hypot(a.p.x - b.p.x, a.p.y - b.p.y) < 16)) continue;
      const d = ctx.getImageData(Math.round((a.p.x - r.left) * dpr), Math.round((a.p.y - r.top) * dpr), 1, 1).data;
      out.push({ id: a.id, x: a.p.x, y: a.p.y, rgb: [d[0], d[1], d[2]] });
      if (out.length >= ${max}) break;
    }
    return out;
  })()`);
}

function expectedRgb(id: string): [number, number, number] {
  return TAGS[Number(id.slice(6)) % 4][1];
}

/** Every probed node centre shows that node's colour (the picture is aligned with hit-testing). */
function assertAligned(probes: Probe[], what: string): void {
  assert.ok(probes.length >= 5, `${what}: too few isolated nodes in view to check (${probes.length})`);
  const off = probes.filter((p) => p.rgb.some((v, i) => Math.abs(v - expectedRgb(p.id)[i]) > 12));
  assert.ok(off.length <= Math.floor(probes.length / 10), `${what}: ${off.length}/${probes.length} node centres do not show their colour: ${JSON.stringify(off.slice(0, 5))}`);
}

async function settled(page: Page): Promise<void> {
  await page.waitForFunction('window.__haGraph && window.__haGraph.settled()', undefined, { polling: 'raf', timeout: T });
}

describe('2,000 memories in the graph, and a long download in settings', { skip, timeout: 240_000 }, () => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let box: { x: number; y: number; width: number; height: number };

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    h = await startHarness({ beforeStart: writeVault });
    browser = await launchBrowser();
    ({ page, errors } = await openPage(browser, h.url, { lang: 'en', theme: 'light', token: h.token }));
    await page.waitForSelector('[data-testid=conn].open', { timeout: T });
  });
  after(async () => {
    await browser?.close();
    await h?.stop();
  });

  it('lays out and draws all 2,000 memories of the vault, each where it is hit-tested', async () => {
    await page.click('[data-testid=toggle-graph]');
    await page.selectOption('[data-testid=graph-panel] select', '2000');
    await page.waitForSelector('[data-testid=graph-panel] :text("2000 nodes")', { timeout: T });
    // The layout of 2,000 nodes takes a while; the panel shows how far it is.
    await page.waitForSelector('[data-testid=graph-layout-progress]:has-text("%")', { timeout: T });
    await page.waitForFunction(`(window.__haGraph?.ids().length ?? 0) === ${N}`, undefined, { timeout: T });
    box = (await page.locator('[data-testid=graph-canvas]').boundingBox())!;
    await page.mouse.move(box.x + box.width + 50, box.y + 10); // no hover highlight
    await settled(page);
    assertAligned(await probe(page), 'fitted overview');
    await shot(page, 'graph-2000-overview');
  });

  it('zooms in: the scaled bitmap is replaced by a sharp one that is still aligned', async () => {
    await page.evaluate('window.__haGraph.takeStats()');
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    for (let i = 0; i < 10; i++) await page.mouse.wheel(0, -120); // ×4
    await page.mouse.move(box.x + box.width + 50, box.y + 10);
    await settled(page);
    assertAligned(await probe(page), 'zoomed ×4');
  });

  it('pans far past the first bitmap: a new one is rendered and aligned, and a click opens that memory', async () => {
    // Two drags of 60 % of the panel each: past the bitmap's half-viewport margin, still inside the
    // graph (at ×4 it is about four panels wide).
    for (let rep = 0; rep < 2; rep++) {
      await page.mouse.move(box.x + box.width * 0.8, box.y + box.height / 2);
      await page.mouse.down();
      for (let i = 1; i <= 12; i++) await page.mouse.move(box.x + box.width * (0.8 - 0.05 * i), box.y + box.height / 2);
      await page.mouse.up();
    }
    await page.mouse.move(box.x + box.width + 50, box.y + 10);
    await settled(page);
    const probes = await probe(page);
    assertAligned(probes, 'after panning');
    await shot(page, 'graph-2000-panned');
    // The new bitmaps came from the render worker; the main thread only copied them.
    const stats = await page.evaluate<{ renderPaintMs: number[]; workerRenderMs: number[] }>('window.__haGraph.takeStats()');
    assert.ok(stats.workerRenderMs.length >= 2, `worker renders: ${stats.workerRenderMs.length}`);
    assert.equal(stats.renderPaintMs.length, 0, 'no render on the main thread while zooming and panning');
    const target = probes.find((p) => p.rgb.every((v, i) => Math.abs(v - expectedRgb(p.id)[i]) <= 12))!;
    await page.mouse.click(target.x, target.y);
    await page.waitForSelector(`[data-testid=memory-detail]:has-text("${target.id}")`, { timeout: T });
  });

  it('shows a word-vector download in Settings → Documents while it runs, then the model in use', async () => {
    // A slow mirror: a small gzipped .vec in 16 pieces, 400 ms apart (about 6 s in all).
    const rows = ['cat 1 0 0 0', 'kitten 0.95 0.05 0 0', ...Array.from({ length: 300 }, (_, i) => `w${i} 0.1 0.2 0.3 0.4`)];
    const body = gzipSync(`${rows.length} 4\n${rows.join('\n')}\n`);
    const server = createServer(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': String(body.length) });
      const size = Math.ceil(body.length / 16);
      for (let i = 0; i < 16; i++) {
        res.write(body.subarray(i * size, (i + 1) * size));
        await new Promise((r) => setTimeout(r, 400));
      }
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const mirror = `http://127.0.0.1:${(server.address() as { port: number }).port}/cc.en.300.vec.gz`;
      const put = (key: string, value: string) => h.api(`/api/v1/settings/${encodeURIComponent(key)}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ value }) });
      assert.equal((await put('core.memory.embedding_download_url', mirror)).status, 200);
      assert.equal((await put('core.memory.embedding_model_path', join(h.home, 'vectors', 'cc.en.300.vec'))).status, 200);
      await page.click('[data-testid=graph-panel] .panel-head .icon-btn'); // close the graph overlay
      if (await page.locator('.memory-panel').count()) await page.click('[data-testid=toggle-memory]');
      await page.goto(`${h.url}/#/settings/documents`);
      const card = page.locator('[data-testid=embedder-download]');
      await card.waitFor({ timeout: T });
      await page.waitForFunction(() => /\d+%/.test(document.querySelector('[data-testid=embedder-download]')?.textContent ?? ''), undefined, { timeout: T });
      await shot(page, 'settings-documents-download');
      await card.waitFor({ state: 'detached', timeout: T });
      await page.reload();
      // The model in use, in words (decision 0530), not the embedder's id `static:cc.en.300.vec#300`.
      await page.waitForSelector('.stat-value:has-text("word vectors cc.en.300.vec (")', { timeout: T });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('logged no client errors', () => {
    assert.deepEqual(errors, []);
  });
});
