/**
 * What a new-user walk of the WebUI found about failing providers, checked in a real browser against
 * the real daemon (the fake LLM answering HTTP 500): a failed turn says its error once, in the
 * page's language, with a way to the provider settings; a source whose test just failed does not
 * show "ready"; a key stored for a built-in source can be removed; with no model set up, the
 * welcome screen says so before the first message.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, CHROMIUM, launchBrowser, openPage, shot, startHarness, type Harness } from './support/harness.js';
import { until } from '../fixtures/until.js';

const T = 20_000;
const skip = existsSync(CHROMIUM) ? false : `chromium not found at ${CHROMIUM} (apt-get install -y chromium fonts-wqy-microhei)`;
const SID = 'webui:provider-errors';

describe('Failing providers in the WebUI', { skip, timeout: 180_000 }, () => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    h = await startHarness();
    browser = await launchBrowser();
    ({ page, errors } = await openPage(browser, h.url, { lang: 'en', theme: 'light', token: h.token }));
  });
  after(async () => {
    h?.failLlm?.(0);
    await browser?.close();
    await h?.stop();
  });

  it('with no model set up, the welcome screen says so before the first message; once one is, it does not', async () => {
    await h.setLlmAvailable(false);
    try {
      await page.goto(`${h.url}/#/settings/general`);
      await page.goto(`${h.url}/#/chat`);
      await page.getByTestId('setup-card-welcome').waitFor({ timeout: T });
      await shot(page, 'welcome-setup-card');
    } finally {
      await h.setLlmAvailable(true);
    }
    await page.goto(`${h.url}/#/settings/providers`);
    await page.waitForSelector('[data-testid=providers] [data-provider=openai]', { timeout: T });
    await page.goto(`${h.url}/#/chat`);
    await page.getByTestId('setup-card-welcome').waitFor({ state: 'detached', timeout: T });
  });

  it('with no model set up, a conversation says how to connect one in full once — its newest turn —, the earlier turns in one line that opens to the card', async () => {
    const sid = 'webui:no-model-repeats';
    const idle = async () => (((await (await h.api(`/api/v1/sessions/${encodeURIComponent(sid)}/events`)).json()) as { inflight?: string | null }).inflight ?? null) === null;
    await h.setLlmAvailable(false);
    try {
      for (const text of ['hello', 'are you there?', 'what can you do?']) {
        const r = await h.api('/api/v1/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text, sessionId: sid }) });
        assert.equal(r.status, 202);
        await until(idle, 'the turn to end');
      }
      await page.goto(`${h.url}/#/chat/${encodeURIComponent(sid)}`);
      // Read back from the log (a fresh page) and again after a reload: the same three turns, the newest in full.
      for (const pass of ['opened', 'reloaded']) {
        if (pass === 'reloaded') await page.reload();
        await page.locator(`[data-turn-id="${sid}#3"] [data-testid=setup-card]`).waitFor({ timeout: T });
        assert.equal(await page.getByTestId('setup-card').count(), 1, `${pass}: one full card`);
        assert.deepEqual(await page.$$eval('[data-testid=setup-card-compact]', (els) => els.map((e) => [e.closest('[data-testid=turn]')?.getAttribute('data-turn-id'), e.tagName, e.textContent?.trim()])), [
          [`${sid}#1`, 'BUTTON', 'No model connected — how to connect one'],
          [`${sid}#2`, 'BUTTON', 'No model connected — how to connect one'],
        ], pass);
      }
      await shot(page, 'no-model-compact-cards');
      // The one line opens to the whole card, from the keyboard too.
      await page.locator(`[data-turn-id="${sid}#1"] [data-testid=setup-card-compact]`).focus();
      await page.keyboard.press('Enter');
      await page.locator(`[data-turn-id="${sid}#1"] [data-testid=setup-card] a[href="#/settings/providers"]`).waitFor({ timeout: T });
      // Another message: it says it in full now, the one before it in one line.
      const r = await h.api('/api/v1/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'one more', sessionId: sid }) });
      assert.equal(r.status, 202);
      await page.locator(`[data-turn-id="${sid}#4"] [data-testid=setup-card]`).waitFor({ timeout: T });
      await page.locator(`[data-turn-id="${sid}#3"] [data-testid=setup-card-compact]`).waitFor({ timeout: T });
    } finally {
      await h.setLlmAvailable(true);
    }
  });

  it('a turn whose every source failed shows its error once, with a way to the provider settings', async (t) => {
    if (!h.failLlm) return t.skip('needs the daemon harness');
    h.failLlm(500);
    try {
      const r = await h.api('/api/v1/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'What is 2+2?', sessionId: SID }) });
      assert.equal(r.status, 202);
      await page.goto(`${h.url}/#/chat/${encodeURIComponent(SID)}`);
      const err = page.getByTestId('turn-error');
      await err.waitFor({ timeout: T });
      const turn = page.locator('[data-testid=turn]').last();
      const text = (await turn.textContent()) ?? '';
      assert.equal(text.split('All LLM sources failed').length - 1, 1, `said once: ${text}`);
      assert.doesNotMatch(text, /Sorry, this turn failed/);
      assert.match((await err.textContent()) ?? '', /^This turn failed:/);
      await shot(page, 'turn-failed-once');
      // In Chinese the frame is Chinese (the provider's own words stay as they came).
      const zh = await openPage(browser, `${h.url}/#/chat/${encodeURIComponent(SID)}`, { lang: 'zh', token: h.token });
      await zh.page.getByTestId('turn-error').waitFor({ timeout: T });
      assert.match((await zh.page.getByTestId('turn-error').textContent()) ?? '', /^这一轮失败了：/);
      assert.match((await zh.page.getByTestId('turn-error-providers').textContent()) ?? '', /LLM 来源/);
      await zh.page.context().close();
      await page.getByTestId('turn-error-providers').click();
      await page.waitForSelector('[data-testid=providers] [data-provider=openai]', { timeout: T });

      // A test that fails: the card says so instead of "ready".
      await page.click('[data-testid=test-openai]');
      await page.waitForSelector('[data-provider=openai] .test-result.bad', { timeout: T });
      assert.equal(await page.getByTestId('state-openai').textContent(), 'test failed');
    } finally {
      h.failLlm(0);
    }
    await page.click('[data-testid=test-openai]');
    await page.waitForSelector('[data-provider=openai] .test-result.ok', { timeout: T });
    assert.equal(await page.getByTestId('state-openai').textContent(), 'ready');
  });

  it('a key stored for a built-in source can be removed', async () => {
    await page.goto(`${h.url}/#/settings/providers`);
    await page.click('[data-testid=settings-deepseek]');
    const field = page.locator('[data-key="core.llm.sources.deepseek.api_key"]');
    await field.locator('input').fill('sk-pasted-by-mistake');
    await field.locator('input').press('Enter');
    const keyOf = async () => ((await (await h.api('/api/v1/providers')).json()) as { providers: { name: string; hasKey: boolean }[] }).providers.find((s) => s.name === 'deepseek')?.hasKey;
    await until(async () => (await keyOf()) === true, 'the key stored');
    await field.getByTestId('secret-remove').click();
    await until(async () => (await keyOf()) === false, 'the key removed');
    await field.getByTestId('secret-remove').waitFor({ state: 'detached', timeout: T });
    await shot(page, 'provider-key-removed');
  });

  it('a source added with a key but no model is not ready, and its card asks for the model, not a key; Ollama is never asked for a key', async () => {
    await page.goto(`${h.url}/#/settings/providers`);
    await page.click('[data-testid=add-source]');
    await page.fill('[data-testid=source-name]', 'nomodel');
    await page.fill('[data-testid=source-url]', 'http://127.0.0.1:9/v1');
    await page.fill('[data-testid=source-key]', 'sk-something');
    await page.click('[data-testid=source-save]');
    await page.getByTestId('state-nomodel').waitFor({ timeout: T });
    assert.equal(await page.getByTestId('state-nomodel').textContent(), 'not configured');
    assert.equal(await page.getByTestId('settings-nomodel').textContent(), 'Set model');
    assert.notEqual(await page.getByTestId('settings-ollama').textContent(), 'Add key');
    await page.click('[data-testid=remove-source-nomodel]');
    await page.click('[data-testid=source-remove-ok]');
    await page.getByTestId('state-nomodel').waitFor({ state: 'detached', timeout: T });
  });

  it('logged no client errors', () => {
    assert.deepEqual(errors, []);
  });
});
