/**
 * Settings → Channels in a real browser against the real daemon: the Telegram card shows its
 * status, the bot token field is masked, "test connection" reaches a fake Bot API on loopback;
 * turning on browser notifications and setting a reminder in the chat shows a system
 * notification when the timer's answer arrives (the WebUI is the default channel). In Chinese, an
 * unreachable Bot API's status, its countdown to the next try and the connection test's failure are
 * said in Chinese (decision 0680).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Browser, Page, Route } from 'playwright-core';
import { ARTIFACTS, CHROMIUM, launchBrowser, openPage, shot, startHarness, type Harness } from './support/harness.js';
import { until } from '../fixtures/until.js';
import { startFakeBotApi, type FakeBotApi } from '../../src/builtins/telegram/__fixtures__/fake-bot-api.js';

const T = 20_000;
/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

const skip = existsSync(CHROMIUM) ? false : `chromium not found at ${CHROMIUM} (apt-get install -y chromium fonts-wqy-microhei)`;

describe('Channels settings and browser notifications', { skip, timeout: 120_000 }, () => {
  let h: Harness;
  let tg: FakeBotApi;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  const set = async (key: string, value: unknown) => {
    const r = await h.api(`/api/v1/settings/${key}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ value }) });
    assert.equal(r.status, 200, `${key}: ${await r.text()}`);
  };

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    tg = await startFakeBotApi();
    h = await startHarness();
    await set('plugin.telegram.api_root', tg.url);
    await set('plugin.telegram.allowed_user_ids', ['4242']);
    await set('plugin.telegram.poll_timeout_s', 1);
    await set('plugin.telegram.bot_token', tg.token);
    browser = await launchBrowser();
    ({ page, errors } = await openPage(browser, h.url, { lang: 'en', theme: 'light', token: h.token }));
    // A recording stand-in for the Notification API (headless chromium shows no real ones).
    // (A string, not a function: the test runner's transpiler would add helpers the page lacks.)
    await page.context().addInitScript(`
      window.__shown = [];
      window.Notification = class {
        static permission = 'default';
        static async requestPermission() { window.Notification.permission = 'granted'; return 'granted'; }
        constructor(title, o) { window.__shown.push({ title, body: o.body }); }
      };
    `);
    await page.reload();
    await page.waitForSelector('[data-testid=conn].open', { timeout: T });
  });
  after(async () => {
    await browser?.close();
    await h?.stop();
    await tg?.close();
  });

  it('shows the Telegram card with its status and a masked token; the connection test reaches the bot', async () => {
    await page.goto(`${h.url}/#/settings/channels`);
    await page.waitForSelector('[data-testid=channel-telegram]', { timeout: T });
    await page.waitForFunction(() => /running/.test(document.querySelector('[data-testid=channel-telegram-status]')?.textContent ?? ''), undefined, { timeout: T });
    const tokenInput = page.locator('[data-key="plugin.telegram.bot_token"] input');
    assert.equal(await tokenInput.getAttribute('type'), 'password');
    assert.equal(await tokenInput.inputValue(), '', 'the secret is never put in the page');
    assert.ok(!(await page.content()).includes(tg.token.split(':')[1]), 'the token is nowhere in the DOM');
    await page.click('[data-testid=channel-telegram-test]');
    await page.waitForSelector('[data-testid=channel-telegram-result].ok', { timeout: T });
    assert.match((await page.textContent('[data-testid=channel-telegram-result]')) ?? '', /@homeagent_test_bot/);
    assert.match((await page.textContent('[data-testid=channel-qq-status]')) ?? '', /off/);
    await shot(page, 'settings-channels');
  });

  it('a reminder set in the chat arrives as a browser notification (WebUI is the default channel)', async () => {
    await page.click('[data-testid=notify-enable]');
    await page.waitForFunction(() => /on/.test(document.querySelector('[data-testid=notify-permission]')?.textContent ?? ''), undefined, { timeout: T });
    assert.equal(await page.inputValue('[data-testid=notify-channel]'), 'webui');
    h.script({ rounds: [{ text: '', tool: { name: 'timer_create', args: { text: 'stretch your legs', when: 'in 1 second' }, result: '' } }, { text: 'I will remind you.' }] });
    const res = await h.api('/api/v1/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'remind me to stretch in a second' }) });
    assert.equal(res.status, 202);
    await page.waitForFunction(() => ((window as unknown as { __shown: unknown[] }).__shown ?? []).length > 0, undefined, { timeout: T });
    const shown = await page.evaluate(() => (window as unknown as { __shown: { title: string; body: string }[] }).__shown);
    assert.equal(shown[0].title, 'HomeAgent');
    assert.ok(shown[0].body.length > 0);
    assert.ok(!shown.some((s) => s.body === 'I will remind you.'), 'the chat turn itself is no notification');
  });

  it('the allowed ids are chips to add and remove, not JSON to type; a bad id is refused with the reason and changes nothing', async () => {
    const field = page.locator('[data-key="plugin.telegram.allowed_user_ids"]');
    const stored = async () => ((await (await h.api('/api/v1/settings/plugin.telegram.allowed_user_ids')).json()) as { value: { value: string[] } }).value.value;
    await field.locator('[data-testid=list-item]', { hasText: '4242' }).waitFor({ timeout: T });
    assert.equal(await field.locator('textarea').count(), 0);
    // Pasted, several at once, one of them there already.
    await field.locator('[data-testid=list-add-input]').fill('5151, 6262 4242');
    await field.locator('[data-testid=list-add-input]').press('Enter');
    await field.locator('[data-testid=list-item]', { hasText: '6262' }).waitFor({ timeout: T });
    await until(async () => JSON.stringify(await stored()) === JSON.stringify(['4242', '5151', '6262']), 'the list to be stored');
    await field.locator('[data-testid=list-item]', { hasText: '5151' }).locator('[data-testid=list-remove]').click();
    await field.locator('[data-testid=list-item]', { hasText: '5151' }).waitFor({ state: 'detached', timeout: T });
    await until(async () => JSON.stringify(await stored()) === JSON.stringify(['4242', '6262']), 'the list to be stored');
    await field.locator('[data-testid=list-add-input]').fill('not-an-id');
    await field.locator('[data-testid=list-add]').click();
    await field.locator('.form-error').waitFor({ timeout: T });
    assert.deepEqual(await stored(), ['4242', '6262'], 'refused: nothing changed');
    assert.equal(await field.locator('[data-testid=list-item]').count(), 2);
    assert.equal(await field.locator('[data-testid=list-add-input]').inputValue(), 'not-an-id', 'what was typed stays, to be mended');
    // The reason names what was typed, in words — not the key, an index or a regular expression.
    assert.equal((await field.locator('.form-error').textContent())?.trim(), '"not-an-id": a Telegram user id is a number such as "123456789" (or "telegram:123456789", as in your own ids)');
    await shot(page, 'settings-allowed-ids');
    // Written as in the owner ids: kept as the number, once (4242 is there already).
    await field.locator('[data-testid=list-add-input]').fill('telegram:8484 telegram:4242');
    await field.locator('[data-testid=list-add-input]').press('Enter');
    await until(async () => JSON.stringify(await stored()) === JSON.stringify(['4242', '6262', '8484']), 'the list to be stored');
    await until(async () => JSON.stringify(await field.locator('[data-testid=list-item]').allTextContents()) === JSON.stringify(['4242×', '6262×', '8484×']), 'the chips to show the stored list');
    await field.locator('[data-testid=list-item]', { hasText: '8484' }).locator('[data-testid=list-remove]').click();
    await until(async () => JSON.stringify(await stored()) === JSON.stringify(['4242', '6262']), 'the removal to be stored');
    // Two quick removals both count (the second builds on the first, not on the list shown before).
    await field.locator('[data-testid=list-add-input]').fill('7373');
    await field.locator('[data-testid=list-add-input]').press('Enter');
    await field.locator('[data-testid=list-item]', { hasText: '7373' }).waitFor({ timeout: T });
    await field.locator('[data-testid=list-item]', { hasText: '6262' }).locator('[data-testid=list-remove]').click();
    await field.locator('[data-testid=list-item]', { hasText: '7373' }).locator('[data-testid=list-remove]').click();
    await field.locator('[data-testid=list-item]', { hasText: '7373' }).waitFor({ state: 'detached', timeout: T });
    await until(async () => JSON.stringify(await stored()) === JSON.stringify(['4242']), 'both removals to be stored');
    assert.deepEqual(await field.locator('[data-testid=list-item]').allTextContents(), ['4242×']);
    // An id entered while the one before is still being saved goes in after it: the Enter is not
    // lost, and what was typed meanwhile is not cleared away by the first save's end.
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let held = false;
    const holdFirstSave = async (route: Route) => {
      if (route.request().method() === 'PUT' && !held) {
        held = true;
        await released;
      }
      await route.continue().catch(() => undefined);
    };
    const path = '**/api/v1/settings/plugin.telegram.allowed_user_ids';
    await page.route(path, holdFirstSave);
    try {
      const firstSave = page.waitForRequest((r) => r.method() === 'PUT' && r.url().endsWith('/plugin.telegram.allowed_user_ids'), { timeout: T });
      await field.locator('[data-testid=list-add-input]').fill('9191');
      await field.locator('[data-testid=list-add-input]').press('Enter');
      await firstSave;
      await field.locator('[data-testid=list-item]', { hasText: '9191' }).waitFor({ timeout: T });
      await field.locator('[data-testid=list-add-input]').fill('9292');
      await field.locator('[data-testid=list-add-input]').press('Enter');
      release();
      await until(async () => JSON.stringify(await stored()) === JSON.stringify(['4242', '9191', '9292']), 'both ids to be stored');
      await until(async () => JSON.stringify(await field.locator('[data-testid=list-item]').allTextContents()) === JSON.stringify(['4242×', '9191×', '9292×']), 'the chips to show both');
      await until(async () => (await field.locator('[data-testid=list-add-input]').inputValue()) === '', 'the box to be empty once both are in');
    } finally {
      release();
      await page.unroute(path, holdFirstSave);
    }
    // Your own ids: the reason says what an id looks like.
    const owner = page.locator('[data-key="core.identity.owner_ids"]');
    await owner.locator('[data-testid=list-add-input]').fill('42');
    await owner.locator('[data-testid=list-add-input]').press('Enter');
    assert.match((await owner.locator('.form-error').textContent({ timeout: T })) ?? '', /^"42": an id is the chat app and your id there, such as "telegram:42"/);
  });

  it('the card says where notices go; a failing default channel says so in the select and where messages go instead', async () => {
    await page.goto(`${h.url}/#/settings/channels`);
    // No id of the owner on Telegram: notices stay in the WebUI, never to the allowed user (decision 0650).
    await page.waitForSelector('[data-testid=channel-telegram-notices]', { timeout: T });
    assert.match((await page.textContent('[data-testid=channel-telegram-notices]')) ?? '', /No id of yours on Telegram yet: notices stay in the WebUI/);
    await set('core.notify.channel', 'telegram');
    // A token Telegram rejects: the channel is registered but failing.
    await set('plugin.telegram.bot_token', '123456:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    await page.reload();
    await page.waitForFunction(() => /error/.test(document.querySelector('[data-testid=channel-telegram-status]')?.textContent ?? ''), undefined, { timeout: T });
    await page.reload();
    await page.waitForSelector('[data-testid=notify-channel-failing]', { timeout: T });
    assert.equal(await page.inputValue('[data-testid=notify-channel]'), 'telegram');
    assert.equal((await page.textContent('[data-testid=notify-channel] option[value=telegram]'))?.trim(), 'Telegram (error)');
    assert.match((await page.textContent('[data-testid=notify-channel-failing]')) ?? '', /Telegram is failing — messages go to WebUI/);
    // On a phone the connection test's (long) failure wraps inside the card instead of running off it.
    await page.setViewportSize({ width: 390, height: 800 });
    await page.click('[data-testid=channel-telegram-test]');
    await page.waitForSelector('[data-testid=channel-telegram-result]:not(.ok)', { timeout: T });
    const fits = await page.evaluate(() => {
      const r = document.querySelector('[data-testid=channel-telegram-result]')!.getBoundingClientRect();
      const card = document.querySelector('[data-testid=channel-telegram]')!.getBoundingClientRect();
      return { right: r.right, cardRight: card.right };
    });
    assert.ok(fits.right <= fits.cardRight, `the result ends at ${fits.right}, the card at ${fits.cardRight}`);
    await page.setViewportSize({ width: 1360, height: 860 });
    await set('plugin.telegram.bot_token', tg.token);
    await set('core.notify.channel', 'webui');
  });

  it('in Chinese, an unreachable Bot API is said in Chinese, counts down to its next try, and so is the connection test (decision 0680)', async () => {
    await set('plugin.telegram.api_root', `http://127.0.0.1:${await closedPort()}`);
    const zh = await openPage(browser, h.url, { lang: 'zh', theme: 'light', token: h.token });
    try {
      const p = zh.page;
      await p.goto(`${h.url}/#/settings/channels`);
      const detail = p.locator('[data-testid=channel-telegram-detail]');
      const long = { tries: 300, everyMs: 100 };
      await p.waitForSelector('[data-testid=channel-telegram-detail]', { timeout: T });
      await until(async () => /连不上 Bot API/.test((await detail.textContent()) ?? ''), 'the status in Chinese', long);
      assert.equal((await detail.textContent())?.trim(), 'Telegram getMe：连不上 Bot API：连接被拒绝（ECONNREFUSED）。请检查网络或“出站代理”设置，或“Bot API 服务器”设置。');
      assert.match((await p.textContent('[data-testid=channel-telegram-status]')) ?? '', /重试中/);
      // "N 秒后重试" counts down: once a wait of a few seconds is shown, a smaller number follows
      // before the next try (a frozen text would only ever change to the next, longer wait).
      const seconds = async () => Number(/^(\d+) 秒后重试$/.exec((await p.evaluate(() => document.querySelector('[data-testid=channel-telegram-retry]')?.textContent ?? '')).trim())?.[1] ?? NaN);
      await until(async () => (await seconds()) >= 3, 'a wait of three seconds or more', long);
      const first = await seconds();
      await until(async () => {
        const n = await seconds();
        return n >= 1 && n < first;
      }, `the countdown to go below ${first} s`, long);
      await p.click('[data-testid=channel-telegram-test]');
      await p.waitForSelector('[data-testid=channel-telegram-result]:not(.ok)', { timeout: T });
      assert.equal((await p.textContent('[data-testid=channel-telegram-result]'))?.trim(), 'Telegram getMe：连不上 Bot API：连接被拒绝（ECONNREFUSED）。请检查网络或“出站代理”设置，或“Bot API 服务器”设置。');
      await shot(p, 'settings-channels-unreachable-zh');
      assert.deepEqual(zh.errors, []);
    } finally {
      await zh.page.context().close();
      await set('plugin.telegram.api_root', tg.url);
    }
  });

  it('an id linked to the owner under People is shown under "Your ids on chat apps" too (the two places seemed to disagree)', async () => {
    const post = (path: string, body: unknown) => h.api(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal((await post('/api/v1/people/link', { ids: ['qq:10001'], to: 'owner' })).status, 200);
    try {
      await page.goto(`${h.url}/#/settings/channels`);
      await page.waitForSelector('[data-testid=owner-linked-ids]', { timeout: T });
      assert.match((await page.textContent('[data-testid=owner-linked-ids]')) ?? '', /Also yours, linked to you under People: qq:10001\./);
    } finally {
      assert.equal((await post('/api/v1/people/unlink', { id: 'qq:10001' })).status, 200);
    }
  });

  it('logged no client errors', () => {
    assert.deepEqual(errors, []);
  });
});
