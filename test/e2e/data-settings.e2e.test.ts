/**
 * Settings → Data in a real browser against the real daemon (K-5): an encrypted export is
 * downloaded, checked and imported back through the page with a progress bar and a report; what an
 * archive would put into every session or privileged settings it holds are held back until the
 * person ticks a box for each (decision 0350); a file that is not an export shows its coded error
 * and changes nothing.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, CHROMIUM, launchBrowser, openPage, recordToasts, shot, startHarness, type Harness } from './support/harness.js';

const T = 60_000;
const skip = existsSync(CHROMIUM) ? false : `chromium not found at ${CHROMIUM} (apt-get install -y chromium fonts-wqy-microhei)`;

describe('Settings → Data: export and import in the browser', { skip, timeout: 180_000 }, () => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let dir: string;
  /** Set by a test: an import reaching its commit point (write gate closed) waits for what this returns. */
  let holdAtCommit: (() => Promise<void>) | undefined;

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    dir = mkdtempSync(join(tmpdir(), 'ha-data-ui-'));
    // scrypt at 2^10, as the other export tests have it: at age's 2^18 each passphrase costs seconds
    // of CPU (three here), and on a loaded 2-core machine the encrypted export outlasted its 60 s wait.
    h = await startHarness({ transfer: { scryptLogN: 10, beforeCommit: () => holdAtCommit?.() } });
    const put = await h.api('/api/v1/memory/knowledge/recipes', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content: '# Pesto\nbasil, pine nuts' }) });
    assert.equal(put.status, 200, await put.text());
    browser = await launchBrowser();
    ({ page, errors } = await openPage(browser, h.url, { lang: 'en', theme: 'light', token: h.token }));
    await page.waitForSelector('[data-testid=conn].open', { timeout: T });
  });
  /** An export of this install through the API (no passphrase), saved as `name` in the test's folder. */
  const exportTo = async (name: string): Promise<string> => {
    const started = (await (await h.api('/api/v1/transfer/export', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json()) as { job: { id: string } };
    for (let i = 0; ; i++) {
      const j = (await (await h.api(`/api/v1/transfer/jobs/${started.job.id}`)).json()) as { job: { state: string } };
      if (j.job.state === 'done') break;
      assert.notEqual(j.job.state, 'failed', JSON.stringify(j));
      assert.ok(i < 600, 'the export did not finish');
      await new Promise((r) => setTimeout(r, 100));
    }
    const file = join(dir, name);
    writeFileSync(file, Buffer.from(await (await h.api(`/api/v1/transfer/jobs/${started.job.id}/download`)).arrayBuffer()));
    return file;
  };

  after(async () => {
    await browser?.close();
    await h?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('exports with a passphrase, then checks and imports that archive with progress and a report', async () => {
    await page.goto(`${h.url}/#/settings/data`);
    await page.waitForSelector('[data-testid=data-section]', { timeout: T });
    // Nothing to check or import before an archive is chosen.
    assert.equal(await page.isDisabled('[data-testid=import-check]'), true);
    assert.equal(await page.isDisabled('[data-testid=import-start]'), true);
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
    // Each part by a name a person reads ("Knowledge graph", not "graph"; the key on hover).
    const report = (await page.textContent('[data-testid=transfer-report]')) ?? '';
    assert.match(report, /Knowledge graph/);
    assert.equal(await page.getAttribute('[data-testid=transfer-report] td[title=graph]', 'title'), 'graph');
    await page.click('[data-testid=import-start]');
    await page.waitForFunction(() => /Imported:/.test(document.querySelector('[data-testid=data-section]')?.textContent ?? ''), undefined, { timeout: T });
    await shot(page, 'settings-data');
    const k = (await (await h.api('/api/v1/memory/knowledge/recipes')).json()) as { item: { content: string } };
    assert.match(k.item.content, /pine nuts/);
    assert.deepEqual(errors, []);
  });

  it('decision 0350: what the checked archive holds back gets an unticked box each; without them it stays out, with "take" the plan comes in, with "privileged" the setting', async () => {
    const json = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const op = async (body: Record<string, unknown>) => {
      const r = (await (await h.api('/api/memory-manager', json(body))).json()) as { ok: boolean; value: unknown };
      assert.equal(r.ok, true, JSON.stringify(r));
      return r.value;
    };
    const setting = async (key: string) => ((await (await h.api(`/api/v1/settings/${key}`)).json()) as { value: { value: unknown } }).value.value;
    const planText = async () => JSON.stringify(await op({ op: 'plan.get', args: {} }));
    const PIN = 'PINNED: water the ferns on Sundays';
    const ROOTS = 'plugin.files.roots';
    const rootsHere = JSON.stringify(await setting(ROOTS));

    // An archive of this install with a pinned plan and a privileged setting (files the agent may open) …
    await op({ op: 'plan.pin', args: { text: PIN } });
    const put = await h.api(`/api/v1/settings/${ROOTS}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ value: ['files', 'notes'] }) });
    assert.equal(put.status, 200, await put.text());
    const file = await exportTo('held.zip');
    // … then both change back here: importing it would change them.
    await op({ op: 'plan.clear', args: {} });
    assert.equal((await h.api(`/api/v1/settings/${ROOTS}`, { method: 'DELETE' })).status, 200);
    assert.doesNotMatch(await planText(), /water the ferns/);
    assert.equal(JSON.stringify(await setting(ROOTS)), rootsHere);

    const checkArchive = async () => {
      await page.click('[data-testid=import-check]');
      await page.waitForFunction(() => /An import would do/.test(document.querySelector('[data-testid=data-section]')?.textContent ?? ''), undefined, { timeout: T });
    };
    const importNow = async () => {
      await page.click('[data-testid=import-start]');
      await page.waitForFunction(() => /Imported:/.test(document.querySelector('[data-testid=data-section]')?.textContent ?? ''), undefined, { timeout: T });
    };
    await page.goto(`${h.url}/#/settings/data`);
    await page.waitForSelector('[data-testid=data-section]', { timeout: T });
    await page.setInputFiles('[data-testid=import-file]', file);
    await page.selectOption('[data-testid=import-mode]', 'overwrite');
    await page.fill('[data-testid=import-passphrase]', '');
    // Before the check there is no report, so no box.
    assert.equal(await page.$('[data-testid=import-held]'), null);
    await checkArchive();
    // The check's report names each held thing beside its box, unticked; privileged settings in a warning tone.
    assert.ok(await page.$('[data-testid=import-held-injected]'), (await page.textContent('[data-testid=data-section]')) ?? '');
    const injected = (await page.textContent('[data-testid=import-held-injected]')) ?? '';
    assert.match(injected, /Take what this archive would put into every conversation/);
    assert.match(injected, /the injection plan \(pinned\/plan\.json\)/);
    const privileged = (await page.textContent('[data-testid=import-held-privileged]')) ?? '';
    assert.match(privileged, /Also apply the archive’s privileged settings/);
    assert.match(privileged, /Warning: these settings can name programs to run/);
    assert.match(privileged, /plugin\.files\.roots/);
    assert.equal(await page.isChecked('[data-testid=import-approve-injected]'), false);
    assert.equal(await page.isChecked('[data-testid=import-privileged-settings]'), false);
    await page.locator('[data-testid=import-held]').scrollIntoViewIfNeeded();
    await shot(page, 'settings-data-held');

    // Imported without ticking: the plan and the setting stay out; the report says what was held.
    await importNow();
    assert.doesNotMatch(await planText(), /water the ferns/);
    assert.equal(JSON.stringify(await setting(ROOTS)), rootsHere);
    const done = (await page.textContent('[data-testid=import-held-done]')) ?? '';
    assert.match(done, /the injection plan/);
    assert.match(done, /plugin\.files\.roots/);
    assert.equal(await page.$('[data-testid=import-approve-injected]'), null, 'a box after the import is applied');

    // Checked again and "take" ticked: the plan comes in; the privileged setting, not ticked, does not.
    await checkArchive();
    assert.equal(await page.isChecked('[data-testid=import-approve-injected]'), false);
    await page.check('[data-testid=import-approve-injected]');
    await importNow();
    assert.match(await planText(), /water the ferns on Sundays/);
    assert.equal(JSON.stringify(await setting(ROOTS)), rootsHere);

    // The plan is here now: checked again, only the privileged box is left; ticked, the setting comes in.
    await checkArchive();
    assert.equal(await page.$('[data-testid=import-held-injected]'), null);
    assert.equal(await page.isChecked('[data-testid=import-privileged-settings]'), false);
    await page.check('[data-testid=import-privileged-settings]');
    await importNow();
    assert.deepEqual(await setting(ROOTS), ['files', 'notes']);
    assert.equal(await page.$('[data-testid=import-held-done]'), null);
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
    // "New" with the name of an entry that exists: refused, the entry is as it was, the draft stays.
    await page.click('[data-testid=knowledge-new]');
    await page.fill('[data-testid=knowledge-new-name]', 'wifi');
    await page.fill('[data-testid=knowledge-content]', 'a different network');
    // The same refusal twice is one toast counted up, its words on screen from the first: each showing is counted.
    const toasts = await recordToasts(page);
    await page.click('[data-testid=knowledge-save]');
    await toasts.waitFor('exists already', { kind: 'error', timeout: T });
    assert.equal(((await (await h.api('/api/v1/memory/knowledge/wifi')).json()) as { item: { content: string } }).item.content, 'SSID home-5g, key tulip');
    assert.equal(await page.inputValue('[data-testid=knowledge-content]'), 'a different network');
    // The same name in capitals is the same folder on macOS and Windows: refused as well.
    await page.fill('[data-testid=knowledge-new-name]', 'WIFI');
    await page.click('[data-testid=knowledge-save]');
    await toasts.waitFor('named "wifi" exists already', { kind: 'error', count: 2, timeout: T });
    // Read in Chinese, the daemon's reason is said in Chinese (lib/error-words.ts).
    await page.click('[data-testid=toggle-lang]');
    await page.click('[data-testid=knowledge-save]');
    await toasts.waitFor('已有名为“wifi”的知识条目：打开它来编辑，或换一个名字', { kind: 'error', timeout: T });
    await page.click('[data-testid=toggle-lang]');
    // Another name is fine.
    await page.fill('[data-testid=knowledge-new-name]', 'wifi guest');
    await page.click('[data-testid=knowledge-save]');
    await page.waitForSelector('[data-testid=knowledge-item]:has-text("wifi guest")', { timeout: T });
    assert.deepEqual(errors, []);
  });

  it('decision 0380: a message sent while an import is applied says it waits for the import, then goes in and is answered', async () => {
    const file = await exportTo('while-chatting.zip');
    const importing = async () => ((await (await h.api('/api/v1/status')).json()) as { agent: { importing?: boolean } }).agent.importing;
    assert.equal(await importing(), false);

    let release!: () => void;
    let reached!: () => void;
    const atCommit = new Promise<void>((r) => (reached = r));
    holdAtCommit = () => {
      reached();
      return new Promise<void>((r) => (release = r));
    };
    try {
      await page.goto(`${h.url}/#/settings/data`);
      await page.waitForSelector('[data-testid=data-section]', { timeout: T });
      await page.setInputFiles('[data-testid=import-file]', file);
      await page.selectOption('[data-testid=import-mode]', 'skip');
      await page.fill('[data-testid=import-passphrase]', '');
      await page.click('[data-testid=import-start]');
      await atCommit;
      assert.equal(await importing(), true);
      // The person goes to the chat and writes meanwhile: the send waits, and the bar says why.
      await page.goto(`${h.url}/#/chat`);
      await page.fill('[data-testid=chat-input]', 'a message while importing');
      await page.click('[data-testid=send]');
      await page.waitForSelector('[data-testid=send-waiting].import', { timeout: T });
      assert.match((await page.textContent('[data-testid=send-waiting]')) ?? '', /An import is being applied[\s\S]*no need to send it again/);
      assert.equal(await page.inputValue('[data-testid=chat-input]'), 'a message while importing', 'the text stays until the daemon has it');
      await shot(page, 'chat-waits-for-import');
      // The person goes on typing meanwhile: that is not lost when the first message is taken.
      await page.focus('[data-testid=chat-input]');
      await page.keyboard.press('End');
      await page.keyboard.type(' and one more thing');
    } finally {
      holdAtCommit = undefined;
      release?.();
    }
    // The import finishes: the message goes in once, the hint goes away, the input is cleared.
    await page.waitForSelector('[data-testid=send-waiting]', { state: 'detached', timeout: T });
    await page.waitForFunction(() => Array.from(document.querySelectorAll('[data-testid=turn] .msg.user')).filter((m) => /a message while importing/.test(m.textContent ?? '')).length === 1, undefined, { timeout: T });
    assert.equal(await page.inputValue('[data-testid=chat-input]'), 'and one more thing', 'what was typed after the sent message stays');
    assert.equal(await importing(), false);
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
