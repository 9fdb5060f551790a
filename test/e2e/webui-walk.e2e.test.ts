/**
 * What a walk through the WebUI found (decision 0660), in a real browser against the real daemon:
 * notices recorded in `system:notices` show as notice cards in a session named "Notices", and a
 * fact a later one replaced is said as ended ("until <day>") in the knowledge graph.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, CHROMIUM, graphNodePosition, launchBrowser, openPage, shot, startHarness, type Harness } from './support/harness.js';
import { GraphDB } from '../../src/memory/index.js';

const T = 20_000;
const skip = existsSync(CHROMIUM) ? false : `chromium not found at ${CHROMIUM} (apt-get install -y chromium fonts-wqy-microhei)`;

describe('WebUI walk fixes, in the browser', { skip, timeout: 180_000 }, () => {
  let h: Harness;
  let browser: Browser;
  let page: Page;

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    h = await startHarness({
      beforeStart(home) {
        // "I live in Berlin", later "我住在杭州": the second closes the first (K-4).
        const g = new GraphDB({ path: join(home, 'graph.db') });
        g.open();
        g.commit([{ subject: 'user', predicate: 'lives_in', object: 'Berlin' }]);
        g.commit([{ subject: 'user', predicate: 'lives_in', object: '杭州' }]);
        g.close();
      },
    });
    browser = await launchBrowser();
    ({ page } = await openPage(browser, h.url, { lang: 'en', theme: 'light', token: h.token }));
  });
  after(async () => {
    await browser?.close();
    await h?.stop();
  });

  it('shows notices as notice cards in a session named Notices, read from the log and live', async () => {
    assert.ok(h.notify, 'the daemon harness sends notices');
    await h.notify('Someone new wrote on Telegram: **hello**', 'telegram');
    // The page was open before the notice came: the session list takes it in without a reload.
    await page.goto(`${h.url}/#/chat`);
    await page.click('.session-item:has(.session-title:text-is("Notices"))', { timeout: T });
    await page.waitForSelector('[data-testid=notice-card]:has-text("Someone new wrote on Telegram")', { timeout: T });
    assert.equal((await page.textContent('[data-testid=notice-card] .notice-head'))?.trim(), 'Notice from telegram');
    // A notice that arrives while the session is open appears at once, and stays after a reload.
    await h.notify('Your reminder: water the plants', 'timer');
    await page.waitForSelector('[data-testid=notice-card]:has-text("water the plants")', { timeout: T });
    await page.reload();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=notice-card]').length === 2, undefined, { timeout: T });
    assert.deepEqual(await page.$$eval('[data-testid=notice-card] .notice-head', (els) => els.map((e) => e.textContent?.trim())), ['Notice from telegram', 'Notice from a reminder']);
    await shot(page, 'walk-notices');
    const zh = await openPage(browser, h.url, { lang: 'zh', token: h.token });
    await zh.page.goto(`${h.url}/#/chat/${encodeURIComponent('system:notices')}`);
    await zh.page.waitForSelector('.session-title:text-is("通知")', { timeout: T });
    await zh.page.waitForFunction(() => document.querySelectorAll('[data-testid=notice-card]').length === 2, undefined, { timeout: T });
    assert.deepEqual(await zh.page.$$eval('[data-testid=notice-card] .notice-head', (els) => els.map((e) => e.textContent?.trim())), ['来自telegram的通知', '来自提醒的通知']);
    await zh.page.context().close();
  });

  it('says a replaced fact as ended in the knowledge graph (hover and the list), not as current', async () => {
    await page.goto(`${h.url}/#/chat`);
    await page.click('[data-testid=toggle-graph]');
    // No library memory yet: the memory graph's empty page points to the facts (it was a dead end).
    await page.click('[data-testid=graph-empty-to-knowledge]', { timeout: T });
    await page.waitForSelector('[data-testid=tab-knowledge].active', { timeout: T });
    const you = await graphNodePosition(page, 'user');
    await page.mouse.move(you.x, you.y);
    await page.waitForSelector('[data-testid=graph-tip]', { timeout: T });
    const lines = await page.$$eval('[data-testid=graph-tip-line]', (els) => els.map((e) => e.textContent));
    assert.equal(lines[0], 'you live in 杭州');
    assert.match(lines[1] ?? '', /^you live in Berlin \(until \d{4}-\d{2}-\d{2}\)$/);
    await page.mouse.click(you.x, you.y);
    await page.waitForSelector('[data-testid=kg-relation-until]', { timeout: T });
    const rows = await page.$$eval('[data-testid=kg-relation]', (els) => els.map((e) => ({ text: e.textContent ?? '', ended: e.classList.contains('ended') })));
    assert.deepEqual(rows.map((r) => r.ended), [false, true]);
    assert.match(rows[0].text, /杭州/);
    assert.match(rows[1].text, /Berlin \(until \d{4}-\d{2}-\d{2}\)/);
    await shot(page, 'walk-graph-ended');
    await page.keyboard.press('Escape');
  });
});
