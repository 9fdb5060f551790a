/**
 * The main pages in Chinese, as a Chinese-speaking person meets them (decision 0530): no English
 * sentence left in what the page itself says — the daemon's built-in descriptions, the names it
 * gives its services, sources and channels, the embedder's id, the choices of a setting — while
 * the names that stay (products, commands, keys, ids, paths, what the person wrote) may.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, CHROMIUM, graphNodePosition, launchBrowser, openPage, shot, startHarness, type Harness } from './support/harness.js';
import { GraphDB } from '../../src/memory/index.js';

const T = 20_000;
const skip = existsSync(CHROMIUM) ? false : `chromium not found at ${CHROMIUM} (apt-get install -y chromium fonts-wqy-microhei)`;

/**
 * Runs of three or more English words in what the page shows (a-hyphenated-name is one word: a
 * program's or an adapter's), leaving out what stays as written:
 * code, keys and paths (`code`, `.mono`, `.key-hint`), the choices of a list (`option`: time zone
 * names), tool names, and what a person or the model wrote (chat bubbles, memory text).
 */
async function englishLeft(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const skipSel = 'code, pre, kbd, .mono, .key-hint, option, script, style, .tool-chip, .bubble, .md, .snapshot, [data-testid=turn]';
    const out: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || el.closest(skipSel)) continue;
      const style = getComputedStyle(el);
      if (style.display === 'none' || style.visibility === 'hidden') continue;
      for (const m of (n.textContent ?? '').matchAll(/[A-Za-z]{2,}(?:[ ,'’]+[A-Za-z]{2,}){2,}/g)) out.push(m[0]);
    }
    return out;
  });
}

describe('The Chinese pages say their own words in Chinese', { skip, timeout: 240_000 }, () => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    h = await startHarness({
      beforeStart(home) {
        const g = new GraphDB({ path: join(home, 'graph.db') });
        g.open();
        g.commit([{ subject: 'user', predicate: 'lives_in', object: '杭州' }]);
        g.close();
      },
    });
    const post = (path: string, body: unknown, method = 'POST') => h.api(path, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal((await post('/api/memory-manager', { op: 'memory.save', args: { id: 'green-tea', title: '爱喝绿茶', snapshot: '每天早上喝一杯绿茶，不加糖。' } })).status, 200);
    assert.equal((await post('/api/v1/memory/knowledge/菜谱', { content: '番茄炒蛋：先炒蛋。' }, 'PUT')).status, 200);
    browser = await launchBrowser();
    ({ page, errors } = await openPage(browser, h.url, { lang: 'zh', theme: 'light', token: h.token }));
  });
  after(async () => {
    await browser?.close();
    await h?.stop();
  });

  /** Each settings section, and what shows once its data is there. */
  const sections: Record<string, string> = {
    providers: '[data-provider=qwen]',
    general: '[data-key="core.log.level"]',
    channels: '[data-key="plugin.qq.mode"]',
    people: '[data-testid=person-owner]',
    memory: '.settings-body .switch, .settings-body [role=switch]',
    plugins: '[data-testid=plugin-description]',
    knowledge: '.settings-body :text("菜谱")',
    documents: '.stat',
    history: '[data-testid=history-summary]',
    changes: '.settings-body p',
    data: '[data-testid=import-mode]',
    about: '[data-service]',
  };

  it('no English sentence on the chat, About me, any settings section, or the memory panel', async () => {
    const found: Record<string, string[]> = {};
    const look = async (name: string) => {
      // Each page reads its data once it shows: give it the time to arrive.
      await page.waitForFunction(() => !document.querySelector('.spinner') && !/加载中/.test(document.querySelector('main')?.textContent ?? ''), undefined, { timeout: T });
      await page.waitForTimeout(300);
      const left = await englishLeft(page);
      if (left.length) found[name] = left;
    };
    await page.goto(`${h.url}/#/chat`);
    await page.waitForSelector('[data-testid=chat-input]', { timeout: T });
    await look('chat');
    await page.goto(`${h.url}/#/knows`);
    await page.waitForSelector('[data-testid=knows-fact]', { timeout: T });
    await look('knows');
    for (const [s, ready] of Object.entries(sections)) {
      await page.goto(`${h.url}/#/settings/${s}`);
      await page.waitForSelector(`[data-testid=settings-${s}].active`, { timeout: T });
      await page.locator(ready).first().waitFor({ timeout: T });
      await look(`settings/${s}`);
    }
    await page.goto(`${h.url}/#/chat`);
    if (!(await page.locator('.memory-panel').count())) await page.click('[data-testid=toggle-memory]');
    for (const tab of ['plan', 'library', 'messages']) {
      await page.click(`[data-testid=tab-${tab}]`);
      await look(`memory/${tab}`);
    }
    assert.deepEqual(found, {});
    assert.deepEqual(errors, []);
  });

  it("the skills plugin's description, the embedder, the sources, the services and the channels in Chinese", async () => {
    await page.goto(`${h.url}/#/settings/plugins`);
    const skills = page.locator('.card', { has: page.locator('text=skill_load') }).locator('[data-testid=plugin-description]');
    assert.match((await skills.textContent({ timeout: T })) ?? '', /技能/);

    await page.goto(`${h.url}/#/settings/documents`);
    await page.locator('.stat', { hasText: '向量模型' }).waitFor({ timeout: T });
    assert.equal(await page.locator('.stat', { hasText: '向量模型' }).locator('.stat-value').textContent(), '未用（按字词匹配）');

    await page.goto(`${h.url}/#/settings/providers`);
    await page.waitForSelector('[data-provider=qwen]', { timeout: T });
    assert.match((await page.textContent('[data-provider=qwen] .provider-name')) ?? '', /^通义千问/);
    assert.match((await page.textContent('[data-provider=ollama] .provider-name')) ?? '', /^Ollama（本机）/);
    assert.match((await page.textContent('[data-provider=openai] .provider-name')) ?? '', /^OpenAI/, 'a product keeps its name');
    assert.match((await page.textContent('[data-testid=meta-moonshot]')) ?? '', /^OpenAI 兼容接口 · moonshot/);

    await page.goto(`${h.url}/#/settings/about`);
    await page.waitForSelector('[data-service=memoryManager]', { timeout: T });
    assert.equal((await page.textContent('[data-service=memoryManager]'))?.trim(), '● 记忆库');
    assert.equal((await page.textContent('[data-service=llm]'))?.trim(), '● 可以回答的模型');
    assert.match((await page.textContent('[data-endpoint=webui]')) ?? '', /^网页界面 http:/);
    assert.match((await page.textContent('[data-endpoint=socket]')) ?? '', /^waiter 命令行套接字 \//);

    await page.goto(`${h.url}/#/settings/channels`);
    await page.waitForSelector('[data-testid=notify-channel]', { timeout: T });
    assert.equal(await page.inputValue('[data-testid=notify-channel]'), 'webui', 'the value stored is still the channel');
    assert.equal((await page.textContent('[data-testid=notify-channel] option[value=webui]'))?.trim(), '网页界面（本页面）');
    const mode = page.locator('[data-key="plugin.qq.mode"] select');
    assert.deepEqual(await mode.locator('option').evaluateAll((os) => os.map((o) => `${(o as HTMLOptionElement).value}=${o.textContent}`)), ['off=关闭', 'forward=正向：HomeAgent 连接它', 'reverse=反向：它连接 HomeAgent']);

    await page.goto(`${h.url}/#/settings/memory`);
    await page.waitForSelector('text=智能体的记忆库工具', { timeout: T });
    await shot(page, 'zh-memory-settings');
    assert.deepEqual(errors, []);
  });

  it('the graph opened on 关于我 stands beside the page, not over it; hovering a node says what it is and holds, in Chinese', async () => {
    await page.setViewportSize({ width: 1360, height: 860 });
    await page.goto(`${h.url}/#/knows`);
    await page.waitForSelector('[data-testid=knows-fact]', { timeout: T });
    await page.click('[data-testid=toggle-graph]');
    await page.waitForSelector('.graph-overlay', { timeout: T });
    const id = 'green-tea';
    const pos = await graphNodePosition(page, id);
    // The page moved over: its facts and their Forget buttons are beside the graph and can be used.
    const layout = await page.evaluate(() => {
      const g = document.querySelector('.graph-overlay')!.getBoundingClientRect();
      const k = document.querySelector('[data-testid=knows]')!.getBoundingClientRect();
      const b = document.querySelector('[data-testid=knows-forget-fact]')!.getBoundingClientRect();
      return { graphRight: g.right, pageLeft: k.left, pageWidth: k.width, hit: document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2)?.getAttribute('data-testid') };
    });
    assert.ok(layout.pageLeft >= layout.graphRight - 1, `the page starts at ${layout.pageLeft}px, under the graph that ends at ${layout.graphRight}px`);
    assert.ok(layout.pageWidth >= 480, `the page beside the graph is ${layout.pageWidth}px wide`);
    assert.equal(layout.hit, 'knows-forget-fact', 'Forget on a fact can be clicked with the graph open');

    // A memory: its kind and when it changed, its first words, what a click does.
    await page.mouse.move(pos.x, pos.y);
    await page.waitForSelector('[data-testid=graph-tip]', { timeout: T });
    assert.equal(await page.textContent('[data-testid=graph-tip] .graph-tip-title'), '爱喝绿茶');
    assert.match((await page.textContent('[data-testid=graph-tip-kind]')) ?? '', /^记忆 · .*更新$/);
    assert.equal(await page.textContent('[data-testid=graph-tip-line]'), '每天早上喝一杯绿茶，不加糖。');
    await shot(page, 'zh-graph-beside-about-me');

    // An entity: its type and its facts as sentences, the owner as 你.
    await page.mouse.move(5, 5);
    await page.click('[data-testid=tab-knowledge]');
    const you = await graphNodePosition(page, 'user');
    await page.mouse.move(you.x, you.y);
    await page.waitForSelector('[data-testid=graph-tip]', { timeout: T });
    assert.equal(await page.textContent('[data-testid=graph-tip] .graph-tip-title'), '你');
    assert.match((await page.textContent('[data-testid=graph-tip-kind]')) ?? '', /1 条事实$/);
    assert.equal(await page.textContent('[data-testid=graph-tip-line]'), '你住在杭州');
    await page.keyboard.press('Escape');
    await page.waitForSelector('.graph-overlay', { state: 'detached', timeout: T });
    assert.deepEqual(errors, []);
  });
});
