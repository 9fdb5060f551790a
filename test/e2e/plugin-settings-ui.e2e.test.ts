/**
 * Settings → Plugins in a real browser against the real daemon: a plugin card's "Settings (n)"
 * opens that plugin's keys with the fields of Settings → General; a change there reaches the
 * daemon's config; the secret search key is never shown; in Chinese the expander and the web
 * plugin's labels are Chinese.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, CHROMIUM, launchBrowser, openPage, shot, startHarness, type Harness } from './support/harness.js';

const T = 30_000;
const skip = existsSync(CHROMIUM) ? false : `chromium not found at ${CHROMIUM} (apt-get install -y chromium fonts-wqy-microhei)`;
const WEB = '[data-plugin=web]';

describe('Settings → Plugins: each plugin card sets its own settings', { skip, timeout: 120_000 }, () => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    h = await startHarness();
    browser = await launchBrowser();
    ({ page, errors } = await openPage(browser, h.url, { lang: 'en', theme: 'light', token: h.token }));
    await page.waitForSelector('[data-testid=conn].open', { timeout: T });
  });
  after(async () => {
    await browser?.close();
    await h?.stop();
  });

  it('opens the web plugin settings, changes max_chars and the daemon has it; the secret key stays hidden', async () => {
    await page.goto(`${h.url}/#/settings/plugins`);
    const toggle = `${WEB} [data-testid=plugin-settings-toggle]`;
    await page.waitForSelector(toggle, { timeout: T });
    const settings = (await (await h.api('/api/v1/settings')).json()) as { value?: { key: string }[]; keys?: { key: string }[] };
    const keys = (settings.value ?? settings.keys ?? []).map((k) => k.key);
    const webKeys = keys.filter((k) => k.startsWith('plugin.web.')).length;
    assert.ok(webKeys >= 10, `${webKeys} web keys`);
    assert.equal((await page.textContent(toggle))?.trim(), `▸ Settings (${webKeys})`);
    // The fields are mounted only when opened.
    assert.equal(await page.locator(`${WEB} [data-key]`).count(), 0);
    // A plugin without settings has no expander.
    const plugins = (await (await h.api('/api/v1/plugins')).json()) as { value?: { name: string }[]; plugins?: { name: string }[] };
    const bare = (plugins.value ?? plugins.plugins ?? []).map((p) => p.name).find((n) => !keys.some((k) => k.startsWith(`plugin.${n}.`)));
    assert.ok(bare, 'a plugin without settings');
    await page.waitForSelector(`[data-plugin="${bare}"]`, { timeout: T });
    assert.equal(await page.locator(`[data-plugin="${bare}"] [data-testid=plugin-settings-toggle]`).count(), 0);

    await page.click(toggle);
    const row = `${WEB} [data-key="plugin.web.max_chars"]`;
    await page.waitForSelector(`${row} input`, { timeout: T });
    assert.equal(await page.textContent(`${row} [data-testid=setting-label]`), 'Page text length (characters)');
    // Compact: no hint and no filter box of the General page.
    assert.equal(await page.locator(`${WEB} [data-testid=settings-filter]`).count(), 0);
    assert.equal(await page.locator(`${WEB} [data-key]`).count(), webKeys);
    assert.equal(await page.locator('[data-key^="plugin.cmd."]').count(), 0, 'only the opened plugin shows its keys');

    assert.equal(h.configValue!('plugin.web.max_chars'), 20_000);
    await page.fill(`${row} input`, '12345');
    await page.press(`${row} input`, 'Enter');
    await page.waitForSelector(`${row} .badge.ok`, { timeout: T });
    assert.equal(h.configValue!('plugin.web.max_chars'), 12_345);

    // The secret is never shown: a password field, empty; what is typed replaces it.
    const secret = `${WEB} [data-key="plugin.web.search_api_key"] input`;
    assert.equal(await page.getAttribute(secret, 'type'), 'password');
    assert.equal(await page.inputValue(secret), '');
    await page.fill(secret, 'sk-hidden-1');
    await page.press(secret, 'Enter');
    await page.waitForSelector(`${WEB} [data-key="plugin.web.search_api_key"] .badge.ok`, { timeout: T });
    assert.equal(h.configValue!('plugin.web.search_api_key'), 'sk-hidden-1');
    // Read again, the page never has it: the field is empty, its placeholder says a key is set.
    await page.reload();
    await page.waitForSelector(toggle, { timeout: T });
    await page.click(toggle);
    await page.waitForSelector(secret, { timeout: T });
    assert.equal(await page.inputValue(secret), '');
    assert.equal(await page.inputValue(`${row} input`), '12345');
    assert.doesNotMatch(await page.content(), /sk-hidden-1/);
    await shot(page, 'plugin-settings-web');
    assert.deepEqual(errors, []);
  });

  it('in Chinese the expander and the web plugin labels are Chinese', async () => {
    const zh = await openPage(browser, `${h.url}/#/settings/plugins`, { lang: 'zh', theme: 'light', token: h.token });
    try {
      const toggle = `${WEB} [data-testid=plugin-settings-toggle]`;
      await zh.page.waitForSelector(toggle, { timeout: T });
      assert.match((await zh.page.textContent(toggle)) ?? '', /^▸ 设置（\d+）$/);
      await zh.page.click(toggle);
      await zh.page.waitForSelector(`${WEB} [data-key="plugin.web.max_chars"] [data-testid=setting-label]`, { timeout: T });
      const labels = await zh.page.$$eval(`${WEB} [data-testid=setting-label]`, (els) => els.map((e) => e.textContent ?? ''));
      assert.ok(labels.length >= 10, `${labels.length} labels`);
      // Every label has Chinese in it (User-Agent is the header's own name in both languages).
      assert.deepEqual(labels.filter((l) => !/[\u4e00-\u9fff]/.test(l) && l !== 'User-Agent'), []);
      assert.equal(await zh.page.textContent(`${WEB} [data-key="plugin.web.max_chars"] [data-testid=setting-label]`), '网页文字长度（字）');
      await shot(zh.page, 'plugin-settings-web-zh');
      assert.deepEqual(zh.errors, []);
    } finally {
      await zh.page.context().close();
    }
  });
});
