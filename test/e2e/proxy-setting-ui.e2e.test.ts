/**
 * The outbound proxy in the WebUI (decision 0670), in a real browser against the real daemon: it
 * is under "Network" in the general settings with a label and help in both languages; a SOCKS or
 * malformed URL is refused under the field in the page's language and the stored value stays; an
 * HTTP proxy URL is saved.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, CHROMIUM, launchBrowser, openPage, shot, startHarness, type Harness } from './support/harness.js';

const T = 20_000;
const skip = existsSync(CHROMIUM) ? false : `chromium not found at ${CHROMIUM} (apt-get install -y chromium fonts-wqy-microhei)`;
const FIELD = '[data-key="core.network.proxy"]';

describe('The outbound proxy setting in the WebUI', { skip, timeout: 180_000 }, () => {
  let h: Harness;
  let browser: Browser;
  let page: Page;

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    h = await startHarness();
    browser = await launchBrowser();
    ({ page } = await openPage(browser, h.url, { lang: 'zh', theme: 'light', token: h.token }));
  });
  after(async () => {
    await browser?.close();
    await h?.stop();
  });

  const stored = async () => ((await (await h.api('/api/v1/settings/core.network.proxy')).json()) as { value: { value: string } }).value.value;

  it('is under "网络" / "Network" with its label; a SOCKS URL is refused in Chinese, an HTTP one is saved', async (t) => {
    if (h.mode !== 'daemon') return t.skip('the setting is the daemon\'s');
    await page.goto(`${h.url}/#/settings/general`);
    await page.fill('[data-testid=settings-filter]', '代理');
    await page.waitForSelector(FIELD, { timeout: T });
    assert.equal(await page.textContent(`${FIELD} [data-testid=setting-label]`), '出站代理');
    assert.match((await page.textContent(FIELD)) ?? '', /本机和局域网地址总是直连/);
    assert.ok(await page.locator('[data-testid=core-settings] .card-head:has-text("网络")').count(), 'the group is headed 网络');

    const input = `${FIELD} input`;
    await page.fill(input, 'socks5://127.0.0.1:7891');
    await page.press(input, 'Enter');
    await page.waitForSelector(`${FIELD} .form-error`, { timeout: T });
    assert.match((await page.textContent(`${FIELD} .form-error`)) ?? '', /不支持 SOCKS 代理/);
    assert.equal(await stored(), '');
    await shot(page, 'proxy-setting-refused-zh');

    await page.fill(input, 'http://127.0.0.1:7890');
    await page.press(input, 'Enter');
    await page.waitForSelector(`${FIELD} .badge.ok`, { timeout: T });
    assert.equal(await stored(), 'http://127.0.0.1:7890');

    await page.click('[data-testid=toggle-lang]');
    await page.fill('[data-testid=settings-filter]', 'proxy');
    await page.waitForSelector(FIELD, { timeout: T });
    assert.equal(await page.textContent(`${FIELD} [data-testid=setting-label]`), 'Outbound proxy');
    assert.ok(await page.locator('[data-testid=core-settings] .card-head:has-text("Network")').count());
    await page.fill(input, 'proxy.example:8080');
    await page.press(input, 'Enter');
    await page.waitForSelector(`${FIELD} .form-error`, { timeout: T });
    assert.match((await page.textContent(`${FIELD} .form-error`)) ?? '', /a proxy is an http:\/\/ or https:\/\/ URL with a host and port/);
    assert.equal(await stored(), 'http://127.0.0.1:7890');
    await page.click('[data-testid=toggle-lang]');
  });
});
