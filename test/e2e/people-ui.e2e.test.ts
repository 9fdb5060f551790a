/**
 * Settings → People and the "what it knows" page in a real browser against the real daemon
 * (decision 0090): add a person with two channel ids, unlink and link one again, rename; the
 * library shows who said a memory (list and detail); the page about that person gathers the
 * graph fact, the memory and the owner's turn that mentions them, jumps to the turn in the chat,
 * and forgets the fact (this daemon has no memory-control service: the fact's own delete).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, CHROMIUM, launchBrowser, openPage, shot, startHarness, type Harness } from './support/harness.js';
import { GraphDB } from '../../src/memory/index.js';

const T = 20_000;
const skip = existsSync(CHROMIUM) ? false : `chromium not found at ${CHROMIUM} (apt-get install -y chromium fonts-wqy-microhei)`;

describe('People and what it knows, in the browser', { skip, timeout: 150_000 }, () => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let aliceId = '';

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    h = await startHarness({
      beforeStart(home) {
        const g = new GraphDB({ path: join(home, 'graph.db') });
        g.open();
        g.commit([{ subject: 'Alice', predicate: 'likes', object: 'green tea' }]);
        // The owner's own fact: the distiller's subject for "I …" is `user`.
        g.commit([{ subject: 'user', predicate: 'lives_in', object: 'Lyon' }]);
        g.close();
      },
    });
    browser = await launchBrowser();
    ({ page, errors } = await openPage(browser, h.url, { lang: 'en', theme: 'light', token: h.token }));
  });
  after(async () => {
    await browser?.close();
    await h?.stop();
  });

  it('adds a person with two ids, unlinks and links one again, renames them', async () => {
    await page.goto(`${h.url}/#/settings/people`);
    await page.waitForSelector('[data-testid=person-owner]', { timeout: T });
    // The owner's name until they give one is said in the page's language ("Owner · 你" read half English).
    assert.match((await page.textContent('[data-testid=person-owner] strong')) ?? '', /^Owner · you$/);
    const zh = await openPage(browser, `${h.url}/#/settings/people`, { lang: 'zh', token: h.token });
    await zh.page.goto(`${h.url}/#/settings/people`);
    await zh.page.waitForSelector('[data-testid=person-owner]', { timeout: T });
    assert.match((await zh.page.textContent('[data-testid=person-owner] strong')) ?? '', /^主人 · 你$/);
    await zh.page.context().close();
    await page.fill('[data-testid=new-name]', 'Alicia');
    // Typed with a Chinese input method: the full-width comma separates ids too.
    await page.fill('[data-testid=new-ids]', 'telegram:42，qq:10001');
    await page.click('[data-testid=person-new] button[type=submit]');
    await page.waitForSelector('[data-testid=person-Alicia] [data-testid="unlink-qq:10001"]', { timeout: T });
    await page.click('[data-testid=person-Alicia] [data-testid="unlink-qq:10001"]');
    await page.waitForSelector('[data-testid=person-Alicia] [data-testid="unlink-qq:10001"]', { state: 'detached', timeout: T });
    await page.fill('[data-testid=person-Alicia] [data-testid=link-input]', 'qq:10001');
    await page.click('[data-testid=person-Alicia] form button[type=submit]');
    await page.waitForSelector('[data-testid=person-Alicia] [data-testid="unlink-qq:10001"]', { timeout: T });
    // A bad id gets the daemon's coded error as a toast, and nothing changes.
    await page.fill('[data-testid=person-Alicia] [data-testid=link-input]', 'not an id');
    await page.click('[data-testid=person-Alicia] form button[type=submit]');
    await page.waitForSelector('.toast.error', { timeout: T });
    await page.click('[data-testid=person-Alicia] .card-head button:has-text("Rename")');
    await page.fill('[data-testid=person-Alicia] input[aria-label=Name]', 'Alice');
    await page.click('[data-testid=person-Alicia] .card-head button[type=submit]');
    await page.waitForSelector('[data-testid=person-Alice]', { timeout: T });
    // "New person" with an id Alice has: refused with who has it; Alice keeps her name, nobody new.
    await page.fill('[data-testid=new-name]', 'Carol');
    await page.fill('[data-testid=new-ids]', 'telegram:42');
    await page.click('[data-testid=person-new] button[type=submit]');
    await page.waitForSelector('.toast.error:has-text("telegram:42 already belongs to Alice")', { timeout: T });
    assert.equal(await page.inputValue('[data-testid=new-name]'), 'Carol', 'what was typed stays, to be mended');
    assert.equal(await page.$('[data-testid=person-Carol]'), null);
    assert.ok(await page.$('[data-testid=person-Alice]'));
    await page.fill('[data-testid=new-name]', '');
    await page.fill('[data-testid=new-ids]', '');
    await shot(page, 'settings-people');
    const people = (await (await h.api('/api/v1/people')).json()) as { people: { id: string; name: string; ids: string[] }[] };
    const alice = people.people.find((p) => p.name === 'Alice');
    assert.deepEqual(alice?.ids, ['qq:10001', 'telegram:42']);
    aliceId = alice!.id;
  });

  it('what it knows about me: named as I named myself, my facts say my name (not `user`), validity and source apart', async () => {
    await page.goto(`${h.url}/#/knows`);
    await page.waitForSelector('[data-testid=knows-fact]', { timeout: T });
    assert.match((await page.textContent('.knows h2')) ?? '', /What HomeAgent knows about you$/);
    assert.match((await page.textContent('[data-testid=knows-fact]')) ?? '', /^you\s*live in\s*Lyon/, 'the owner as "you", the verb to match');
    // When what was just said shows up here: the rule distiller's interval, as set.
    assert.match((await page.textContent('[data-testid=knows-facts-when]', { timeout: T })) ?? '', /a few seconds after you say it, and again every 10 minutes \(Settings → General, “Rule distill every”\)/);
    const res = await h.api('/api/v1/people/owner', { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Sam' }) });
    assert.equal(res.status, 200, await res.clone().text());
    await page.reload();
    await page.waitForFunction(() => /Sam \(you\)/.test(document.querySelector('.knows h2')?.textContent ?? ''), undefined, { timeout: T });
    const fact = (await page.textContent('[data-testid=knows-fact]')) ?? '';
    assert.match(fact, /^Sam\s*lives in\s*Lyon/);
    assert.match(fact, /since \d{4}-\d{2}-\d{2} · no source turn recorded/, 'the validity and the source line read apart');
  });

  it("decision 0270: a fact's day is on the agent's calendar (core.agent.timezone), not the UTC day, and follows a change of the setting", async () => {
    const about = (await (await h.api('/api/v1/memory/about')).json()) as { about: { facts: { object: string; validFrom?: number }[] } };
    const at = about.about.facts.find((f) => f.object === 'Lyon')?.validFrom;
    assert.ok(at, JSON.stringify(about));
    const dayIn = (zone: string) => new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
    // UTC+14 is a day ahead of UTC from 10:00 UTC on, UTC-11 a day behind until 11:00 UTC: one of them is another day now.
    const zone = new Date(at).getUTCHours() >= 10 ? 'Pacific/Kiritimati' : 'Pacific/Pago_Pago';
    assert.notEqual(dayIn(zone), dayIn('UTC'));
    const set = async (value: string) => {
      const res = await h.api('/api/v1/settings/core.agent.timezone', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ value }) });
      assert.equal(res.status, 200, await res.clone().text());
    };
    const since = (day: string) => page.waitForFunction((d) => (document.querySelector('[data-testid=knows-fact]')?.textContent ?? '').includes(`since ${d}`), day, { timeout: T });
    await set('UTC');
    await page.goto(`${h.url}/#/knows`);
    await page.waitForSelector('[data-testid=knows-fact]', { timeout: T });
    await since(dayIn('UTC'));
    // Changed while the page is open (Settings → General, `waiter config set`): the page follows.
    await set(zone);
    await since(dayIn(zone));
    await page.reload();
    await since(dayIn(zone));
    assert.equal((await h.api('/api/v1/settings/core.agent.timezone', { method: 'DELETE' })).status, 200);
    assert.deepEqual(errors, []);
  });

  it('the library shows who said a memory, in the list and the detail', async () => {
    const res = await h.api('/api/memory-manager', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ op: 'memory.save', args: { title: 'Tea for Alice', snapshot: 'Alice drinks green tea every morning.', speaker: { id: 'telegram:42', name: 'Alice' }, conversation: 'telegram:42' } }) });
    assert.equal(res.status, 200, await res.clone().text());
    const bad = await h.api('/api/memory-manager', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ op: 'memory.save', args: { title: 'x', snapshot: 'y', speaker: { id: 'no id' } } }) });
    assert.equal(((await bad.json()) as { ok: boolean }).ok, false, 'a speaker that is not <platform>:<id> is refused');
    await page.goto(`${h.url}/#/chat`);
    await page.click('[data-testid=toggle-memory]');
    await page.click('[data-testid=tab-library]');
    await page.waitForSelector('[data-testid=memory-speaker]', { timeout: T });
    assert.match((await page.textContent('[data-testid=memory-speaker]')) ?? '', /Alice/);
    await page.click('.memory-panel :text("Tea for Alice")');
    await page.waitForSelector('[data-testid=detail-speaker]', { timeout: T });
    assert.match((await page.textContent('[data-testid=detail-speaker]')) ?? '', /Alice \(telegram:42\)/);
    await page.click('[data-testid=toggle-memory]');
  });

  it('what it knows about Alice: the fact, the memory and a turn that mentions her, with sources; jump and forget', async () => {
    const chat = await h.api('/api/v1/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'Alice is coming for tea on Sunday', sessionId: 'webui:tea' }) });
    assert.equal(chat.status, 202);
    const done = Date.now() + T;
    while (Date.now() < done) {
      const about = (await (await h.api(`/api/v1/memory/about?person=${aliceId}`)).json()) as { about: { documents: unknown[] } };
      if (about.about.documents.length > 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await page.goto(`${h.url}/#/settings/people`);
    await page.click('[data-testid=person-Alice] [data-testid=person-knows]');
    await page.waitForSelector('[data-testid=knows-fact]', { timeout: T });
    assert.match((await page.textContent('[data-testid=knows-fact]')) ?? '', /Alice\s*likes\s*green tea/);
    assert.match((await page.textContent('[data-testid=knows-memory]')) ?? '', /Tea for Alice[\s\S]*said by Alice/);
    await page.waitForSelector('[data-testid=knows-turn]', { timeout: T });
    // Its source is said as the conversation's title and which message, not as the turn id.
    const turnRow = (await page.textContent('[data-testid=knows-turn]')) ?? '';
    assert.match(turnRow, /coming for tea[\s\S]*from message 1 of “Alice is coming for tea on Sunday”, \d{4}-\d\d-\d\d/);
    assert.doesNotMatch(turnRow, /webui:tea/);
    await shot(page, 'knows-alice');

    // Forget shows what goes first (the forget dialog), and removes it only on confirm.
    await page.click('[data-testid=knows-forget-fact]');
    await page.waitForSelector('[data-testid=forget-dialog]', { timeout: T });
    // The dialog first says it is looking for every trace; what goes shows when that is done.
    await page.waitForFunction(() => /green tea/.test(document.querySelector('[data-testid=forget-dialog]')?.textContent ?? ''), undefined, { timeout: T });
    // The fact reads as a sentence, and one the person named needs no reason.
    assert.equal((await page.textContent('[data-testid=forget-fact]'))?.trim(), 'Alice likes green tea');
    assert.equal(await page.$('[data-testid=forget-fact-reason]'), null);
    // A fact alone: the dialog does not say the conversation's text is erased (found by a walk).
    assert.match((await page.textContent('[data-testid=forget-hint]')) ?? '', /the conversations stay as they are/);
    await page.click('[data-testid=forget-confirm]');
    await page.waitForSelector('[data-testid=knows-fact]', { state: 'detached', timeout: T });
    const about = (await (await h.api(`/api/v1/memory/about?person=${aliceId}`)).json()) as { about: { facts: unknown[] } };
    assert.deepEqual(about.about.facts, [], 'the fact is gone from the graph');

    await page.click('[data-testid=knows-turn] [data-testid=knows-open]');
    await page.waitForFunction(() => window.location.hash === '#/chat/webui%3Atea', undefined, { timeout: T });
    await page.waitForSelector('[data-testid=turn][data-turn-id="webui:tea#1"]', { timeout: T });
    assert.deepEqual(errors, []);
  });

  it('a wrong fact is corrected in place from About me; bad values and ids are refused', async () => {
    await page.goto(`${h.url}/#/knows`);
    const row = page.locator('[data-testid=knows-fact]', { hasText: 'Lyon' });
    await row.waitFor({ timeout: T });
    await row.getByTestId('knows-correct-fact').click();
    const input = row.getByTestId('knows-correct-input');
    assert.equal(await input.inputValue(), 'Lyon', 'the form starts from the value shown');
    await input.fill('Grenoble');
    await shot(page, 'knows-correct');
    await row.getByTestId('knows-correct-save').click();
    await page.locator('[data-testid=knows-fact]', { hasText: 'Grenoble' }).waitFor({ timeout: T });
    const facts = async () => ((await (await h.api('/api/v1/memory/about')).json()) as { about: { facts: { id: number; predicate: string; object: string; validTo?: number }[] } }).about.facts;
    const home = (await facts()).find((f) => f.predicate === 'lives_in' && !f.validTo)!;
    assert.equal(home.object, 'Grenoble');
    // Bad input is refused and changes nothing.
    const patch = (id: string, body: unknown) => h.api(`/api/v1/memory/graph/relations/${id}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal((await patch(String(home.id), { object: '   ' })).status, 400);
    assert.equal((await patch(String(home.id), { object: 'x', subject: 'Mallory' })).status, 400, 'only the value is corrected here');
    assert.equal((await patch('..%2F1', { object: 'x' })).status, 400);
    assert.equal((await patch('987654', { object: 'x' })).status, 404);
    assert.equal((await facts()).find((f) => f.id === home.id)?.object, 'Grenoble');
    assert.deepEqual(errors, []);
  });
});
