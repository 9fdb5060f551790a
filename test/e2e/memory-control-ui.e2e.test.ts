/**
 * Forget and history in a real browser against the real daemon (K-2, K-3): "Forget…" on a search
 * in Settings → Documents shows what will go and removes it from every tier only on "Forget";
 * Settings → Memory history lists an exclusion with who made it (in Chinese too), and Undo brings the turn back.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, CHROMIUM, closeToasts, launchBrowser, openPage, shot, startHarness, type Harness } from './support/harness.js';
import { until } from '../fixtures/until.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

const T = 20_000;
const skip = existsSync(CHROMIUM) ? false : `chromium not found at ${CHROMIUM} (apt-get install -y chromium fonts-wqy-microhei)`;

// The whole suite's budget (each wait has its own): 120 s was set for its first two tests; with ten
// (eleven now), a loaded 2-core machine took 150 s.
describe('Forget and memory history in the WebUI', { skip, timeout: 240_000 }, () => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const hits = async (q: string) => JSON.stringify(((await (await h.api(`/api/v1/memory/documents?q=${encodeURIComponent(q)}&limit=50`)).json()) as { documents: unknown[] }).documents);
  const chat = async (text: string, reply: string) => {
    h.script({ rounds: [{ text: reply }] });
    const r = await h.api('/api/v1/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text, sessionId: 'webui:forget-ui' }) });
    assert.equal(r.status, 202);
    return ((await r.json()) as { turnId: string }).turnId;
  };

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    h = await startHarness();
    browser = await launchBrowser();
    ({ page, errors } = await openPage(browser, h.url, { lang: 'en', theme: 'light', token: h.token }));
    page.on('dialog', (d) => void d.accept());
  });
  after(async () => {
    await browser?.close();
    await h?.stop();
  });

  it('"Forget…" on a search previews every trace and removes it only on confirm', async () => {
    await chat('My bike lock code is 8086', 'Noted the bike lock code.');
    // Sent after the first turn ended: sent while it runs, it would be an interrupt of that turn.
    await until(async () => !((await (await h.api('/api/v1/sessions/webui%3Aforget-ui/events')).json()) as { inflight?: string }).inflight);
    await chat('I had pasta for lunch', 'Sounds good.');
    await until(async () => (await hits('bike lock code')).includes('8086') && (await hits('pasta lunch')).includes('pasta'));
    await page.goto(`${h.url}/#/settings/documents`);
    await page.fill('.search-box input', '8086');
    await page.press('.search-box input', 'Enter');
    await page.click('[data-testid=forget-query-open]', { timeout: T });
    await page.waitForSelector('[data-testid=forget-turn]', { timeout: T });
    const shown = (await page.textContent('[data-testid=forget-dialog]')) ?? '';
    assert.match(shown, /bike lock code is 8086/);
    assert.match((await page.textContent('[data-testid=forget-dialog] [data-testid=forget-turn]')) ?? '', /session log/);
    assert.doesNotMatch(shown, /pasta/);
    await shot(page, 'forget-dialog');
    assert.match(await hits('bike lock code'), /8086/, 'the preview removed nothing');
    await page.click('[data-testid=forget-confirm]');
    await page.waitForSelector('[data-testid=forget-dialog]', { state: 'detached', timeout: T });
    assert.doesNotMatch(await hits('bike lock code 8086'), /8086/);
    assert.match(await hits('pasta lunch'), /pasta/);
    const log = JSON.stringify(await (await h.api('/api/v1/sessions/webui%3Aforget-ui/events')).json());
    assert.doesNotMatch(log, /8086/);
  });

  it('a chat message has "Forget…": the dialog names its turn, and confirming removes it from memory and the chat', async () => {
    const turnId = await chat('The gate PIN for the allotment is 5566', 'Noted the PIN.');
    await until(async () => (await hits('allotment gate PIN')).includes('5566'));
    await page.goto(`${h.url}/#/chat/${encodeURIComponent('webui:forget-ui')}`);
    const turn = page.locator(`[data-turn-id="${turnId}"]`);
    await turn.waitFor({ timeout: T });
    // The message's actions show while the pointer is over it (as the chat e2e does it).
    await turn.locator('[data-testid=forget-chat-turn]').waitFor({ state: 'attached', timeout: T });
    await closeToasts(page);
    await turn.locator('.msg.user').hover();
    await turn.locator('[data-testid=forget-chat-turn]').click({ timeout: T });
    await page.waitForSelector('[data-testid=forget-turn]', { timeout: T });
    assert.match((await page.textContent('[data-testid=forget-dialog]')) ?? '', new RegExp(turnId.replace(/[#:]/g, '.')));
    await page.click('[data-testid=forget-confirm]');
    await page.waitForSelector('[data-testid=forget-dialog]', { state: 'detached', timeout: T });
    assert.doesNotMatch(await hits('allotment gate PIN 5566'), /5566/);
    assert.doesNotMatch(JSON.stringify(await (await h.api('/api/v1/sessions/webui%3Aforget-ui/events')).json()), /5566/);
    // The open chat shows the turn as forgotten at once (no reload), in the page's language.
    await turn.locator('[data-testid=forgotten-text]').first().waitFor({ timeout: 5000 });
    assert.doesNotMatch((await turn.textContent()) ?? '', /5566|Noted the PIN|\[forgotten\]/);
    assert.match((await turn.textContent()) ?? '', /\(forgotten\)/);
  });

  it('a forget made elsewhere (the API, as `waiter memory forget` does) shows in the open chat at once', async () => {
    const turnId = await chat('My locker number at the gym is 4242', 'Noted the locker.');
    await until(async () => !((await (await h.api('/api/v1/sessions/webui%3Aforget-ui/events')).json()) as { inflight?: string }).inflight);
    await page.goto(`${h.url}/#/chat/${encodeURIComponent('webui:forget-ui')}`);
    const turn = page.locator(`[data-turn-id="${turnId}"]`);
    await turn.getByText('Noted the locker.').waitFor({ timeout: T });
    const r = await h.api('/api/v1/memory/forget', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ turnIds: [turnId] }) });
    assert.equal(r.status, 200);
    await turn.locator('[data-testid=forgotten-text]').first().waitFor({ timeout: 5000 });
    // The message and the reply may be marked in turn, not in one paint: wait until neither shows
    // (a wait that gave up after 5 s was swallowed, and the check after it failed on a slow machine).
    await page.waitForFunction((id) => !/4242|Noted the locker/.test(document.querySelector(`[data-turn-id="${id}"]`)?.textContent ?? '4242'), turnId, { timeout: T });
  });

  it('a summary made from the turn is listed in the dialog, ticked, and goes with it (decision 0430)', async () => {
    const turnId = await chat('My passport number is X9Q2-7781', 'Noted the passport number.');
    await until(async () => !((await (await h.api('/api/v1/sessions/webui%3Aforget-ui/events')).json()) as { inflight?: string }).inflight);
    h.script({ rounds: [{ text: JSON.stringify({ user: 'gave the passport number X9Q2-7781', thinking: 'keep it', processing: 'noted', result: 'remembered X9Q2-7781' }) }] });
    const mm = async (op: string, args: Record<string, unknown>) =>
      ((await (await h.api('/api/memory-manager', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ op, sessionId: 'webui:forget-ui', args }) })).json()) as { value: Record<string, unknown> }).value;
    const sum = (await mm('session.summarize', { lastN: 1 })) as { summaries: { id: string; title: string }[] };
    assert.equal(sum.summaries.length, 1);
    await page.goto(`${h.url}/#/chat/${encodeURIComponent('webui:forget-ui')}`);
    const turn = page.locator(`[data-turn-id="${turnId}"]`);
    await turn.locator('[data-testid=forget-chat-turn]').waitFor({ state: 'attached', timeout: T });
    await closeToasts(page);
    await turn.locator('.msg.user').hover();
    await turn.locator('[data-testid=forget-chat-turn]').click({ timeout: T });
    const made = page.locator('[data-testid=forget-made-from]');
    await made.first().waitFor({ timeout: T });
    assert.match((await page.textContent('[data-testid=forget-made-from-memories]')) ?? '', /made from what is forgotten/);
    assert.match((await made.first().textContent()) ?? '', /X9Q2-7781/);
    const box = page.locator('[data-testid=forget-made-from-memories] input[type=checkbox]');
    assert.equal(await box.count(), 1);
    assert.equal(await box.isChecked(), true, 'ticked: it goes with the turn unless the person keeps it');
    await shot(page, 'forget-made-from');
    await page.click('[data-testid=forget-confirm]');
    await page.waitForSelector('[data-testid=forget-dialog]', { state: 'detached', timeout: T });
    const ids = ((await mm('memory.list', {})) as { items: { id: string }[] }).items.map((m) => m.id);
    assert.ok(!ids.includes(sum.summaries[0].id), 'the summary went with the turn');
  });

  it('other turns that quote what was said are listed ticked; the ticked ones go with the turn, an unticked one stays in memory (decision 0450)', async () => {
    const turnId = await chat('My bike lock combination is 8-3-1-9-0', 'Noted the bike lock.');
    await until(async () => !((await (await h.api('/api/v1/sessions/webui%3Aforget-ui/events')).json()) as { inflight?: string }).inflight);
    const first = await chat('Reminder for me: My bike lock combination is 8-3-1-9-0, write it on a note', 'Written down.');
    await until(async () => !((await (await h.api('/api/v1/sessions/webui%3Aforget-ui/events')).json()) as { inflight?: string }).inflight);
    await chat('Tell my sister: My bike lock combination is 8-3-1-9-0 (the blue bike)', 'I will tell her.');
    await until(async () => !((await (await h.api('/api/v1/sessions/webui%3Aforget-ui/events')).json()) as { inflight?: string }).inflight);
    await until(async () => (await hits('blue bike sister')).includes('8-3-1-9-0'));
    await page.goto(`${h.url}/#/chat/${encodeURIComponent('webui:forget-ui')}`);
    const turn = page.locator(`[data-turn-id="${turnId}"]`);
    await turn.locator('[data-testid=forget-chat-turn]').waitFor({ state: 'attached', timeout: T });
    await closeToasts(page);
    await turn.locator('.msg.user').hover();
    await turn.locator('[data-testid=forget-chat-turn]').click({ timeout: T });
    const rows = page.locator('[data-testid=forget-quoting]');
    await rows.first().waitFor({ timeout: T });
    assert.equal(await rows.count(), 2);
    assert.match((await page.textContent('[data-testid=forget-quoting-turns] h4')) ?? '', /Other turns that quote what was said \(2\)/);
    assert.match((await rows.nth(0).textContent()) ?? '', new RegExp(first.replace(/[#:]/g, '.')));
    assert.match((await rows.nth(1).textContent()) ?? '', /blue bike/);
    for (const i of [0, 1]) assert.equal(await rows.nth(i).locator('input[type=checkbox]').isChecked(), true, 'ticked: they go unless the person keeps one');
    // The person keeps the message for their sister.
    await rows.nth(1).locator('input[type=checkbox]').uncheck();
    await shot(page, 'forget-quoting-turns');
    await page.click('[data-testid=forget-confirm]');
    await page.waitForSelector('[data-testid=forget-dialog]', { state: 'detached', timeout: T });
    const left = await hits('bike lock combination');
    assert.doesNotMatch(left, /write it on a note/, 'the ticked quoting turn went');
    assert.match(left, /blue bike/, 'the unticked one stays in memory');
    const log = JSON.stringify(await (await h.api('/api/v1/sessions/webui%3Aforget-ui/events')).json());
    assert.match(log, /Tell my sister: My bike lock combination is 8-3-1-9-0/, 'and its message stays in the chat (kept: keepTurnIds)');
    assert.doesNotMatch(log, /write it on a note/);
    // A request naming a turn both to forget and to keep is refused over HTTP.
    const bad = await h.api('/api/v1/memory/forget', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ turnIds: ['webui:forget-ui#1'], keepTurnIds: ['webui:forget-ui#1'] }) });
    assert.equal(bad.status, 400);
    const history = JSON.stringify(await (await h.api('/api/v1/memory/history?limit=5')).json());
    assert.match(history, /forgot 2 turns/);
  });

  it('a summary made from an excluded turn is marked "set aside" in the library, with why; restored, the mark goes (decision 0440)', async () => {
    const turnId = await chat('My locker at the gym is number 318', 'Noted the locker.');
    await until(async () => !((await (await h.api('/api/v1/sessions/webui%3Aforget-ui/events')).json()) as { inflight?: string }).inflight);
    h.script({ rounds: [{ text: JSON.stringify({ user: 'said the gym locker is 318', thinking: 'keep it', processing: 'noted', result: 'locker 318' }) }] });
    const mm = async (op: string, args: Record<string, unknown>) =>
      ((await (await h.api('/api/memory-manager', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ op, sessionId: 'webui:forget-ui', args }) })).json()) as { value: Record<string, unknown> }).value;
    const id = ((await mm('session.summarize', { lastN: 1 })) as { summaries: { id: string }[] }).summaries[0].id;
    const post = (path: string) => h.api(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ turnIds: [turnId] }) });
    assert.equal((await post('/api/v1/memory/exclusions')).status, 200);
    await page.goto(`${h.url}/#/chat/${encodeURIComponent('webui:forget-ui')}`);
    if (!(await page.locator('[data-testid=tab-library]').count())) await page.click('[data-testid=toggle-memory]');
    await page.click('[data-testid=tab-library]');
    const row = page.locator(`[data-memory-id="${id}"]`);
    await row.locator('[data-testid=memory-set-aside]').waitFor({ timeout: T });
    assert.match((await row.locator('[data-testid=memory-set-aside]').getAttribute('title')) ?? '', /turn you excluded/);
    await row.locator('.memory-main').click();
    assert.match((await page.locator('[data-testid=detail-set-aside]').textContent({ timeout: T })) ?? '', /model does not get it until you restore/);
    await shot(page, 'library-set-aside');
    assert.equal((await post('/api/v1/memory/exclusions/restore')).status, 200);
    await page.click('[data-testid=tab-plan]');
    await page.click('[data-testid=tab-library]');
    await page.locator(`[data-memory-id="${id}"]`).waitFor({ timeout: T });
    // Restored: the list read again has no mark on it.
    await page.locator(`[data-memory-id="${id}"] [data-testid=memory-set-aside]`).waitFor({ state: 'detached', timeout: T });
  });

  it('excluding a turn in the Messages tab says how many memories made from it are set aside, and restoring says they are back (decision 0440)', async () => {
    const turnId = await chat('My bike shed key is the red one, number 77', 'Noted the shed key.');
    await until(async () => !((await (await h.api('/api/v1/sessions/webui%3Aforget-ui/events')).json()) as { inflight?: string }).inflight);
    h.script({ rounds: [{ text: JSON.stringify({ user: 'said the shed key is the red one, 77', thinking: 'keep it', processing: 'noted', result: 'shed key 77' }) }] });
    const r = await h.api('/api/memory-manager', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ op: 'session.summarize', sessionId: 'webui:forget-ui', args: { lastN: 1 } }) });
    assert.equal(r.status, 200);
    await page.goto(`${h.url}/#/chat/${encodeURIComponent('webui:forget-ui')}`);
    if (!(await page.locator('[data-testid=tab-messages]').count())) await page.click('[data-testid=toggle-memory]');
    await page.click('[data-testid=tab-messages]');
    const row = page.locator(`[data-turn-row="${turnId}"]`);
    await row.waitFor({ timeout: T });
    await row.locator('[data-testid=exclude-turn]').click();
    await page.locator('.toast', { hasText: 'Turn excluded from the context; 1 memory made from it is set aside too' }).waitFor({ timeout: T });
    await shot(page, 'messages-exclude-sets-aside');
    await row.locator('[data-testid=restore-turn]').click();
    await page.locator('.toast', { hasText: 'Turn restored; 1 memory made from it is back' }).waitFor({ timeout: T });
    // Forgotten, the turn is listed as forgotten with nothing left to exclude, forget or save.
    assert.equal((await h.api('/api/v1/memory/forget', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ turnIds: [turnId] }) })).status, 200);
    await page.click('[data-testid=tab-plan]');
    await page.click('[data-testid=tab-messages]');
    await row.locator('[data-testid=turn-forgotten]').waitFor({ timeout: T });
    assert.equal(await row.locator('[data-testid=exclude-turn], [data-testid=forget-turn-open], input[type=checkbox]').count(), 0);
    assert.doesNotMatch((await row.textContent()) ?? '', /shed key|\(forgotten\)/);
  });

  it('Settings → Memory history shows an exclusion; Undo brings the turn back', async () => {
    const turnId = await chat('My favourite mountain is the Eiger', 'A fine mountain.');
    await until(async () => (await hits('favourite mountain')).includes('Eiger'));
    const ex = await h.api('/api/v1/memory/exclusions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ turnIds: [turnId] }) });
    assert.equal(ex.status, 200);
    assert.doesNotMatch(await hits('favourite mountain Eiger'), /Eiger/);
    await page.goto(`${h.url}/#/settings/history`);
    const row = page.locator('[data-testid=history-row]', { hasText: `excluded turn ${turnId}` });
    await row.waitFor({ timeout: T });
    assert.match((await row.textContent()) ?? '', /you \(webui\)/);
    await shot(page, 'memory-history');
    // The daemon stores English sentences; the Chinese UI says them in Chinese (the turn id as it is).
    const zh = await openPage(browser, `${h.url}/#/settings/history`, { lang: 'zh', token: h.token });
    await zh.page.goto(`${h.url}/#/settings/history`);
    await zh.page.locator('[data-testid=history-row]', { hasText: `排除了对话轮次 ${turnId}` }).waitFor({ timeout: T });
    const summaries = await zh.page.locator('[data-testid=history-summary]').allTextContents();
    assert.ok(summaries.some((s) => /^遗忘了 \d+ 轮对话、\d+ 条事实、\d+ 份文档、\d+ 条记忆$/.test(s)), summaries.join(' | '));
    assert.ok(!summaries.some((s) => /^(forgot|excluded turn|added document) /.test(s)), summaries.join(' | '));
    assert.deepEqual(zh.errors, []);
    await zh.page.context().close();
    await row.locator('[data-testid=history-undo]').click();
    await until(async () => (await hits('favourite mountain')).includes('Eiger'));
    const left = (await (await h.api('/api/v1/memory/exclusions')).json()) as { turnIds: string[] };
    assert.deepEqual(left.turnIds, []);
    assert.deepEqual(errors, []);
  });

  it('two confirmations queued at once: when the first is answered elsewhere, the focus is not left on Approve for the second (each is its own dialog)', async () => {
    await chat('My locker number is 4411', 'Noted the locker.');
    await until(async () => !((await (await h.api('/api/v1/sessions/webui%3Aforget-ui/events')).json()) as { inflight?: string }).inflight);
    await chat('My bicycle serial is ZX9QQ', 'Noted the serial.');
    await until(async () => (await hits('locker number')).includes('4411') && (await hits('bicycle serial')).includes('ZX9QQ'));
    await page.goto(`${h.url}/#/settings/history`);
    await page.waitForSelector('[data-testid=conn].open', { timeout: T });
    // Two MCP clients ask to forget at the same moment: the daemon asks the person twice, in a queue.
    const client = async () => {
      const c = new Client({ name: 'queued-confirm', version: '1.0.0' });
      await c.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${h.token}` } } }));
      return c;
    };
    const [a, b] = [await client(), await client()];
    const first = a.callTool({ name: 'memory_forget', arguments: { query: '4411' } }) as Promise<CallToolResult>;
    await page.waitForFunction(() => /4411/.test(document.querySelector('[data-testid=confirm-detail]')?.textContent ?? ''), undefined, { timeout: T });
    const second = b.callTool({ name: 'memory_forget', arguments: { query: 'ZX9QQ' } }) as Promise<CallToolResult>;
    await until(async () => ((await (await h.api('/api/v1/confirm')).json()) as { pending: unknown[] }).pending.length === 2);
    // The person has tabbed to Approve when the first question is answered elsewhere (another
    // window; a timeout does the same): the next one takes its place under the focus.
    await page.focus('[data-testid=confirm-approve]');
    const pending = ((await (await h.api('/api/v1/confirm')).json()) as { pending: { id: string; detail: string }[] }).pending;
    const firstId = pending.find((p) => p.detail.includes('4411'))!.id;
    assert.equal((await h.api(`/api/v1/confirm/${encodeURIComponent(firstId)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ approved: true }) })).status, 200);
    await page.waitForFunction(() => /ZX9QQ/.test(document.querySelector('[data-testid=confirm-detail]')?.textContent ?? ''), undefined, { timeout: T });
    assert.equal(((await first).structuredContent as { forgotten: boolean }).forgotten, true);
    // The second dialog starts with the focus on itself, not on a button: a second Enter answers nothing.
    assert.notEqual(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'confirm-approve');
    await page.keyboard.press('Enter');
    await new Promise((r) => setTimeout(r, 400));
    assert.match((await page.textContent('[data-testid=confirm-detail]')) ?? '', /ZX9QQ/, 'the second request is still asked');
    assert.equal(((await (await h.api('/api/v1/confirm')).json()) as { pending: unknown[] }).pending.length, 1);
    await page.click('[data-testid=confirm-deny]');
    await page.waitForSelector('[data-testid=confirm-dialog]', { state: 'detached', timeout: T });
    assert.equal(((await second).structuredContent as { forgotten: boolean }).forgotten, false);
    assert.doesNotMatch(await hits('locker number 4411'), /4411/);
    assert.match(await hits('bicycle serial'), /ZX9QQ/);
    await a.close();
    await b.close();
    assert.deepEqual(errors, []);
  });

  it('each fact in the dialog has a tick; unticked, a fact made from the turn stays without it — "About me" shows it as kept, in Chinese too (decision 0520)', async () => {
    const said = '我叫小林，住在杭州';
    h.script({ rounds: [{ tool: { name: 'memory_commit', args: { triples: [{ subject: 'user', predicate: 'name', object: '小林', sentence: said }, { subject: 'user', predicate: 'lives_in', object: '杭州', sentence: said }] }, result: '' } }, { text: '好的，小林。' }] });
    const r = await h.api('/api/v1/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: said, sessionId: 'webui:forget-ui' }) });
    assert.equal(r.status, 202);
    const turnId = ((await r.json()) as { turnId: string }).turnId;
    await until(async () => !((await (await h.api('/api/v1/sessions/webui%3Aforget-ui/events')).json()) as { inflight?: string }).inflight);
    const about = async () => (await (await h.api('/api/v1/memory/about')).json()) as { about: { facts: { object: string; kept?: number; sources: unknown[] }[] } };
    await until(async () => (await about()).about.facts.some((f) => f.object === '杭州'));
    await page.goto(`${h.url}/#/chat/${encodeURIComponent('webui:forget-ui')}`);
    const turn = page.locator(`[data-turn-id="${turnId}"]`);
    await turn.locator('[data-testid=forget-chat-turn]').waitFor({ state: 'attached', timeout: T });
    await closeToasts(page);
    await turn.locator('.msg.user').hover();
    await turn.locator('[data-testid=forget-chat-turn]').click({ timeout: T });
    const facts = page.locator('[data-testid=forget-fact]');
    await facts.first().waitFor({ timeout: T });
    assert.equal(await facts.count(), 2);
    for (const i of [0, 1]) assert.equal(await facts.nth(i).locator('[data-testid=forget-fact-tick]').isChecked(), true, 'ticked: each goes with the turn unless the person keeps it');
    assert.match((await page.textContent('[data-testid=forget-dialog]')) ?? '', /Untick a fact to keep it/);
    const name = facts.filter({ hasText: '小林' });
    await name.locator('[data-testid=forget-fact-tick]').uncheck();
    assert.match((await name.locator('[data-testid=forget-fact-kept]').textContent()) ?? '', /kept, without the turn it came from/);
    assert.equal(await facts.filter({ hasText: '杭州' }).locator('[data-testid=forget-fact-kept]').count(), 0);
    await shot(page, 'forget-keep-fact');
    await page.click('[data-testid=forget-confirm]');
    await page.waitForSelector('[data-testid=forget-dialog]', { state: 'detached', timeout: T });
    const after = (await about()).about.facts;
    assert.ok(!after.some((f) => f.object === '杭州'), 'the place went with the turn');
    const kept = after.find((f) => f.object === '小林');
    assert.ok(kept && typeof kept.kept === 'number' && kept.sources.length === 0, JSON.stringify(after));
    // "About me" in Chinese says it was kept, and names no turn to jump to.
    const zh = await openPage(browser, `${h.url}/#/knows`, { lang: 'zh', token: h.token });
    const row = zh.page.locator('[data-testid=knows-fact]', { hasText: '小林' });
    await row.waitFor({ timeout: T });
    assert.match((await row.locator('[data-testid=knows-kept]').textContent()) ?? '', /于 \d{4}-\d\d-\d\d 遗忘它所来自的对话时由你保留/);
    assert.equal(await row.locator('[data-testid=knows-open]').count(), 0);
    assert.doesNotMatch((await zh.page.textContent('[data-testid=knows]')) ?? '', /杭州/);
    await shot(zh.page, 'knows-kept-fact');
    assert.deepEqual(zh.errors, []);
    await zh.page.context().close();
  });

  it('a Chinese page asks in Chinese: the question and the plan\'s own lines, with what was said kept as said', async () => {
    await chat('My gym pin is 5522', 'Noted the pin.');
    await until(async () => (await hits('gym pin')).includes('5522'));
    const zh = await openPage(browser, `${h.url}/#/settings/history`, { lang: 'zh', token: h.token });
    await zh.page.waitForSelector('[data-testid=conn].open', { timeout: T });
    const c = new Client({ name: 'zh-confirm', version: '1.0.0' });
    await c.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${h.token}` } } }));
    const asked = c.callTool({ name: 'memory_forget', arguments: { query: '5522' } }) as Promise<CallToolResult>;
    await zh.page.waitForFunction(() => /5522/.test(document.querySelector('[data-testid=confirm-detail]')?.textContent ?? ''), undefined, { timeout: T });
    const dialog = (await zh.page.textContent('[data-testid=confirm-dialog]')) ?? '';
    assert.match(dialog, /一个 MCP 客户端请求从所有记忆层和会话日志中遗忘 \d+ 项。遗忘后无法恢复。要遗忘吗？/);
    assert.match(dialog, /来自 mcp-server(?!（)/, 'no empty brackets where an MCP client has no session');
    const detail = (await zh.page.textContent('[data-testid=confirm-detail]')) ?? '';
    assert.match(detail, /^轮次 \S+［[^\]]+］：.*My gym pin is 5522/m, detail);
    assert.doesNotMatch(detail, /^turn /m);
    await zh.page.click('[data-testid=confirm-deny]');
    assert.equal(((await asked).structuredContent as { forgotten: boolean }).forgotten, false);
    await c.close();
    assert.deepEqual(zh.errors, []);
    await zh.page.context().close();
  });
});
