/**
 * The WebUI with a big library and a long chat (W-1, W-2; issue 14 "smooth with 10,000
 * memories"), measured in headless chromium against two real daemons started side by side: one
 * with 10,000 memories and a 5,000-event session in its data folder, the same-run baseline with
 * 60 memories and a 20-event session (the files as years of use leave them: test/e2e/support).
 * - frame intervals (requestAnimationFrame deltas) while the library list is scrolled with the
 *   wheel: back and forth over its first screens (both libraries), and through 10,000 memories
 *   (pages of the list are read as they come into view);
 * - opening the library tab: ms from the click to its first rows;
 * - opening a chat: ms from the navigation to its last turn on screen, and one "load earlier".
 * Skipped with a printed line when chromium is missing.
 */
import { existsSync, mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import type { BenchRow } from './run.js';
import { ARTIFACTS, CHROMIUM, launchBrowser, openPage, shot, startHarness, type Harness } from '../test/e2e/support/harness.js';
import { LONG_SESSION, writeLibrary, writeLongSession } from '../test/e2e/support/long-data.js';
import { percentile as pct } from './stats.js';

const round = (x: number) => Math.round(x * 100) / 100;
const BIG = 10_000;
const SMALL = 60;

/** Starts recording rAF deltas in the page (a string: tsx's keepNames helpers do not exist there). */
async function startFrames(page: Page): Promise<void> {
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
}
const stopFrames = (page: Page) => page.evaluate<number[]>('(window.__framesOn = false, window.__frames.slice(1))');

/** Opens the library tab (from the Plan tab); ms until its first rows are on screen. */
async function openLibrary(page: Page): Promise<number> {
  await page.click('[data-testid=tab-plan]');
  await page.waitForSelector('[data-testid=plan-tab]');
  const t0 = Date.now();
  await page.click('[data-testid=tab-library]');
  await page.waitForSelector('[data-testid=memory-list] .memory-item[data-memory-id]');
  return Date.now() - t0;
}

/** Wheel steps over the library list, `steps` down then (when `back`) as many up. */
async function wheel(page: Page, steps: number, back: boolean): Promise<void> {
  const box = (await page.locator('.memory-panel .panel-body').boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  for (let i = 0; i < steps; i++) await page.mouse.wheel(0, 400);
  if (back) for (let i = 0; i < steps; i++) await page.mouse.wheel(0, -400);
  await page.waitForTimeout(100);
}

/** ms from opening a chat to its last turn on screen. */
async function openChat(page: Page, url: string, lastTurn: string): Promise<number> {
  await page.goto(`${url}/#/settings/about`);
  await page.waitForSelector('[data-testid=settings-about].active');
  const t0 = Date.now();
  await page.goto(`${url}/#/chat/${encodeURIComponent(LONG_SESSION)}`);
  await page.waitForSelector(`[data-turn-id="${lastTurn}"] .msg.assistant`);
  return Date.now() - t0;
}

export async function run(): Promise<BenchRow[]> {
  if (!existsSync(CHROMIUM)) {
    console.log(`- bench/webui-library.bench.ts: chromium not found at ${CHROMIUM}, skipped`);
    return [];
  }
  mkdirSync(ARTIFACTS, { recursive: true });
  const prev = process.env.HOMEAGENT_E2E_HOST;
  process.env.HOMEAGENT_E2E_HOST = 'daemon';
  const hosts: Record<'big' | 'small', Harness> = {} as never;
  const browser = await launchBrowser();
  try {
    hosts.small = await startHarness({ beforeStart: (home) => (writeLibrary(home, SMALL), writeLongSession(home, LONG_SESSION, 10)) });
    hosts.big = await startHarness({ beforeStart: (home) => (writeLibrary(home, BIG), writeLongSession(home)) });
    const pages: Record<'big' | 'small', Page> = {} as never;
    for (const k of ['small', 'big'] as const) {
      ({ page: pages[k] } = await openPage(browser, `${hosts[k].url}/#/chat`, { lang: 'en', theme: 'light', token: hosts[k].token }));
      await pages[k].waitForSelector('[data-testid=conn].open');
      if (!(await pages[k].locator('.memory-panel').count())) await pages[k].click('[data-testid=toggle-memory]');
    }
    const frames = { small: [] as number[], big: [] as number[], through: [] as number[] };
    const open = { small: [] as number[], big: [] as number[] };
    const chat = { small: [] as number[], big: [] as number[] };
    const earlier: number[] = [];
    let rows = 0;
    for (let rep = 0; rep < 3; rep++) {
      for (const k of ['small', 'big'] as const) {
        const page = pages[k];
        open[k].push(await openLibrary(page));
        await startFrames(page);
        for (let i = 0; i < 4; i++) await wheel(page, 12, true); // 12 × 400 px fits the 60-memory list too
        frames[k].push(...(await stopFrames(page)));
        if (k === 'big') {
          await startFrames(page);
          await wheel(page, 120, false); // 48,000 px: ~460 rows, 3 pages of the list read on the way
          frames.through.push(...(await stopFrames(page)));
          rows = Math.max(rows, await page.locator('[data-testid=memory-list] .memory-item').count());
          if (rep === 0) await shot(page, 'perf-library-10000');
        }
        chat[k].push(await openChat(page, hosts[k].url, `${LONG_SESSION}#${k === 'big' ? 2500 : 10}`));
        if (k === 'big') {
          const before = await page.locator('[data-testid=turn]').count();
          const t0 = Date.now();
          await page.click('[data-testid=load-earlier]');
          await page.waitForFunction((n) => document.querySelectorAll('[data-testid=turn]').length > n, before);
          earlier.push(Date.now() - t0);
        }
        await page.goto(`${hosts[k].url}/#/chat`);
        if (!(await page.locator('.memory-panel').count())) await page.click('[data-testid=toggle-memory]');
      }
    }
    console.log(`library rows in the page while scrolling 10,000 memories: at most ${rows}`);
    const row = (name: string, xs: number[], baseline?: string): BenchRow => ({ name, unit: 'ms', p50: round(pct(xs, 50)), p95: round(pct(xs, 95)), n: xs.length, baseline });
    const base = `webui library scroll frame, ${SMALL} memories`;
    return [
      row(base, frames.small),
      row(`webui library scroll frame, ${BIG} memories`, frames.big, base),
      row(`webui library scroll frame, through ${BIG} memories (pages read on the way)`, frames.through, base),
      row(`webui library tab open to first rows, ${SMALL} memories`, open.small),
      row(`webui library tab open to first rows, ${BIG} memories`, open.big, `webui library tab open to first rows, ${SMALL} memories`),
      row('webui chat open to its last turn, 20-event session', chat.small),
      row('webui chat open to its last turn, 5000-event session', chat.big, 'webui chat open to its last turn, 20-event session'),
      row('webui chat "load earlier" (150 events), 5000-event session', earlier),
    ];
  } finally {
    await browser.close();
    await hosts.big?.stop();
    await hosts.small?.stop();
    if (prev === undefined) delete process.env.HOMEAGENT_E2E_HOST;
    else process.env.HOMEAGENT_E2E_HOST = prev;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run().then((rows) => console.table(rows), (e) => {
    console.error(e);
    process.exit(1);
  });
}
