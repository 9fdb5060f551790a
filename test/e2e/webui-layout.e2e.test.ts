/**
 * WebUI layout and liveness in a real browser against the real daemon: the memory panel sits
 * beside the chat on a laptop (Send and the person's own bubbles stay usable), the Library tab
 * shows a memory the agent saved during a turn without a reload, About me's Forget previews every
 * trace before anything goes (the memory it was opened for headed "This memory"), nothing on the phone-width settings pages runs off the screen, going to another page closes what would cover it, known tags read in the page's language, and
 * a sign-in link with a refused token says so.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, CHROMIUM, launchBrowser, openPage, shot, startHarness, type Harness } from './support/harness.js';
import { until } from '../fixtures/until.js';

const T = 20_000;
const skip = existsSync(CHROMIUM) ? false : `chromium not found at ${CHROMIUM} (apt-get install -y chromium fonts-wqy-microhei)`;

describe('WebUI layout, live memory views, About me forget', { skip, timeout: 180_000 }, () => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const library = async () => ((await (await h.api('/api/memory-manager', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ op: 'memory.list', args: { limit: 200 } }) })).json()) as { value: { items: { id: string; title: string }[] } }).value.items;

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    h = await startHarness();
    browser = await launchBrowser();
    ({ page, errors } = await openPage(browser, h.url, { lang: 'en', theme: 'light', width: 1280, height: 800, token: h.token }));
    await page.waitForSelector('[data-testid=conn].open', { timeout: T });
  });
  after(async () => {
    await browser?.close();
    await h?.stop();
  });

  it('at 1280×800 the open memory panel leaves Send clickable and the last user bubble visible', async () => {
    await page.goto(`${h.url}/#/chat`);
    h.script({ rounds: [{ text: 'Noted: you live in Lisbon.' }] });
    await page.fill('[data-testid=chat-input]', 'I live in Lisbon and I like sailing on the Tagus');
    await page.click('[data-testid=send]');
    await page.locator('.msg.assistant', { hasText: 'Noted: you live in Lisbon.' }).waitFor({ timeout: T });
    if (!(await page.locator('aside.memory-panel').count())) await page.click('[data-testid=toggle-memory]');
    await page.waitForSelector('aside.memory-panel', { timeout: T });
    const panel = (await page.locator('aside.memory-panel').boundingBox())!;
    const bubble = page.locator('.msg.user .bubble').last();
    const b = (await bubble.boundingBox())!;
    assert.ok(b.x + b.width <= panel.x, `the user bubble (right edge ${b.x + b.width}) is left of the panel (${panel.x})`);
    // The bubble's own centre is the topmost element there: nothing is laid over it.
    assert.equal(await bubble.evaluate((el) => { const r = el.getBoundingClientRect(); return el.contains(document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2)); }), true);
    const send = (await page.locator('[data-testid=send]').boundingBox())!;
    assert.ok(send.x + send.width <= panel.x, 'Send is beside the panel, not under it');
    // A real click on Send (Playwright refuses when another element would receive it).
    h.script({ rounds: [{ text: 'Sailing noted.' }] });
    await page.fill('[data-testid=chat-input]', 'And I sail on Sundays');
    await page.click('[data-testid=send]', { timeout: 5000 });
    await page.locator('.msg.assistant', { hasText: 'Sailing noted.' }).waitFor({ timeout: T });
    await shot(page, 'layout-1280-panel');
  });

  it('the open Library tab shows a memory the agent saved during a turn, without a reload', async () => {
    await page.click('[data-testid=tab-library]');
    await page.waitForSelector('[data-testid=library-tab]', { timeout: T });
    const title = 'Tagus sailing club schedule';
    assert.equal(await page.locator('.memory-item', { hasText: title }).count(), 0);
    h.script({ rounds: [{ tool: { name: 'library_save', args: { title, snapshot: 'The Tagus sailing club meets on Sundays at 9.' }, result: '' } }, { text: 'Saved it to the library.' }] });
    await page.fill('[data-testid=chat-input]', 'Please remember the sailing club schedule: Sundays at 9');
    await page.click('[data-testid=send]');
    await page.locator('.msg.assistant', { hasText: 'Saved it to the library.' }).waitFor({ timeout: T });
    assert.ok((await library()).some((m) => m.title === title), 'the agent saved the memory');
    await page.locator('.memory-item', { hasText: title }).waitFor({ timeout: T });
    await shot(page, 'layout-library-live');
  });

  it('About me: Forget on a memory shows the forget dialog first and removes it only on "Forget"', async () => {
    const title = 'Tagus sailing club schedule';
    await page.goto(`${h.url}/#/knows`);
    const card = page.locator('[data-testid=knows-memory]', { hasText: title });
    await card.waitFor({ timeout: T });
    assert.doesNotMatch((await card.textContent()) ?? '', /said by them|mentions them/, 'the owner is not "them"');
    await card.locator('[data-testid=knows-forget-memory]').click();
    await page.waitForSelector('[data-testid=forget-dialog]', { timeout: T });
    const box = page.locator('[data-testid=forget-memory]');
    await box.first().waitFor({ timeout: T });
    assert.equal(await box.first().isChecked(), true, 'the memory asked about is ticked');
    assert.match((await page.textContent('[data-testid=forget-dialog]')) ?? '', /Tagus sailing club/);
    // Opened for this one memory, it is headed as such — not as a memory "that mentions it".
    const asked = page.locator('[data-testid=forget-asked-memories]');
    assert.equal((await asked.locator('h4').textContent())?.trim(), 'This memory');
    assert.match((await asked.textContent()) ?? '', /Tagus sailing club/);
    assert.equal(await page.locator('[data-testid=forget-mentioning-memories]').count(), 0);
    assert.doesNotMatch((await page.textContent('[data-testid=forget-dialog]')) ?? '', /that mention it/);
    await shot(page, 'layout-knows-forget-dialog');
    assert.ok((await library()).some((m) => m.title === title), 'the preview removed nothing');
    // Cancel keeps it; Forget removes it.
    await page.click('[data-testid=forget-dialog] .btn:not(.danger)');
    await page.waitForSelector('[data-testid=forget-dialog]', { state: 'detached', timeout: T });
    assert.ok((await library()).some((m) => m.title === title), 'cancel removed nothing');
    await card.locator('[data-testid=knows-forget-memory]').click();
    await page.click('[data-testid=forget-confirm]');
    await page.waitForSelector('[data-testid=forget-dialog]', { state: 'detached', timeout: T });
    await card.waitFor({ state: 'detached', timeout: T });
    assert.ok(!(await library()).some((m) => m.title === title), 'forgotten');
  });

  it('at 390×844 no control on the data, people and channels pages or the top bar runs off the screen', async () => {
    const { page: phone, errors: phoneErrors } = await openPage(browser, h.url, { lang: 'en', theme: 'light', width: 390, height: 844, token: h.token });
    try {
      await phone.waitForSelector('[data-testid=conn].open', { timeout: T });
      for (const section of ['data', 'people', 'channels']) {
        await phone.evaluate((s) => (window.location.hash = `#/settings/${s}`), section);
        await phone.waitForSelector(`.settings-body [data-testid=${section === 'data' ? 'data-section' : section === 'people' ? 'person-new' : 'channels'}]`, { timeout: T });
        await phone.waitForTimeout(300);
        const over = await phone.evaluate(() => {
          const w = document.documentElement.clientWidth;
          return Array.from(document.querySelectorAll('.topbar button, .topbar a, .settings-body button, .settings-body input, .settings-body select, .settings-body textarea'))
            .map((el) => ({ el, r: el.getBoundingClientRect() }))
            .filter(({ r }) => r.width > 0 && r.right > w + 0.5)
            .map(({ el, r }) => `${el.tagName.toLowerCase()}[${el.getAttribute('data-testid') ?? el.getAttribute('aria-label') ?? el.className}] right=${Math.round(r.right)}`);
        });
        await shot(phone, `layout-phone-${section}`);
        assert.deepEqual(over, [], `${section}: controls past the ${390} px screen`);
      }
      // The tab of the page shown is on the screen (it was at x=364–810 for Data: found by a walk).
      for (const section of ['data', 'about', 'providers']) {
        await phone.evaluate((s) => (window.location.hash = `#/settings/${s}`), section);
        const tab = phone.locator(`.settings-nav [data-testid=settings-${section}].active`);
        await tab.waitFor({ timeout: T });
        await phone.waitForFunction(
          (s) => {
            const r = document.querySelector(`.settings-nav [data-testid=settings-${s}]`)!.getBoundingClientRect();
            return r.left >= -0.5 && r.right <= document.documentElement.clientWidth + 0.5;
          },
          section,
          { timeout: T },
        );
      }
      // Memory history: each entry's summary is read whole (it was cut to "sav…" beside its badges).
      await phone.evaluate(() => (window.location.hash = '#/settings/history'));
      const summary = phone.locator('[data-testid=history-summary]').first();
      await summary.waitFor({ timeout: T });
      assert.equal(await summary.evaluate((el) => el.scrollWidth <= el.clientWidth + 1 && el.getBoundingClientRect().width > 250), true, 'the summary has the row to itself and is not cut');
      // …above its own Undo, not below it, where it read as the next entry's (found by a walk).
      const order = await phone.locator('[data-testid=history-row]').first().evaluate((row) => {
        const s = row.querySelector('[data-testid=history-summary]')!.getBoundingClientRect();
        const badge = row.querySelector('[data-testid=history-badge]')!.getBoundingClientRect();
        return s.bottom <= badge.top + 1;
      });
      assert.equal(order, true, 'the summary is above its own row\'s badge and Undo');
      await shot(phone, 'layout-phone-history');
      assert.deepEqual(phoneErrors, []);
    } finally {
      await phone.context().close();
    }
  });

  it('going to another page puts it in front: on a phone the memory panel closes, the graph drawer closes at any width', async () => {
    const { page: phone, errors: phoneErrors } = await openPage(browser, h.url, { lang: 'en', theme: 'light', width: 390, height: 844, token: h.token });
    try {
      await phone.waitForSelector('[data-testid=conn].open', { timeout: T });
      await phone.goto(`${h.url}/#/chat`);
      if (!(await phone.locator('aside.memory-panel').count())) await phone.click('[data-testid=toggle-memory]');
      await phone.waitForSelector('aside.memory-panel', { timeout: T });
      await phone.click('[data-testid=nav-settings]');
      await phone.waitForSelector('.settings-body', { timeout: T });
      await phone.waitForSelector('aside.memory-panel', { state: 'detached', timeout: T });
      // The page itself is what a tap reaches: the settings nav's centre is the topmost element there.
      const nav = phone.locator('.settings-nav button').first();
      assert.equal(await nav.evaluate((el) => { const r = el.getBoundingClientRect(); return el.contains(document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2)); }), true, 'Settings is in front');
      // The panel still opens on top of Settings when asked for.
      await phone.click('[data-testid=toggle-memory]');
      await phone.waitForSelector('aside.memory-panel', { timeout: T });
      await shot(phone, 'layout-phone-panel-over-settings-on-request');
      assert.deepEqual(phoneErrors, []);
    } finally {
      await phone.context().close();
    }
    await page.setViewportSize({ width: 1400, height: 900 });
    // Chat in the top bar goes back to the conversation that was open, not to an empty new chat. (The
    // reply is looked for in the conversation: arriving while another page is open, it is a toast too.)
    h.script({ rounds: [{ text: 'Back to this one.' }] });
    assert.equal((await h.api('/api/v1/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'A conversation to come back to', sessionId: 'webui:back-to-chat' }) })).status, 202);
    await page.goto(`${h.url}/#/chat/${encodeURIComponent('webui:back-to-chat')}`);
    await page.getByTestId('turn').getByText('Back to this one.').waitFor({ timeout: T });
    await page.click('[data-testid=nav-knows]');
    await page.waitForFunction(() => window.location.hash.startsWith('#/knows'));
    await page.click('[data-testid=nav-chat]');
    await page.waitForFunction(() => window.location.hash === `#/chat/${encodeURIComponent('webui:back-to-chat')}`, undefined, { timeout: T });
    await page.getByTestId('turn').getByText('Back to this one.').waitFor({ timeout: T });
    await page.goto(`${h.url}/#/chat`);
    await page.click('[data-testid=toggle-graph]');
    await page.waitForSelector('.graph-overlay', { timeout: T });
    await page.click('[data-testid=nav-knows]');
    await page.waitForSelector('.graph-overlay', { state: 'detached', timeout: T });
    // On a laptop the memory panel sits beside the page, so it stays open across pages.
    if (!(await page.locator('aside.memory-panel').count())) await page.click('[data-testid=toggle-memory]');
    await page.click('[data-testid=nav-settings]');
    await page.waitForSelector('.settings-body', { timeout: T });
    assert.equal(await page.locator('aside.memory-panel').count(), 1, 'beside the page, the panel stays');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('at 390×844 the Forget dialog of a chat turn fits the screen: Cancel and Forget can be tapped', async () => {
    h.script({ rounds: [{ text: 'Noted the bike shed code.' }] });
    const r = await h.api('/api/v1/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'The bike shed code is 2468 and the gate code is 1357', sessionId: 'webui:phone-forget' }) });
    assert.equal(r.status, 202);
    const { turnId } = (await r.json()) as { turnId: string };
    const { page: phone, errors: phoneErrors } = await openPage(browser, h.url, { lang: 'en', theme: 'light', width: 390, height: 844, token: h.token });
    try {
      await phone.goto(`${h.url}/#/chat/${encodeURIComponent('webui:phone-forget')}`);
      const turn = phone.locator(`[data-turn-id="${turnId}"]`);
      await turn.getByText('Noted the bike shed code.').waitFor({ timeout: T });
      await turn.locator('[data-testid=forget-chat-turn]').dispatchEvent('click');
      await phone.waitForSelector('[data-testid=forget-turn]', { timeout: T });
      const box = (await phone.locator('[data-testid=forget-dialog]').boundingBox())!;
      assert.ok(box.x >= 0 && box.x + box.width <= 390, `the dialog (${Math.round(box.x)}…${Math.round(box.x + box.width)}) is inside the 390 px screen`);
      for (const sel of ['[data-testid=forget-confirm]', '[data-testid=forget-dialog] .btn:not(.danger)']) {
        const b = (await phone.locator(sel).boundingBox())!;
        assert.ok(b.x >= 0 && b.x + b.width <= 390, `${sel} is on the screen`);
      }
      await shot(phone, 'layout-phone-forget-dialog');
      await phone.click('[data-testid=forget-confirm]');
      await phone.waitForSelector('[data-testid=forget-dialog]', { state: 'detached', timeout: T });
      assert.doesNotMatch(JSON.stringify(await (await h.api('/api/v1/sessions/webui%3Aphone-forget/events')).json()), /2468/);
      assert.deepEqual(phoneErrors, []);
    } finally {
      await phone.context().close();
    }
  });

  it('a memory tagged 会话总结 reads "Session summary" in the English UI; the stored tag is kept and shown on hover', async () => {
    const save = await h.api('/api/memory-manager', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ op: 'memory.save', args: { id: 'tag-label-summary', title: 'Sunday sailing summary', snapshot: 'We talked about sailing on Sundays.', tags: ['会话总结', 'boats'] } }) });
    assert.equal(save.status, 200);
    await page.goto(`${h.url}/#/chat`);
    if (!(await page.locator('aside.memory-panel').count())) await page.click('[data-testid=toggle-memory]');
    await page.click('[data-testid=tab-library]');
    const row = page.locator('.memory-item', { hasText: 'Sunday sailing summary' });
    await row.waitFor({ timeout: T });
    const tags = row.locator('.memory-meta .tag');
    await tags.first().waitFor({ timeout: T });
    assert.deepEqual(await tags.allTextContents(), ['Session summary', 'boats'], 'a known tag is translated, a person\'s own tag is shown as typed');
    assert.equal(await tags.first().getAttribute('title'), '会话总结');
    assert.doesNotMatch((await row.textContent()) ?? '', /会话总结/);
    await row.locator('.memory-main').click();
    const detailTags = page.locator('aside.memory-panel dd .tag');
    await detailTags.first().waitFor({ timeout: T });
    assert.deepEqual(await detailTags.allTextContents(), ['Session summary', 'boats']);
    await shot(page, 'layout-tag-labels');
  });

  it('toasts stand in the bottom-left corner over the list of conversations, never over the composer or a turn\'s actions; three at most, a repeat counted, each can be closed', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${h.url}/#/settings/people`);
    const input = page.locator('[data-testid=person-owner] [data-testid=link-input]');
    await input.waitFor({ timeout: T });
    const refuse = async (id: string) => {
      await input.fill(id);
      await page.click('[data-testid=person-owner] form button[type=submit]');
      await page.locator('.toast.error', { hasText: `not a speaker id: ${id}` }).last().waitFor({ timeout: T });
    };
    const shown = () => page.$$eval('.toast', (l) => l.map((x) => `${x.querySelector('.toast-text')?.textContent?.replace(/^not a speaker id: (\S+ \S+ \S+).*$/, '$1')}${x.querySelector('.toast-count')?.textContent ?? ''}`));
    for (const id of ['bad id 1', 'bad id 2', 'bad id 3', 'bad id 4']) await refuse(id);
    // Four refusals in a row: the three newest, the newest last (they piled up, four and more, before).
    assert.deepEqual(await shown(), ['bad id 2', 'bad id 3', 'bad id 4']);
    // The same refusal again is one toast, counted, and the newest.
    await refuse('bad id 3');
    assert.deepEqual(await shown(), ['bad id 2', 'bad id 4', 'bad id 3×2']);
    // In the page's bottom-left corner, not over the middle of it.
    const box = (await page.locator('.toasts').boundingBox())!;
    const main = (await page.locator('main.main').boundingBox())!;
    assert.ok(box.x <= 16 && box.x + box.width <= 264 && box.y + box.height >= 800 - 24, `the toasts stand at x ${box.x}…${box.x + box.width}, y …${box.y + box.height}`);
    assert.equal(await page.evaluate(([x, y]) => !!document.elementFromPoint(x, y)?.closest('.toast'), [main.x + main.width / 2, 700]), false, 'nothing of the toasts in the middle');
    await shot(page, 'layout-toasts');
    await page.locator('.toast').first().locator('.toast-close').click();
    assert.deepEqual(await shown(), ['bad id 4', 'bad id 3×2']);

    // In the chat they lie over the list of conversations: the composer and every turn's actions stay
    // what a click reaches — in a short chat (its only turn at the top) and in a long one (the newest
    // turn right above the composer), with the memory panel open and without.
    const chatUnder = async (sid: string) => {
      await page.goto(`${h.url}/#/chat/${encodeURIComponent(sid)}`);
      const last = page.getByTestId('turn').last();
      await last.locator('.msg.assistant').waitFor({ timeout: T });
      await last.locator('.msg.assistant').hover();
      await last.locator('[data-testid=copy-answer]').click();
      await page.locator('.toast', { hasText: /Copied|copy|clipboard/i }).first().waitFor({ timeout: T });
      // Held under the pointer (none goes while pointed at), so they are all there while measured.
      await page.locator('.toast').last().hover();
      const toasts = (await page.locator('.toasts').boundingBox())!;
      const sidebar = (await page.locator('aside.sidebar').boundingBox())!;
      assert.ok(toasts.x >= sidebar.x && toasts.x + toasts.width <= sidebar.x + sidebar.width, `the toasts (x ${toasts.x}…${toasts.x + toasts.width}) lie over the conversations (…${sidebar.x + sidebar.width})`);
      const controls = page.locator('[data-testid=send], [data-testid=attach], [data-testid=chat-input], .input-bar .mem-btn, [data-testid=turn] .msg-actions .action');
      const boxes = await controls.evaluateAll((els) => els.map((el) => ({ what: `${el.getAttribute('data-testid') ?? el.className} ${el.getAttribute('aria-label') ?? ''}`, r: el.getBoundingClientRect().toJSON() as DOMRect })));
      assert.ok(boxes.length >= 5, JSON.stringify(boxes));
      const covered = boxes.filter(({ r }) => r.width > 0 && r.left < toasts.x + toasts.width && r.right > toasts.x && r.top < toasts.y + toasts.height && r.bottom > toasts.y);
      assert.deepEqual(covered.map((c) => c.what), [], 'no control of the chat under a toast');
      const send = (await page.locator('[data-testid=send]').boundingBox())!;
      assert.equal(await page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.closest('[data-testid=send]') !== null, [send.x + send.width / 2, send.y + send.height / 2]), true, 'Send is what a click there reaches');
      await page.mouse.move(640, 300);
    };
    await chatUnder('webui:back-to-chat');
    for (let i = 0; i < 6; i++) {
      h.script({ rounds: [{ text: `Long reply ${i}.\n\n${'A line of the reply. '.repeat(30)}` }] });
      assert.equal((await h.api('/api/v1/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: `Tell me more, part ${i}`, sessionId: 'webui:long-toasts' }) })).status, 202);
      await until(async () => !(((await (await h.api('/api/v1/sessions/webui%3Along-toasts/events')).json()) as { inflight?: string | null }).inflight));
    }
    if (!(await page.locator('aside.memory-panel').count())) await page.click('[data-testid=toggle-memory]');
    await chatUnder('webui:long-toasts');
    await shot(page, 'layout-toasts-chat');
    while (await page.locator('.toast').count()) await page.locator('.toast-close').first().click();
    await page.waitForSelector('.toast', { state: 'detached', timeout: T });
  });

  it('a sign-in link with a refused token says so on the sign-in page', async () => {
    const { page: fresh } = await openPage(browser, h.url, { lang: 'en', token: 'not-the-token' });
    try {
      await fresh.waitForSelector('[data-testid=signin]', { timeout: T });
      assert.match((await fresh.textContent('[data-testid=signin-link-refused]')) ?? '', /sign-in link was refused/);
      await shot(fresh, 'layout-signin-refused');
      // Without a link there is nothing to complain about.
      await fresh.goto(h.url);
      await fresh.waitForSelector('[data-testid=signin]', { timeout: T });
      assert.equal(await fresh.locator('[data-testid=signin-link-refused]').count(), 0);
    } finally {
      await fresh.context().close();
    }
    assert.deepEqual(errors, []);
  });
});
