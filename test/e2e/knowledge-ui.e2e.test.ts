/**
 * Settings → Knowledge in a real browser against the real daemon (found by a user walk, in
 * Chinese): a PDF added through "从文件添加…" becomes an entry of its text; an upload never replaces
 * an entry; an entry with a very long unbroken line wraps, so Edit and Delete stay on screen (the
 * pane was 3,169 px wide); the search runs as the person types, and no hits says that nothing
 * matched the words rather than that the knowledge base is empty.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, CHROMIUM, launchBrowser, openPage, recordToasts, shot, startHarness, type Harness } from './support/harness.js';
import { makePdf } from '../fixtures/make-pdf.js';

const T = 20_000;
const skip = existsSync(CHROMIUM) ? false : `chromium not found at ${CHROMIUM} (apt-get install -y chromium fonts-wqy-microhei)`;

describe('the knowledge base in the browser: a file added, long lines, search as you type', { skip, timeout: 180_000 }, () => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const pdf = makePdf([['Annual check-up 2026', 'Blood pressure 118/76'], ['Cholesterol within range']]);

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    h = await startHarness();
    browser = await launchBrowser();
    ({ page, errors } = await openPage(browser, h.url, { lang: 'zh', token: h.token }));
    await page.goto(`${h.url}/#/settings/knowledge`);
    await page.waitForSelector('[data-testid=knowledge-add-file]', { timeout: T });
  });
  after(async () => {
    await browser?.close();
    await h?.stop();
  });

  /** The file chooser the "从文件添加…" button opens, given `file`. */
  const chooseFile = async (file: { name: string; mimeType: string; buffer: Buffer }) => {
    const [chooser] = await Promise.all([page.waitForEvent('filechooser', { timeout: T }), page.click('[data-testid=knowledge-add-file]')]);
    assert.equal(await chooser.element().getAttribute('accept'), '.md,.markdown,.txt,.pdf,.html,.htm');
    await chooser.setFiles(file);
    await page.waitForSelector('[data-testid=knowledge-file-form]', { timeout: T });
  };

  it('"从文件添加…" reads a PDF into a new entry, named after the file, whose text is shown', async () => {
    assert.equal((await page.locator('[data-testid=knowledge-add-file]').innerText()).trim(), '从文件添加…');
    await chooseFile({ name: '体检报告 (2024).pdf', mimeType: 'application/pdf', buffer: pdf });
    // The name comes from the file, made into one the knowledge base takes (no brackets).
    assert.equal(await page.inputValue('[data-testid=knowledge-file-name]'), '体检报告 2024');
    await shot(page, 'knowledge-file-form');
    await page.fill('[data-testid=knowledge-file-name]', '体检/报告');
    assert.ok(await page.locator('[data-testid=knowledge-file-add]').isDisabled(), 'a name with a slash is not sent');
    assert.match(await page.locator('[data-testid=knowledge-name-rule]').innerText(), /名称为 1–64 个字母/);
    await page.fill('[data-testid=knowledge-file-name]', '体检报告');
    // The toast goes after a few seconds, maybe before the entry is read on a slow machine: recorded as shown.
    const toasts = await recordToasts(page);
    await page.click('[data-testid=knowledge-file-add]');
    const entry = page.locator('[data-testid=knowledge-entry]');
    await entry.waitFor({ timeout: T });
    await page.waitForFunction(() => /Blood pressure 118\/76/.test(document.querySelector('[data-testid=knowledge-entry]')?.textContent ?? ''), undefined, { timeout: T });
    const text = await entry.innerText();
    assert.match(text, /体检报告/);
    assert.match(text, /Annual check-up 2026[\s\S]*Cholesterol within range/);
    assert.doesNotMatch(text, /%PDF|endobj/);
    await toasts.waitFor(/^已添加“体检报告”：\d+ 个字符/, { kind: 'ok' });
    await shot(page, 'knowledge-from-pdf');
  });

  it('an upload never replaces an entry: the same name is refused in Chinese and the entry stays', async () => {
    await chooseFile({ name: '体检报告.pdf', mimeType: 'application/pdf', buffer: makePdf([['A different report']]) });
    assert.equal(await page.inputValue('[data-testid=knowledge-file-name]'), '体检报告');
    await page.click('[data-testid=knowledge-file-add]');
    await page.waitForSelector('.toast.error', { timeout: T });
    assert.match(await page.locator('.toast.error').last().innerText(), /^已有名为“体检报告”的知识条目：打开它来编辑，或换一个名字$/);
    const stored = (await (await h.api(`/api/v1/memory/knowledge/${encodeURIComponent('体检报告')}`)).json()) as { item: { content: string } };
    assert.match(stored.item.content, /Blood pressure/);
    // A file that is not text (an image, whatever it is called) is refused in Chinese too.
    await page.click('[data-testid=knowledge-file-form] .btn:not(.primary)');
    await chooseFile({ name: 'photo.txt', mimeType: 'text/plain', buffer: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]) });
    await page.click('[data-testid=knowledge-file-add]');
    await page.waitForFunction(() => Array.from(document.querySelectorAll('.toast.error')).some((x) => /“photo\.txt”不是知识库能读取的文件/.test(x.textContent ?? '')), undefined, { timeout: T });
    assert.equal(((await (await h.api('/api/v1/memory/knowledge')).json()) as { items: { name: string }[] }).items.filter((k) => k.name === 'photo').length, 0);
    await page.click('[data-testid=knowledge-file-form] .btn:not(.primary)');
  });

  it('an entry with a very long unbroken line wraps: Edit and Delete stay on screen, at desktop and phone width', async () => {
    const line = `https://example.com/${'a1b2c3'.repeat(600)}`;
    const put = await h.api(`/api/v1/memory/knowledge/${encodeURIComponent('长行')}`, { method: 'PUT', headers: { 'content-type': 'application/json', 'if-none-match': '*' }, body: JSON.stringify({ content: `# 长行\n\n${line}\n\n\`\`\`\n${line}\n\`\`\`` }) });
    assert.equal(put.status, 200, await put.text());
    for (const width of [1360, 390]) {
      const p = width === 1360 ? page : (await openPage(browser, h.url, { lang: 'zh', token: h.token, width, height: 800 })).page;
      await p.goto(`${h.url}/#/settings/knowledge`);
      await p.locator('[data-testid=knowledge-item]', { hasText: '长行' }).click({ timeout: T });
      await p.locator('[data-testid=knowledge-entry]', { hasText: 'a1b2c3' }).waitFor({ timeout: T });
      // (No helper functions inside: the test's transpiler would name them with a function the page lacks.)
      const fit = await p.evaluate(() => ({
        vw: document.documentElement.clientWidth,
        edit: document.querySelector('[data-testid=knowledge-edit]')!.getBoundingClientRect().toJSON() as DOMRect,
        del: document.querySelector('[data-testid=knowledge-delete]')!.getBoundingClientRect().toJSON() as DOMRect,
        pane: document.querySelector('.split-detail')!.getBoundingClientRect().width,
        scroll: document.documentElement.scrollWidth,
      }));
      for (const [what, b] of [['Edit', fit.edit], ['Delete', fit.del]] as const) {
        assert.ok(b.width > 0 && b.left >= 0 && b.right <= fit.vw, `${width} px: ${what} at ${Math.round(b.left)}–${Math.round(b.right)}, the window is ${fit.vw} px`);
      }
      assert.ok(fit.pane <= fit.vw, `${width} px: the pane is ${Math.round(fit.pane)} px wide`);
      assert.ok(fit.scroll <= fit.vw + 1, `${width} px: the page scrolls sideways (${fit.scroll} px)`);
      if (width === 390) {
        await shot(p, 'knowledge-long-line-phone');
        await p.context().close();
      } else await shot(p, 'knowledge-long-line');
    }
  });

  it('searches as the person types (no Enter); no hits says that nothing matched, not that the knowledge base is empty', async () => {
    await page.goto(`${h.url}/#/settings/knowledge`);
    await page.locator('[data-testid=knowledge-item]').first().waitFor({ timeout: T });
    await page.locator('[data-testid=knowledge-search]').pressSequentially('cholesterol', { delay: 30 });
    const hit = page.locator('[data-testid=knowledge-hit]', { hasText: '体检报告' });
    await hit.waitFor({ timeout: T });
    assert.match(await hit.innerText(), /Cholesterol/i);
    await page.fill('[data-testid=knowledge-search]', 'zzqqxx');
    const empty = page.locator('[data-testid=knowledge-empty]');
    await page.waitForFunction(() => /zzqqxx/.test(document.querySelector('[data-testid=knowledge-empty]')?.textContent ?? ''), undefined, { timeout: T });
    assert.equal((await empty.innerText()).trim(), '没有与“zzqqxx”匹配的知识条目。');
    await page.fill('[data-testid=knowledge-search]', '');
    await page.locator('[data-testid=knowledge-item]', { hasText: '长行' }).waitFor({ timeout: T });
    assert.equal(await empty.count(), 0);
    assert.deepEqual(errors, []);
  });
});
