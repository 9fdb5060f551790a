/**
 * Settings → Data in a real browser against the real daemon (K-5): an encrypted export is
 * downloaded, checked and imported back through the page with a progress bar and a report; a file
 * that is not an export shows its coded error and changes nothing.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, CHROMIUM, launchBrowser, openPage, shot, startHarness, type Harness } from './support/harness.js';

const T = 60_000;
const skip = existsSync(CHROMIUM) ? false : `chromium not found at ${CHROMIUM} (apt-get install -y chromium fonts-wqy-microhei)`;

describe('Settings → Data: export and import in the browser', { skip, timeout: 180_000 }, () => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let dir: string;

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    dir = mkdtempSync(join(tmpdir(), 'ha-data-ui-'));
    h = await startHarness();
    const put = await h.api('/api/v1/memory/knowledge/recipes', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content: '# Pesto\nbasil, pine nuts' }) });
    assert.equal(put.status, 200, await put.text());
    browser = await launchBrowser();
    ({ page, errors } = await openPage(browser, h.url, { lang: 'en', theme: 'light', token: h.token }));
    await page.waitForSelector('[data-testid=conn].open', { timeout: T });
  });
  after(async () => {
    await browser?.close();
    await h?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('exports with a passphrase, then checks and imports that archive with progress and a report', async () => {
    await page.goto(`${h.url}/#/settings/data`);
    await page.waitForSelector('[data-testid=data-section]', { timeout: T });
    await page.fill('[data-testid=export-passphrase]', 'tulip-7');
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: T }), page.click('[data-testid=export-start]')]);
    assert.match(download.suggestedFilename(), /^homeagent-export-.*\.zip\.age$/);
    const file = join(dir, download.suggestedFilename());
    await download.saveAs(file);
    assert.equal(readFileSync(file).subarray(0, 21).toString('latin1'), 'age-encryption.org/v1');
    await page.waitForSelector('[data-testid=export-done]', { timeout: T });

    // The knowledge entry changes here; importing with "take the archive's" brings it back.
    const put = await h.api('/api/v1/memory/knowledge/recipes', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content: '# Pesto\nchanged' }) });
    assert.equal(put.status, 200);
    await page.setInputFiles('[data-testid=import-file]', file);
    await page.selectOption('[data-testid=import-mode]', 'overwrite');
    await page.click('[data-testid=import-check]');
    await page.waitForSelector('[data-testid=transfer-error]', { timeout: T });
    // The code is the card's tooltip; the text is the message alone, under a styled "Import failed".
    assert.equal(await page.getAttribute('[data-testid=transfer-error]', 'title'), 'TRANSFER_PASSPHRASE_REQUIRED');
    assert.match((await page.textContent('[data-testid=transfer-error]')) ?? '', /^Import failed/);
    assert.doesNotMatch((await page.textContent('[data-testid=transfer-error]')) ?? '', /TRANSFER_PASSPHRASE_REQUIRED/);
    await page.fill('[data-testid=import-passphrase]', 'tulip-7');
    await page.click('[data-testid=import-check]');
    await page.waitForSelector('[data-testid=transfer-report]', { timeout: T });
    assert.match((await page.textContent('[data-testid=data-section]')) ?? '', /An import would do/);
    await page.click('[data-testid=import-start]');
    await page.waitForFunction(() => /Imported:/.test(document.querySelector('[data-testid=data-section]')?.textContent ?? ''), undefined, { timeout: T });
    await shot(page, 'settings-data');
    const k = (await (await h.api('/api/v1/memory/knowledge/recipes')).json()) as { item: { content: string } };
    assert.match(k.item.content, /pine nuts/);
    assert.deepEqual(errors, []);
  });

  it("Settings → Knowledge shows an entry's history (who changed it) and undoes an edit (K-3)", async () => {
    const put = (content: string) => h.api('/api/v1/memory/knowledge/wifi', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content }) });
    assert.equal((await put('SSID home-5g, key tulip')).status, 200);
    assert.equal((await put('SSID home-5g, key orchid')).status, 200);
    page.once('dialog', (d) => void d.accept());
    await page.goto(`${h.url}/#/settings/knowledge`);
    await page.click('[data-testid=knowledge-item]:has-text("wifi")');
    await page.waitForSelector('[data-testid=knowledge-entry] [data-testid=history-row]', { timeout: T });
    const rows = await page.$$eval('[data-testid=knowledge-entry] [data-testid=history-row]', (els) => els.map((e) => e.textContent ?? ''));
    assert.equal(rows.length, 2, rows.join(' | '));
    assert.match(rows[0], /knowledge · updated[\s\S]*edited knowledge entry "wifi"[\s\S]*you/);
    assert.match(rows[1], /knowledge · created/);
    await page.click('[data-testid=knowledge-entry] [data-testid=history-row]:first-child [data-testid=history-undo]');
    await page.waitForFunction(() => /key tulip/.test(document.querySelector('[data-testid=knowledge-entry]')?.textContent ?? ''), undefined, { timeout: T });
    await shot(page, 'knowledge-history');
    const k = (await (await h.api('/api/v1/memory/knowledge/wifi')).json()) as { item: { content: string } };
    assert.equal(k.item.content, 'SSID home-5g, key tulip');
    assert.deepEqual(errors, []);
  });

  it('shows the coded error of a file that is not an export; nothing changes', async () => {
    const bad = join(dir, 'notes.zip');
    writeFileSync(bad, 'just some text');
    await page.goto(`${h.url}/#/settings/data`);
    await page.waitForSelector('[data-testid=data-section]', { timeout: T });
    await page.setInputFiles('[data-testid=import-file]', bad);
    await page.click('[data-testid=import-start]');
    await page.waitForSelector('[data-testid=transfer-error]', { timeout: T });
    // The code is the card's tooltip; the text is the message alone, under a styled "Import failed".
    assert.equal(await page.getAttribute('[data-testid=transfer-error]', 'title'), 'TRANSFER_NOT_AN_EXPORT');
    assert.match((await page.textContent('[data-testid=transfer-error]')) ?? '', /^Import failed/);
    assert.doesNotMatch((await page.textContent('[data-testid=transfer-error]')) ?? '', /TRANSFER_NOT_AN_EXPORT/);
    const k = (await (await h.api('/api/v1/memory/knowledge/recipes')).json()) as { item: { content: string } };
    assert.match(k.item.content, /pine nuts/);
    const status = await h.api('/api/v1/memory/stats');
    assert.equal(status.status, 200, 'the daemon keeps answering');
  });
});
