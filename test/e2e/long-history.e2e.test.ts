/**
 * Long histories and big libraries in a real browser against the real daemon (W-1, W-2; issue 14):
 * a 5,000-event session opens at its last turn and pages back to its first; a memory whose source
 * is an old turn of it jumps there (the page around the turn, the message highlighted); a
 * 10,000-memory library scrolls to its end with a few dozen rows in the page. The session log and
 * the library are files put in the data folder before the daemon starts, as years of use would
 * leave them. (How smooth the library scrolls is measured by `bench/webui-library.bench.ts`.)
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, CHROMIUM, launchBrowser, openPage, shot, startHarness, type Harness } from './support/harness.js';
import { LONG_SESSION, TURNS, writeLibrary, writeLongSession } from './support/long-data.js';

const T = 60_000;
const skip = existsSync(CHROMIUM) ? false : `chromium not found at ${CHROMIUM} (apt-get install -y chromium fonts-wqy-microhei)`;

describe('long histories and big libraries in the browser', { skip, timeout: 300_000 }, () => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    h = await startHarness({
      beforeStart(home) {
        writeLongSession(home);
        writeLibrary(home);
      },
    });
    browser = await launchBrowser();
    ({ page, errors } = await openPage(browser, `${h.url}/#/chat/${encodeURIComponent(LONG_SESSION)}`, { lang: 'en', theme: 'light', token: h.token }));
    await page.waitForSelector('[data-testid=conn].open', { timeout: T });
  });
  after(async () => {
    await browser?.close();
    await h?.stop();
  });

  const inView = (sel: string) =>
    page.evaluate((s) => {
      const el = document.querySelector(s);
      const box = document.querySelector('[data-testid=chat-scroll]')!.getBoundingClientRect();
      if (!el) return false;
      const r = el.getBoundingClientRect();
      return r.bottom > box.top && r.top < box.bottom;
    }, sel);

  it('a 5,000-event session opens at its last turn and pages back to its first', async (t) => {
    if (h.mode !== 'daemon') return t.skip('the files are read by the daemon at start');
    await page.waitForSelector(`[data-turn-id="${LONG_SESSION}#${TURNS}"]`, { timeout: T });
    assert.equal(await inView(`[data-turn-id="${LONG_SESSION}#${TURNS}"] .msg.assistant`), true, 'the newest answer is in view');
    const first = await page.locator('[data-testid=turn]').count();
    assert.ok(first < 200, `only the newest page is shown at first (${first} turns)`);
    await shot(page, '20-long-history-newest');
    // Scroll up as a person would: every time the top is reached, the page before it is put above.
    for (let i = 0; i < 200; i++) {
      if (await page.locator(`[data-turn-id="${LONG_SESSION}#1"]`).count()) break;
      const before = await page.locator('[data-testid=turn]').count();
      await page.evaluate(() => {
        const el = document.querySelector('[data-testid=chat-scroll]')!;
        el.scrollTop = 0;
        el.dispatchEvent(new Event('scroll'));
      });
      await page.waitForFunction((n) => document.querySelectorAll('[data-testid=turn]').length > n || !document.querySelector('[data-testid=load-earlier]'), before, { timeout: T });
    }
    await page.waitForSelector(`[data-turn-id="${LONG_SESSION}#1"]`, { timeout: T });
    assert.equal(await page.locator('[data-testid=load-earlier]').count(), 0, 'nothing earlier is left');
    assert.equal(await page.locator('[data-testid=turn]').count(), TURNS);
    assert.match((await page.locator(`[data-turn-id="${LONG_SESSION}#1"] .msg.user .bubble`).textContent()) ?? "", /question number 1$/);
    await page.evaluate(() => (document.querySelector('[data-testid=chat-scroll]')!.scrollTop = 0));
    await shot(page, '21-long-history-first');
  });

  it("jumps to an old turn from a memory's source: the page around it, the message highlighted", async () => {
    // Reopen the session at its newest page, then trace the memory saved from turn 42's answer.
    await page.goto(`${h.url}/#/chat/${encodeURIComponent(LONG_SESSION)}`);
    await page.reload();
    await page.waitForSelector(`[data-turn-id="${LONG_SESSION}#${TURNS}"]`, { timeout: T });
    assert.equal(await page.locator(`[data-turn-id="${LONG_SESSION}#42"]`).count(), 0);
    if (!(await page.locator('[data-testid=tab-library]').count())) await page.click('[data-testid=toggle-memory]');
    await page.click('[data-testid=tab-library]');
    await page.fill('[data-testid=library-search]', 'answer of turn 42');
    await page.click('[data-memory-id=lib-00000] .memory-main', { timeout: T });
    await page.click('[data-testid=trace-source]');
    await page.waitForSelector(`[data-turn-id="${LONG_SESSION}#42"] .msg.assistant.flash`, { timeout: T });
    assert.equal(await inView(`[data-turn-id="${LONG_SESSION}#42"] .msg.assistant`), true);
    assert.equal(await page.locator(`[data-turn-id="${LONG_SESSION}#42"] .msg.user.flash`).count(), 0, 'the message the memory came from, not its whole turn');
    assert.equal(await page.locator(`[data-turn-id="${LONG_SESSION}#${TURNS}"]`).count(), 0, 'the page around the turn, not the whole history');
    await page.waitForSelector('[data-testid=jump-latest]');
    await shot(page, '22-long-history-jump');
    await page.click('[data-testid=jump-latest]');
    await page.waitForSelector(`[data-turn-id="${LONG_SESSION}#${TURNS}"]`, { timeout: T });
  });

  it('the recall block of a turn opens into its sources and jumps to the turn each came from', async () => {
    await page.goto(`${h.url}/#/chat/${encodeURIComponent(LONG_SESSION)}`);
    await page.reload();
    const last = `[data-turn-id="${LONG_SESSION}#${TURNS}"]`;
    await page.waitForSelector(`${last} [data-testid=injection]`, { timeout: T });
    await page.click(`${last} [data-testid=injection] summary`);
    const rows = page.locator(`${last} [data-testid=injected-source]`);
    assert.equal(await rows.count(), 2);
    assert.equal(await page.locator(`${last} .injected-title`).first().innerText(), '【相关记忆文档】');
    assert.match(await rows.nth(0).innerText(), /archive[\s\S]*question number 7/);
    assert.match(await rows.nth(1).innerText(), /library[\s\S]*The answer of turn 42/);
    await shot(page, '24-injection-sources');
    await rows.nth(0).locator('[data-testid=open-source]').click();
    await page.waitForSelector(`[data-turn-id="${LONG_SESSION}#7"] .msg.user.flash`, { timeout: T });
    assert.equal(await inView(`[data-turn-id="${LONG_SESSION}#7"] .msg.user`), true, 'the turn it was said in, in view');
    // At the foot of an older page the next page is read; as it arrives, "Jump to the latest" stays
    // where it was, so a click on it cannot land on a message instead (CI saw that click lost).
    const nextPage = /\/events\?afterSeq=/;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route(nextPage, async (route) => {
      await held;
      await route.continue();
    });
    const asked = page.waitForRequest(nextPage, { timeout: T });
    await page.evaluate(() => {
      const el = document.querySelector('[data-testid=chat-scroll]')!;
      el.scrollTop = el.scrollHeight;
    });
    await asked;
    const turnsBefore = await page.locator('[data-testid=turn]').count();
    const at = await page.locator('[data-testid=jump-latest]').boundingBox();
    release();
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid=turn]').length > n, turnsBefore, { timeout: T });
    await page.unroute(nextPage);
    const now = await page.locator('[data-testid=jump-latest]').boundingBox();
    assert.ok(at && now && Math.abs(now.y - at.y) < 2 && Math.abs(now.x - at.x) < 2, `the button did not move while the next page came in (${JSON.stringify(at)} → ${JSON.stringify(now)})`);
    await shot(page, '25-older-page-foot');
    // The memory's source is a message (seq 84: turn 42's answer).
    await page.click('[data-testid=jump-latest]');
    await page.waitForSelector(`${last} [data-testid=injection]`, { timeout: T });
    if (!(await page.locator(`${last} [data-testid=injected-source]`).first().isVisible())) await page.click(`${last} [data-testid=injection] summary`);
    await page.locator(`${last} [data-testid=injected-source]`).nth(1).locator('[data-testid=open-source]').click();
    await page.waitForSelector(`[data-turn-id="${LONG_SESSION}#42"] .msg.assistant.flash`, { timeout: T });
  });

  it('a 10,000-memory library scrolls to its end with a few dozen rows in the page', async () => {
    await page.click('[data-testid=tab-plan]'); // leaves the memory opened by the trace
    await page.click('[data-testid=tab-library]');
    await page.fill('[data-testid=library-search]', '');
    await page.waitForSelector('[data-testid=library-count]', { timeout: T });
    assert.match(await page.locator('[data-testid=library-count]').innerText(), /10000 memories/);
    const scrollToEnd = () =>
      page.evaluate(() => {
        const el = document.querySelector('.memory-panel .panel-body')!;
        el.scrollTop = el.scrollHeight;
      });
    // Page by page as a wheel would: each screen of rows is read as it comes into view.
    for (let i = 0; i < 30; i++) {
      await page.mouse.move(1200, 500);
      await page.mouse.wheel(0, 30_000);
      await page.waitForTimeout(30);
    }
    await scrollToEnd();
    await page.waitForSelector('[data-memory-id=lib-00000]', { timeout: T }); // the oldest memory is the last row
    await page.waitForFunction(() => !document.querySelector('.memory-item.placeholder'), undefined, { timeout: T });
    const rows = await page.locator('[data-testid=memory-list] .memory-item').count();
    assert.ok(rows > 5 && rows < 80, `${rows} rows in the page`);
    const last = await page.evaluate(() => {
      const el = document.querySelector('[data-memory-id=lib-00000]')!.getBoundingClientRect();
      const box = document.querySelector('.memory-panel .panel-body')!.getBoundingClientRect();
      return { elBottom: el.bottom, boxBottom: box.bottom };
    });
    assert.ok(last.elBottom <= last.boxBottom + 1 && last.elBottom > last.boxBottom - 200, 'the last row is at the bottom of the panel');
    await shot(page, '23-library-10000-end');
  });

  it('logged no client errors', () => {
    assert.deepEqual(errors, []);
  });
});
