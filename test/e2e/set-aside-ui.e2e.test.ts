/**
 * Damaged stores are not hidden (decision 0250, D6) in a real browser against the real daemon:
 * its data folder has a corrupt documents.db and graph.db — and a memory-control.db with a page
 * overwritten — before it starts; the daemon sets them aside, and the WebUI shows a warning banner
 * naming each store, where the old file is kept, when, the recovery command and what was read
 * back of memory-control.db (decision 0280) — in both languages — and the same list in
 * Settings → About. The
 * banner can be dismissed for the page load and is back after a reload. (A clean start shows no
 * banner: webui.e2e.test.ts, "about" screen.)
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import Database from 'better-sqlite3';
import { ControlDB } from '../../src/memory/control/index.js';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { SetAsideStore } from '../../src/spec/index.js';
import { ARTIFACTS, CHROMIUM, launchBrowser, openPage, shot, startHarness, type Harness } from './support/harness.js';

const T = 20_000;
const skip = existsSync(CHROMIUM) ? false : `chromium not found at ${CHROMIUM} (apt-get install -y chromium fonts-wqy-microhei)`;
const garbage = 'garbage '.repeat(1000);

/** A memory-control.db with 3 forgets' tombstones and a history of 40, one history page overwritten. */
function damagedControl(home: string): void {
  const db = new ControlDB({ home });
  db.open();
  db.addTombstones([1, 2, 3].map((i) => ({ hash: String(i).repeat(64), kind: 'turn' })));
  for (let i = 0; i < 40; i++) db.insertChanges([{ at: Date.now(), actor: 'user', kind: 'knowledge', target: `knowledge:k${i}`, subjects: [], op: 'create', summary: `created ${i}`, after: { content: 'note '.repeat(300) } }]);
  db.close();
  const file = join(home, 'memory-control.db');
  const sqlite = new Database(file, { readonly: true });
  const page = sqlite.prepare("SELECT pageno FROM dbstat WHERE name = 'history' AND pagetype = 'leaf' ORDER BY pageno LIMIT 1").pluck().get() as number;
  sqlite.close();
  const fd = openSync(file, 'r+');
  writeSync(fd, randomBytes(4096), 0, 4096, (page - 1) * 4096);
  closeSync(fd);
}

describe('WebUI: stores set aside at start', { skip, timeout: 120_000 }, () => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let stores: SetAsideStore[];

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    h = await startHarness({
      beforeStart(home) {
        mkdirSync(join(home, 'documents'), { recursive: true });
        writeFileSync(join(home, 'documents', 'documents.db'), garbage);
        writeFileSync(join(home, 'graph.db'), garbage);
        damagedControl(home);
      },
    });
    stores = ((await (await h.api('/api/v1/status')).json()) as { agent: { setAside: SetAsideStore[] } }).agent.setAside;
    browser = await launchBrowser();
    ({ page, errors } = await openPage(browser, h.url, { lang: 'zh', theme: 'light', token: h.token }));
    await page.waitForSelector('[data-testid=conn].open', { timeout: T });
  });
  after(async () => {
    await browser?.close();
    await h?.stop();
  });

  it('the daemon set the three corrupt stores aside and kept their files', () => {
    assert.deepEqual(stores.map((s) => s.store).sort(), ['documents', 'graph', 'memory-control']);
    for (const s of stores) if (s.store !== 'memory-control') assert.equal(readFileSync(s.file, 'utf8'), garbage, `${s.store}: kept at ${s.file}`);
    const mc = stores.find((s) => s.store === 'memory-control')!;
    assert.equal(mc.salvaged?.tombstones, 3);
    assert.equal(mc.salvaged?.tombstonesLostAtMost, 0);
  });

  it('shows a banner naming each store, where its old file is, and how to recover it (zh, en)', async () => {
    const banner = page.locator('[data-testid=set-aside-banner]');
    await banner.waitFor({ timeout: T });
    const zh = (await banner.textContent()) ?? '';
    assert.match(zh, /启动时有 3 个损坏的存储被移到一旁/);
    assert.match(zh, /文档（documents\.db）/);
    assert.match(zh, /知识图谱（graph\.db）/);
    for (const s of stores) assert.ok(zh.includes(s.file), `the banner names ${s.file}`);
    const docs = banner.locator('[data-testid=set-aside-item][data-store=documents]');
    assert.match((await docs.textContent()) ?? '', /要找回其中的内容，请运行\s*waiter memory reindex/);
    // The graph has no rebuilding command: the banner says so instead of inventing one.
    assert.match((await banner.locator('[data-testid=set-aside-item][data-store=graph]').textContent()) ?? '', /没有命令可以重建它/);
    // memory-control.db: what was read back of it, and that nothing it forgot is lost.
    const control = banner.locator('[data-testid=set-aside-item][data-store=memory-control]');
    assert.match((await control.textContent()) ?? '', /已从旧文件读回到新文件：3 条遗忘记录、0 个被排除的轮次、\d+ 条历史记录。\s*所有遗忘记录都已读回/);
    // When: a readable date, not the file suffix's raw number.
    assert.match((await docs.textContent()) ?? '', /刚刚|分钟前/);
    await shot(page, 'set-aside-banner-zh');
    await page.click('[data-testid=toggle-lang]');
    const en = (await banner.textContent()) ?? '';
    assert.match(en, /3 damaged stores were set aside at start/);
    assert.match((await control.textContent()) ?? '', /Read back from the old file into the new one: 3 forget records, 0 excluded turns, \d+ history entries\.\s*Every forget record was read back/);
    assert.match(en, /Documents \(documents\.db\)[\s\S]*Old file kept at[\s\S]*To bring its contents back, run\s*waiter memory reindex/);
    await shot(page, 'set-aside-banner-en');
    await page.click('[data-testid=toggle-lang]');
  });

  it('Settings → About lists the same stores', async () => {
    await page.goto(`${h.url}/#/settings/about`);
    const list = page.locator('[data-testid=about-set-aside] [data-testid=set-aside-item]');
    await list.first().waitFor({ timeout: T });
    assert.deepEqual((await list.evaluateAll((els) => els.map((e) => e.getAttribute('data-store')))).sort(), ['documents', 'graph', 'memory-control']);
    assert.match((await page.locator('[data-testid=about-set-aside] [data-testid=set-aside-salvaged]').textContent()) ?? '', /3 条遗忘记录/);
    const text = (await page.locator('[data-testid=about-set-aside]').textContent()) ?? '';
    for (const s of stores) assert.ok(text.includes(s.file), `About names ${s.file}`);
    await shot(page, 'set-aside-settings-about');
  });

  it('dismissed, the banner stays away for this page load and is back after a reload', async () => {
    await page.click('[data-testid=set-aside-dismiss]');
    await page.waitForSelector('[data-testid=set-aside-banner]', { state: 'detached', timeout: T });
    await page.evaluate(() => (window.location.hash = '#/chat'));
    await page.waitForSelector('[data-testid=chat-input]', { timeout: T });
    assert.equal(await page.locator('[data-testid=set-aside-banner]').count(), 0, 'navigating inside the app keeps it dismissed');
    await page.reload();
    await page.waitForSelector('[data-testid=set-aside-banner]', { timeout: T });
    assert.deepEqual(errors, []);
  });
});
