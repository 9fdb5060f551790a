/**
 * Memory changed elsewhere shows live in the WebUI (decision 0260), in a real browser against the
 * real daemon: with the Library or About me open, a memory saved or forgotten with the `waiter` CLI
 * (a separate process, over the daemon's socket) or through the HTTP API with the token (from this
 * test, not the page) appears or goes without a reload, a focus change or a turn — the daemon's
 * `memory_changed` event makes the view read again. A library scrolled across two pages keeps both
 * pages' rows on screen while it reads them again.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page, Route } from 'playwright-core';
import { ARTIFACTS, CHROMIUM, ROOT, graphNodePosition, launchBrowser, openPage, shot, startHarness, type Harness } from './support/harness.js';
import { writeLibrary } from './support/long-data.js';

/** Long enough for the event (≈ 0.3 s) and the throttled re-read (≤ 1.5 s); short enough to fail fast. */
const LIVE = 8_000;
const T = 20_000;
const LIBRARY = 250;
const skip = existsSync(CHROMIUM) ? false : `chromium not found at ${CHROMIUM} (apt-get install -y chromium fonts-wqy-microhei)`;
const WAITER_DIST = join(ROOT, 'dist', 'src', 'waiter', 'main.js');

describe('memory changed elsewhere shows live in the WebUI', { skip, timeout: 120_000 }, () => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  /** `waiter --home <data> …` as a person types it in a terminal: another process, the daemon's socket. */
  const waiter = (...args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const argv = existsSync(WAITER_DIST) ? [WAITER_DIST] : ['--import', 'tsx', join(ROOT, 'src', 'waiter', 'main.ts')];
      execFile(process.execPath, [...argv, '--home', h.home, ...args], { encoding: 'utf8', timeout: 30_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  const mmApi = async (op: string, args: Record<string, unknown>) => {
    const r = await h.api('/api/memory-manager', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ op, args }) });
    const j = (await r.json()) as { ok: boolean; value: unknown };
    assert.ok(j.ok, JSON.stringify(j));
    return j.value as Record<string, unknown>;
  };
  /** The page was not reloaded, did not regain focus and ran no turn since `mark()`. */
  // (A string: tsx would wrap a named function inside the page's code in a helper the page lacks.)
  const mark = () =>
    page.evaluate(`{
      window.__live = { focus: 0 };
      window.addEventListener('focus', () => (window.__live.focus += 1));
      document.addEventListener('visibilitychange', () => (window.__live.focus += 1));
    }`);
  const stillSamePage = async () => {
    const live = await page.evaluate(() => (window as unknown as { __live?: { focus: number } }).__live);
    assert.ok(live, 'the page was not reloaded');
    assert.equal(live.focus, 0, 'no focus or visibility change');
    const sessions = (await (await h.api('/api/v1/sessions')).json()) as { sessions: unknown[] };
    assert.equal(sessions.sessions.length, 0, 'no turn ran');
  };
  const count = async () => (await page.locator('[data-testid=library-count]').innerText()).match(/\d+/)?.[0];

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    h = await startHarness({ beforeStart: (home) => writeLibrary(home, LIBRARY) });
    browser = await launchBrowser();
    ({ page, errors } = await openPage(browser, `${h.url}/#/chat`, { lang: 'en', theme: 'light', token: h.token }));
    await page.waitForSelector('[data-testid=conn].open', { timeout: T });
  });
  after(async () => {
    await browser?.close();
    await h?.stop();
  });

  it('the Library shows a memory saved with `waiter library save` and loses one forgotten with `waiter memory forget`', async (t) => {
    if (h.mode !== 'daemon') return t.skip('the mini host has no change feed');
    if (!(await page.locator('[data-testid=tab-library]').count())) await page.click('[data-testid=toggle-memory]');
    await page.click('[data-testid=tab-library]');
    await page.waitForFunction((n) => document.querySelector('[data-testid=library-count]')?.textContent?.includes(String(n)), LIBRARY, { timeout: T });
    await mark();

    const saved = await waiter('--json', 'library', 'save', 'Saved from the terminal', 'the bike is in the blue shed');
    assert.equal(saved.code, 0, saved.stderr);
    const id = (JSON.parse(saved.stdout) as { id: string }).id;
    await page.waitForSelector(`[data-memory-id="${id}"]`, { timeout: LIVE });
    assert.match(await page.locator(`[data-memory-id="${id}"]`).innerText(), /Saved from the terminal/);
    assert.equal(await count(), String(LIBRARY + 1));
    await shot(page, 'memory-live-library-saved');

    const forgot = await waiter('memory', 'forget', '--memory', id, '--yes');
    assert.equal(forgot.code, 0, forgot.stderr);
    await page.waitForSelector(`[data-memory-id="${id}"]`, { state: 'detached', timeout: LIVE });
    await page.waitForFunction((n) => document.querySelector('[data-testid=library-count]')?.textContent?.includes(String(n)), LIBRARY, { timeout: LIVE });
    await stillSamePage();
  });

  it('a library scrolled across two pages keeps both pages shown while it reads them again', async (t) => {
    if (h.mode !== 'daemon') return t.skip('the mini host has no change feed');
    await page.click('[data-testid=tab-library]');
    // Rows 195–205 in view: pages 0 and 1 (200 rows a page).
    await page.evaluate(() => {
      const el = document.querySelector('.memory-panel .panel-body')!;
      const list = document.querySelector<HTMLElement>('[data-testid=memory-list]')!;
      el.scrollTop = list.offsetTop + 195 * 104;
    });
    await page.waitForSelector('[data-row="201"]:not(.placeholder)', { timeout: T });
    const secondPage = await page.locator('[data-row="201"]').getAttribute('data-memory-id');
    const lastOfFirst = await page.locator('[data-row="198"]').getAttribute('data-memory-id');
    // Hold the re-read of the second page until the first page's answer is on screen.
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let held = false;
    const hold = async (route: Route) => {
      const body = JSON.parse(route.request().postData() ?? '{}') as { op?: string; args?: { offset?: number } };
      if (body.op === 'memory.list' && body.args?.offset === 200 && !held) {
        held = true;
        await released;
      }
      // (After a failed assertion the route may be gone already: nothing to continue then.)
      await route.continue().catch(() => undefined);
    };
    await page.route('**/api/memory-manager', hold);
    try {
      const firstListAnswer = page.waitForResponse((r) => r.url().endsWith('/api/memory-manager') && /"offset":0\b/.test(r.request().postData() ?? ''), { timeout: LIVE });
      // Changed through the HTTP API with the token, from here — not through the page.
      const made = await mmApi('memory.save', { title: 'Saved over the API', snapshot: 'a memory saved by another client' });
      await firstListAnswer;
      assert.ok(held, 'the second page is being read again');
      // The first page's answer is rendered: its rows moved down by one (198 → 199).
      await page.waitForFunction((prev) => document.querySelector('[data-row="199"]')?.getAttribute('data-memory-id') === prev, lastOfFirst, { timeout: LIVE });
      const placeholders = await page.locator('[data-testid=memory-list] .memory-item.placeholder').count();
      assert.equal(placeholders, 0, 'no row of the second page blanked while it is read again');
      assert.equal(await page.locator('[data-row="201"]').getAttribute('data-memory-id'), secondPage, 'the old row stays until its page is back');
      release();
      // One memory more at the top: every row moves down by one once the second page is back.
      await page.waitForFunction((prev) => document.querySelector('[data-row="202"]')?.getAttribute('data-memory-id') === prev, secondPage, { timeout: LIVE });
      await mmApi('memory.delete', { id: made.id });
    } finally {
      release();
      await page.unroute('**/api/memory-manager', hold);
    }
  });

  it('About me shows a fact added with `waiter memory commit` and drops it when forgotten over the HTTP API', async (t) => {
    if (h.mode !== 'daemon') return t.skip('the mini host has no change feed');
    await page.evaluate(() => (window.location.hash = '#/knows'));
    await page.waitForSelector('[data-testid=knows]', { timeout: T });
    await mark();
    const fact = page.locator('[data-testid=knows-fact]', { hasText: 'Kitesurfing' });
    assert.equal(await fact.count(), 0);

    const added = await waiter('memory', 'commit', 'user', 'likes', 'Kitesurfing');
    assert.equal(added.code, 0, added.stderr);
    await fact.waitFor({ timeout: LIVE });
    await shot(page, 'memory-live-about-me');

    const about = (await (await h.api('/api/v1/memory/about')).json()) as { about: { facts: { id: number; object: string }[] } };
    const id = about.about.facts.find((f) => f.object === 'Kitesurfing')!.id;
    const r = await h.api('/api/v1/memory/forget', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ relationIds: [id] }) });
    assert.equal(r.status, 200, await r.text());
    await fact.waitFor({ state: 'detached', timeout: LIVE });
    await stillSamePage();
    assert.deepEqual(errors, []);
  });

  it('a switch moved while an older read of the memory is on its way stays where it was moved: that answer does not move it back', async (t) => {
    if (h.mode !== 'daemon') return t.skip('the mini host has no change feed');
    await page.evaluate(() => (window.location.hash = '#/chat'));
    if (!(await page.locator('[data-testid=tab-library]').count())) await page.click('[data-testid=toggle-memory]');
    await page.click('[data-testid=tab-library]');
    const first = page.locator('[data-testid=memory-list] .memory-item').first();
    const id = (await first.getAttribute('data-memory-id', { timeout: T }))!;
    await first.locator('.memory-main').click();
    const toggle = page.getByTestId('memory-enabled');
    await page.waitForSelector('[data-testid=memory-enabled][aria-checked=true]', { timeout: T });
    // Every state the switch shows from here on.
    await page.evaluate(`(() => {
      const el = document.querySelector('[data-testid=memory-enabled]');
      window.__switch = [];
      new MutationObserver(() => window.__switch.push(el.getAttribute('aria-checked'))).observe(el, { attributes: true, attributeFilter: ['aria-checked'] });
    })()`);
    // Reads of this memory are answered by the daemon at once and handed to the page only later;
    // the page's save of the switch is done by the daemon at once, its answer handed on later too.
    const gate = () => {
      let open!: () => void;
      const opened = new Promise<void>((r) => (open = r));
      return { open, opened };
    };
    const readAsked = gate();
    const readsGo = gate();
    const saved = gate();
    const saveGoes = gate();
    let holdReads = true;
    const held = async (route: Route) => {
      const body = JSON.parse(route.request().postData() ?? '{}') as { op?: string; args?: { id?: string } };
      if (body.args?.id === id && ((body.op === 'memory.get' && holdReads) || body.op === 'memory.updateMeta')) {
        const answer = await route.fetch();
        if (body.op === 'memory.get') {
          readAsked.open();
          await readsGo.opened;
        } else {
          saved.open();
          await saveGoes.opened;
        }
        return route.fulfill({ response: answer, headers: { ...answer.headers(), 'x-e2e-held': '1' } }).catch(() => undefined);
      }
      await route.continue().catch(() => undefined);
    };
    await page.route('**/api/memory-manager', held);
    try {
      // Changed elsewhere (another client): the open memory is read again — while it is on on the daemon.
      await mmApi('memory.updateMeta', { id, impressions: ['read while the switch moves'] });
      await readAsked.opened;
      // The person turns it off; the daemon has it off.
      await toggle.click();
      await saved.opened;
      holdReads = false;
      assert.equal((await mmApi('memory.get', { id })).enabled, false);
      // The read from before the click arrives now: it says "on".
      const delivered = page.waitForResponse((r) => r.headers()['x-e2e-held'] === '1' && /"memory\.get"/.test(r.request().postData() ?? ''), { timeout: T });
      readsGo.open();
      await delivered;
      // (Two frames: time for the page to take the answer in, or to drop it.)
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      assert.equal(await toggle.getAttribute('aria-checked'), 'false', 'the older answer moved the switch back');
      saveGoes.open();
      // The save is through: the memory is read again, off.
      await page.waitForResponse((r) => r.url().endsWith('/api/memory-manager') && /"memory\.get"/.test(r.request().postData() ?? ''), { timeout: T });
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      assert.deepEqual(await page.evaluate(() => (window as unknown as { __switch: string[] }).__switch), ['false'], 'the switch went off once and stayed off');
    } finally {
      readsGo.open();
      saveGoes.open();
      await page.unroute('**/api/memory-manager', held);
      await mmApi('memory.updateMeta', { id, enabled: true });
    }
    assert.deepEqual(errors, []);
  });

  it('a switch moved in the library list while an older read of the list is on its way stays where it was moved', async (t) => {
    if (h.mode !== 'daemon') return t.skip('the mini host has no change feed');
    await page.evaluate(() => (window.location.hash = '#/chat'));
    if (!(await page.locator('[data-testid=tab-library]').count())) await page.click('[data-testid=toggle-memory]');
    await page.click('[data-testid=tab-library]');
    const first = page.locator('[data-testid=memory-list] .memory-item').first();
    const id = (await first.getAttribute('data-memory-id', { timeout: T }))!;
    const row = page.locator(`[data-memory-id="${id}"]`);
    const toggle = row.getByRole('switch');
    await page.waitForSelector(`[data-memory-id="${id}"] [role=switch][aria-checked=true]`, { timeout: T });
    // Every state the row's switch shows from here on.
    await page.evaluate(`(() => {
      const el = document.querySelector('[data-memory-id="${id}"] [role=switch]');
      window.__rowSwitch = [];
      new MutationObserver(() => window.__rowSwitch.push(el.getAttribute('aria-checked'))).observe(el, { attributes: true, attributeFilter: ['aria-checked'] });
    })()`);
    // A read of the list is answered by the daemon at once and handed to the page only later.
    let asked!: () => void;
    const listAsked = new Promise<void>((r) => (asked = r));
    let go!: () => void;
    const listsGo = new Promise<void>((r) => (go = r));
    let holdReads = true;
    const held = async (route: Route) => {
      const body = JSON.parse(route.request().postData() ?? '{}') as { op?: string };
      if (holdReads && body.op === 'memory.list') {
        const answer = await route.fetch();
        asked();
        await listsGo;
        return route.fulfill({ response: answer, headers: { ...answer.headers(), 'x-e2e-held': '1' } }).catch(() => undefined);
      }
      await route.continue().catch(() => undefined);
    };
    await page.route('**/api/memory-manager', held);
    try {
      // Changed elsewhere: the list is read again — while the memory is on.
      await mmApi('memory.updateMeta', { id, impressions: ['list read while the switch moves'] });
      await listAsked;
      holdReads = false;
      // The person turns it off in the list; the daemon has it off.
      const saved = page.waitForResponse((r) => /"memory\.updateMeta"/.test(r.request().postData() ?? ''), { timeout: T });
      await toggle.click();
      assert.equal((await saved).status(), 200);
      assert.equal((await mmApi('memory.get', { id })).enabled, false);
      // The read from before the click arrives now: it says "on".
      const delivered = page.waitForResponse((r) => r.headers()['x-e2e-held'] === '1', { timeout: T });
      go();
      await delivered;
      // (Two frames: time for the page to take the answer in.)
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      assert.equal(await toggle.getAttribute('aria-checked'), 'false', 'the older answer moved the switch back');
      assert.deepEqual(await page.evaluate(() => (window as unknown as { __rowSwitch: string[] }).__rowSwitch), ['false'], 'the switch went off once and stayed off');
    } finally {
      go();
      await page.unroute('**/api/memory-manager', held);
      await mmApi('memory.updateMeta', { id, enabled: true });
    }
    assert.deepEqual(errors, []);
  });
  it('the open memory graph takes a memory saved elsewhere in place: no new layout, every node where it was, the hovered one keeps its tip', async (t) => {
    if (h.mode !== 'daemon') return t.skip('the mini host has no change feed');
    await page.goto(`${h.url}/#/chat`);
    await page.click('[data-testid=toggle-graph]');
    try {
      await page.waitForFunction(() => (window.__haGraph?.ids().length ?? 0) >= 200, undefined, { timeout: T });
      const before = await page.evaluate(() => window.__haGraph!.ids());
      const hovered = before[0];
      const pos = await graphNodePosition(page, hovered);
      await page.mouse.move(pos.x, pos.y);
      const tip = page.locator('[data-testid=graph-tip] .graph-tip-title');
      await tip.waitFor({ timeout: T });
      const title = await tip.textContent();
      const where = () => page.evaluate((ids) => Object.fromEntries(ids.map((id) => [id, window.__haGraph!.positionOf(id) ?? null])), before);
      const was = await where();
      // Whether "computing layout…" shows at any moment from here on.
      await page.evaluate(`{
        window.__relaid = false;
        new MutationObserver(() => { if (document.querySelector('[data-testid=graph-layout-progress]')) window.__relaid = true; }).observe(document.body, { childList: true, subtree: true });
      }`);
      const saved = await mmApi('memory.save', { title: 'Saved while the graph is open', snapshot: 'the spare key is under the blue pot' });
      const id = String(saved.id);
      await page.waitForFunction((x) => window.__haGraph?.ids().includes(x), id, { timeout: LIVE });
      assert.equal(await page.evaluate(() => (window as unknown as { __relaid: boolean }).__relaid), false, 'the graph was not laid out anew');
      const now = await where();
      const moved = before.filter((n) => was[n] && now[n] && (Math.abs(was[n]!.x - now[n]!.x) > 0.5 || Math.abs(was[n]!.y - now[n]!.y) > 0.5));
      assert.deepEqual(moved, [], 'every node still shown stands where it stood');
      assert.ok(now[hovered], 'the hovered node is still shown');
      assert.equal(await tip.textContent(), title, 'its tip is still there');
      await shot(page, 'memory-live-graph-in-place');
    } finally {
      await page.keyboard.press('Escape');
      await page.waitForSelector('.graph-overlay', { state: 'detached', timeout: T });
    }
    assert.deepEqual(errors, []);
  });

  it('the open knowledge graph takes a fact added elsewhere in place: every entity where it was, the new one beside them (decision 0690)', async (t) => {
    if (h.mode !== 'daemon') return t.skip('the mini host has no change feed');
    for (const [s, p, o] of [['user', 'lives_in', 'Porto'], ['user', 'works_at', 'Acme'], ['user', 'likes', 'Green tea'], ['Porto', 'located_in', 'Portugal'], ['Acme', 'located_in', 'Porto']]) {
      const r = await waiter('memory', 'commit', s, p, o);
      assert.equal(r.code, 0, r.stderr);
    }
    await page.goto(`${h.url}/#/chat`);
    await page.click('[data-testid=toggle-graph]');
    try {
      await page.click('[data-testid=tab-knowledge]');
      await page.waitForFunction(() => ['user', 'Porto', 'Acme', 'Green tea', 'Portugal'].every((id) => window.__haGraph?.ids().includes(id)), undefined, { timeout: T });
      const before = await page.evaluate(() => window.__haGraph!.ids());
      // Settled on screen (the overlay's opening and the first picture done), then where each stands.
      await graphNodePosition(page, 'Porto');
      const where = () => page.evaluate((ids) => Object.fromEntries(ids.map((id) => [id, window.__haGraph!.positionOf(id) ?? null])), before);
      const was = await where();
      const added = await waiter('memory', 'commit', 'user', 'plays', 'Padel');
      assert.equal(added.code, 0, added.stderr);
      await page.waitForFunction(() => window.__haGraph?.ids().includes('Padel'), undefined, { timeout: LIVE });
      await graphNodePosition(page, 'Padel');
      const now = await where();
      const moved = before.filter((n) => !now[n] || Math.abs(was[n]!.x - now[n]!.x) > 0.5 || Math.abs(was[n]!.y - now[n]!.y) > 0.5);
      assert.deepEqual(moved, [], 'every entity still shown stands where it stood (no new layout, no new fit)');
      await shot(page, 'memory-live-knowledge-graph-in-place');
    } finally {
      await page.keyboard.press('Escape');
      await page.waitForSelector('.graph-overlay', { state: 'detached', timeout: T });
    }
    assert.deepEqual(errors, []);
  });
});
