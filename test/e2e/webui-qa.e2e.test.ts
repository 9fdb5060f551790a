/**
 * Defects a QA walk of the WebUI found, each checked in a real browser against the real daemon: a
 * conversation opens at its newest message and stays there while what it shows grows (until the
 * person scrolls up); settings pages follow `config_changed` without overwriting a field being
 * edited; the provider cards fit a phone; the knowledge search says what it searches in full.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, CHROMIUM, launchBrowser, openPage, recordToasts, shot, startHarness, type Harness } from './support/harness.js';
import { until } from '../fixtures/until.js';

const T = 20_000;
const skip = existsSync(CHROMIUM) ? false : `chromium not found at ${CHROMIUM} (apt-get install -y chromium fonts-wqy-microhei)`;
const SID = 'webui:qa-scroll';

describe('WebUI QA fixes', { skip, timeout: 180_000 }, () => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const idle = async () => (((await (await h.api(`/api/v1/sessions/${encodeURIComponent(SID)}/events`)).json()) as { inflight?: string }).inflight ?? null) === null;
  const chat = async (text: string, reply: string) => {
    h.script({ rounds: [{ text: reply }] });
    const r = await h.api('/api/v1/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text, sessionId: SID }) });
    assert.equal(r.status, 202);
    await until(idle, 'the turn to end');
  };
  const scrollState = () => page.getByTestId('chat-scroll').evaluate((e) => ({ top: e.scrollTop, fromBottom: e.scrollHeight - e.scrollTop - e.clientHeight }));

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    h = await startHarness();
    browser = await launchBrowser();
    ({ page, errors } = await openPage(browser, h.url, { lang: 'en', theme: 'light', token: h.token }));
  });
  after(async () => {
    await browser?.close();
    await h?.stop();
  });

  it('a conversation opens at its newest message and stays there while its content grows, until the person scrolls up', async () => {
    const long = (n: number) => `## Answer ${n}\n\n${Array.from({ length: 8 }, (_, i) => `- point ${i + 1} of answer ${n}: ${'words '.repeat(12)}`).join('\n')}`;
    for (let n = 1; n <= 6; n++) await chat(`question ${n}`, long(n));
    await page.goto(`${h.url}/#/chat/${encodeURIComponent(SID)}`);
    await page.reload();
    await page.locator(`[data-turn-id="${SID}#6"] .msg.assistant`).waitFor({ timeout: T });
    await until(async () => (await scrollState()).fromBottom < 4, 'the chat to open at its bottom');
    // What the turns show grows after they rendered (a web font arriving, Markdown laid out again):
    // the view keeps to the newest message.
    const height = () => page.getByTestId('chat-scroll').evaluate((e) => e.scrollHeight);
    const short = await height();
    await page.addStyleTag({ content: '.turn .bubble { padding-bottom: 120px !important; }' });
    assert.ok((await height()) > short, 'the content grew');
    // The view follows on the next resize notice: a frame or more later on a busy machine.
    await until(async () => (await scrollState()).fromBottom < 4, 'the view to keep to the newest message after the content grew');
    await shot(page, 'qa-chat-opens-at-newest');
    // The person scrolls up: growth no longer moves the view.
    await page.getByTestId('chat-scroll').hover();
    await page.mouse.wheel(0, -600);
    await until(async () => (await scrollState()).fromBottom > 300, 'the wheel to scroll up');
    // A wheel scroll may still be gliding (smooth scrolling, a busy machine): measure once it rests.
    let last = -1;
    await until(async () => {
      const top = (await scrollState()).top;
      const still = top === last;
      last = top;
      return still;
    }, 'the scroll to come to rest', { everyMs: 150 });
    const before = (await scrollState()).top;
    await page.addStyleTag({ content: '.turn .bubble { padding-bottom: 160px !important; }' });
    await page.waitForTimeout(400);
    assert.ok(Math.abs((await scrollState()).top - before) < 2, 'the view stays where the person scrolled');
    assert.deepEqual(errors, []);
  });

  it('a pasted log of thousands of lines is folded to its start, and opens in full; a message over the limit says to attach it as a file and stays in the box', async () => {
    const sid = 'webui:qa-long-paste';
    const lines = Array.from({ length: 3000 }, (_, i) => `log line ${i + 1}: ${'x'.repeat(20)}`).join('\n');
    h.script({ rounds: [{ text: 'That is a long log.' }] });
    const r = await h.api('/api/v1/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: lines, sessionId: sid }) });
    assert.equal(r.status, 202);
    await page.goto(`${h.url}/#/chat/${encodeURIComponent(sid)}`);
    const msg = page.locator('[data-testid=long-text]');
    await msg.waitFor({ timeout: T });
    const folded = (await msg.textContent()) ?? '';
    assert.match(folded, /log line 1:/);
    assert.doesNotMatch(folded, /log line 3000:/, 'folded to its start');
    assert.ok(((await msg.boundingBox())?.height ?? 0) < 800, 'the folded message is a screen, not a scroll of its own');
    await page.click('[data-testid=long-text-toggle]');
    assert.match((await msg.textContent()) ?? '', /log line 3000:/);
    await page.click('[data-testid=long-text-toggle]');
    assert.doesNotMatch((await msg.textContent()) ?? '', /log line 3000:/);
    // Over the route's limit: the page says so in words, before sending, and keeps the text.
    const huge = 'y'.repeat(200_001);
    await page.fill('[data-testid=chat-input]', huge);
    await page.click('[data-testid=send]');
    await page.waitForSelector('.toast.error:has-text("Attach the text as a file instead")', { timeout: T });
    assert.equal((await page.inputValue('[data-testid=chat-input]')).length, huge.length);
    await page.fill('[data-testid=chat-input]', '');
    assert.deepEqual(errors, []);
  });

  const setSetting = async (key: string, value: unknown) => {
    const r = await h.api(`/api/v1/settings/${encodeURIComponent(key)}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ value }) });
    assert.equal(r.status, 200, await r.text());
  };

  it('Settings → General follows a setting changed elsewhere, and keeps a field the person is editing', async () => {
    await page.goto(`${h.url}/#/settings/general`);
    const field = page.locator('[data-key="core.agent.name"] input');
    await field.waitFor({ timeout: T });
    // As `waiter config set core.agent.name Jeeves` does it: the daemon publishes config_changed.
    await setSetting('core.agent.name', 'Jeeves');
    await until(async () => (await field.inputValue()) === 'Jeeves', 'the field to show the new value');
    // The person is typing: a change made elsewhere meanwhile does not overwrite their text.
    await field.fill('Alfred');
    await setSetting('core.agent.name', 'Bertie');
    const note = page.locator('[data-key="core.agent.name"] [data-testid=changed-elsewhere]');
    await note.waitFor({ timeout: T });
    assert.match((await note.textContent()) ?? '', /Bertie/);
    assert.equal(await field.inputValue(), 'Alfred');
    await shot(page, 'qa-settings-changed-elsewhere');
    // "Use that value" takes the stored one.
    await note.locator('[data-testid=take-stored]').click();
    assert.equal(await field.inputValue(), 'Bertie');
    assert.equal(await note.count(), 0);
  });

  it('Settings → General lists the LLM source order by the sources\' names, each id beside it as a hint, in both languages', async () => {
    const order = async () => ((await (await h.api(`/api/v1/settings/${encodeURIComponent('core.llm.order')}`)).json()) as { value: { value: string[] } }).value.value;
    await page.goto(`${h.url}/#/settings/general`);
    const chips = page.locator('[data-key="core.llm.order"] [data-testid=list-item]');
    const qwen = chips.and(page.locator('[data-item=qwen]'));
    // The chip says the name the Providers page gives the source; the id it stores is its hint.
    await qwen.locator('[data-testid=list-item-id]').waitFor({ timeout: T });
    assert.equal(await qwen.evaluate((el) => el.firstChild?.textContent), 'Qwen (DashScope)');
    assert.equal(await qwen.locator('[data-testid=list-item-id]').textContent(), 'qwen');
    assert.equal(await chips.and(page.locator('[data-item=ollama]')).evaluate((el) => el.firstChild?.textContent), 'Ollama (local)');
    await shot(page, 'qa-settings-source-order');
    // Removed by its name, and typed back as the person reads it: the id is what is stored.
    assert.equal(await qwen.locator('[data-testid=list-remove]').getAttribute('aria-label'), 'Remove Qwen (DashScope)');
    await qwen.locator('[data-testid=list-remove]').click();
    await until(async () => !(await order()).includes('qwen'), 'qwen to leave the order');
    await qwen.waitFor({ state: 'detached', timeout: T });
    await page.locator('[data-key="core.llm.order"] [data-testid=list-add-input]').fill('Qwen');
    await page.locator('[data-key="core.llm.order"] [data-testid=list-add]').click();
    await until(async () => (await order()).at(-1) === 'qwen', 'qwen to be last in the order');
    // In Chinese, the seeded sources' Chinese names.
    const zh = await openPage(browser, `${h.url}/#/settings/general`, { lang: 'zh', token: h.token });
    try {
      const zq = zh.page.locator('[data-key="core.llm.order"] [data-item=qwen]');
      await zq.locator('[data-testid=list-item-id]').waitFor({ timeout: T });
      assert.equal(await zq.evaluate((el) => el.firstChild?.textContent), '通义千问（阿里云百炼 DashScope）');
      assert.deepEqual(zh.errors, []);
    } finally {
      await zh.page.context().close();
    }
    assert.deepEqual(errors, []);
  });

  it('a reply in another conversation comes as a toast headed by that conversation\'s title, not its id, in both languages', async () => {
    const toastFor = async (lang: 'en' | 'zh', sid: string, text: string, reply: string) => {
      const { page: p, errors: errs } = await openPage(browser, `${h.url}/#/settings/general`, { lang, token: h.token });
      try {
        await p.waitForSelector('[data-testid=conn].open', { timeout: T });
        const toasts = await recordToasts(p);
        h.script({ rounds: [{ text: reply }] });
        const r = await h.api('/api/v1/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text, sessionId: sid }) });
        assert.equal(r.status, 202);
        await toasts.waitFor(reply, { kind: 'info' });
        const shown = (await toasts.seen()).filter((x) => x.text.includes(reply)).map((x) => x.text);
        assert.deepEqual(errs, []);
        return shown;
      } finally {
        await p.context().close();
      }
    };
    const en = await toastFor('en', 'webui:qa-toast', 'Put the kettle on at five', 'The kettle is on.');
    assert.deepEqual(en, ['“Put the kettle on at five”: The kettle is on.']);
    // Renamed since: the toast says the name it has now.
    assert.equal((await h.api('/api/v1/sessions/webui%3Aqa-toast', { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: '下午茶' }) })).status, 200);
    const zh = await toastFor('zh', 'webui:qa-toast', 'And the cups', '杯子也准备好了。');
    assert.deepEqual(zh, ['“下午茶”：杯子也准备好了。']);
  });

  it('a long reply in another conversation opens to its whole text in the toast, and the toast opens that conversation, from the keyboard too (decision 0690)', async () => {
    const sid = 'webui:qa-toast-long';
    const reply = `The packing list for the trip, in full: ${Array.from({ length: 30 }, (_, i) => `item ${i + 1}`).join(', ')}. And the last words: bring the blue umbrella.`;
    const { page: p, errors: errs } = await openPage(browser, `${h.url}/#/settings/general`, { lang: 'en', token: h.token });
    try {
      await p.waitForSelector('[data-testid=conn].open', { timeout: T });
      h.script({ rounds: [{ text: reply }] });
      const r = await h.api('/api/v1/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'What do I pack?', sessionId: sid }) });
      assert.equal(r.status, 202);
      const toast = p.getByTestId('toast').filter({ hasText: 'The packing list' });
      await toast.waitFor({ timeout: T });
      // Its first lines, and a way to the rest (it was cut at 140 characters for good).
      const first = (await toast.locator('.toast-text').textContent()) ?? '';
      assert.match(first, /^“What do I pack\?”: The packing list for the trip, in full: item 1, .*…$/);
      assert.doesNotMatch(first, /blue umbrella/);
      await toast.getByTestId('toast-more').click();
      assert.equal(await toast.locator('.toast-text').textContent(), `“What do I pack?”: ${reply}`);
      await shot(p, 'qa-toast-whole-text');
      // The toast is a button: Tab reaches it, Enter opens the conversation it is about.
      await toast.getByTestId('toast-open').focus();
      await p.keyboard.press('Enter');
      await p.locator(`[data-turn-id="${sid}#1"] .msg.assistant`, { hasText: 'bring the blue umbrella' }).waitFor({ timeout: T });
      assert.equal(new URL(p.url()).hash, `#/chat/${encodeURIComponent(sid)}`);
      await toast.waitFor({ state: 'detached', timeout: T });
      assert.deepEqual(errs, []);
    } finally {
      await p.context().close();
    }
  });

  it('Settings → Memory manager follows a setting changed elsewhere, and keeps a field the person is editing', async () => {
    await page.goto(`${h.url}/#/settings/memory`);
    const field = page.getByTestId('mmset-memoryChars');
    await field.waitFor({ timeout: T });
    await setSetting('plugin.memory-manager.memoryChars', 3210);
    await until(async () => (await field.inputValue()) === '3210', 'the field to show the new value');
    await field.fill('2000');
    await setSetting('plugin.memory-manager.memoryChars', 3333);
    const note = page.locator('[data-testid=changed-elsewhere]');
    await note.waitFor({ timeout: T });
    assert.match((await note.textContent()) ?? '', /3333/);
    assert.equal(await field.inputValue(), '2000');
    // Leaving the field saves the person's edit.
    await field.blur();
    await until(async () => ((await (await h.api('/api/v1/settings')).text()).match(/"key":"plugin\.memory-manager\.memoryChars"[^}]*"value":2000/) !== null), 'the edit to be saved');
    assert.deepEqual(errors, []);
  });

  it('the knowledge search says in full what it searches (its placeholder fits its box), in both languages', async () => {
    for (const lang of ['en', 'zh'] as const) {
      const { page } = await openPage(browser, `${h.url}/#/settings/knowledge`, { lang, token: h.token });
      await page.goto(`${h.url}/#/settings/knowledge`);
      const input = page.locator('.split-list .search-box input');
      await input.waitFor({ timeout: T });
      const fit = await input.evaluate((el: HTMLInputElement) => {
        const cs = getComputedStyle(el);
        const ctx = document.createElement('canvas').getContext('2d')!;
        ctx.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
        return { text: ctx.measureText(el.placeholder).width, room: el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight), placeholder: el.placeholder };
      });
      assert.ok(fit.text <= fit.room, `${lang}: "${fit.placeholder}" needs ${Math.ceil(fit.text)} px, the box has ${fit.room}`);
      await page.context().close();
    }
  });

  it('the Chinese UI names history changes, who made them and plugin kinds in Chinese', async () => {
    const zh = await openPage(browser, `${h.url}/#/settings/history`, { lang: 'zh', token: h.token });
    const page = zh.page;
    await page.goto(`${h.url}/#/settings/history`);
    const badge = page.locator('[data-testid=history-row] > .badge:first-child');
    await badge.first().waitFor({ timeout: T });
    const badges = await badge.allTextContents();
    const actors = await page.locator('[data-testid=history-row] > .muted.small').allTextContents();
    for (const b of badges) assert.match(b, /[\u4e00-\u9fff]/, `badge "${b}"`);
    for (const b of badges) assert.doesNotMatch(b, /\b(relation|entity|memory|plan|forget|create|update|delete|addMemory)\b/, `badge "${b}"`);
    for (const a of actors) assert.doesNotMatch(a, /^(user|agent|heartbeat|import|plugin)\b/, `actor "${a}"`);
    await page.goto(`${h.url}/#/settings/plugins`);
    await page.locator('[data-plugin]').first().waitFor({ timeout: T });
    const kinds = await page.locator('[data-plugin] .provider-name > .badge:not([data-testid=plugin-state])').allTextContents();
    assert.ok(kinds.includes('内置'), kinds.join(', '));
    assert.ok(!kinds.includes('builtin'), kinds.join(', '));
    await page.goto(`${h.url}/#/settings/channels`);
    const help = page.getByTestId('channels-setup');
    await help.waitFor({ timeout: T });
    await help.locator('summary').click();
    assert.match((await help.textContent()) ?? '', /@BotFather[\s\S]*OneBot[\s\S]*docs\/channels\.md/);
    assert.deepEqual(zh.errors, []);
    await page.context().close();
  });

  it('on a phone (390 px) a provider card keeps its name and details readable, its actions on their own line', async () => {
    const phone = await openPage(browser, `${h.url}/#/settings/providers`, { lang: 'en', width: 390, height: 800, token: h.token });
    try {
      await phone.page.goto(`${h.url}/#/settings/providers`);
      await phone.page.locator('[data-testid=providers] [data-provider]').first().waitFor({ timeout: T });
      const cards = await phone.page.$$eval('[data-testid=providers] [data-provider]', (els) =>
        els.map((card) => {
          const info = card.querySelector('.provider-head > .grow')!.getBoundingClientRect();
          const buttons = Array.from(card.querySelectorAll('.provider-head button')).map((b) => b.getBoundingClientRect());
          return { name: card.getAttribute('data-provider'), infoWidth: info.width, cardWidth: card.getBoundingClientRect().width, overflow: card.scrollWidth - card.clientWidth, buttonsBelow: buttons.every((b) => b.top >= info.bottom - 1) };
        }),
      );
      await shot(phone.page, 'qa-providers-phone');
      for (const c of cards) {
        assert.ok(c.infoWidth >= c.cardWidth * 0.7, `${c.name}: the name and details get ${Math.round(c.infoWidth)} of ${Math.round(c.cardWidth)} px`);
        assert.ok(c.buttonsBelow, `${c.name}: the actions are below the details`);
        assert.ok(c.overflow <= 0, `${c.name}: nothing sticks out of the card`);
      }
      assert.deepEqual(phone.errors, []);
    } finally {
      await phone.page.context().close();
    }
  });
});
