/**
 * Decision 0620 in a real browser against the real daemon: a Lua adapter an import held in
 * `adapters/imported/` is listed on Settings → LLM sources; "Read…" shows its whole code and what it
 * would replace before anything is taken; taking it is the person's click in that dialog, and one
 * that would replace an adapter here waits for a second, explicit tick. One the person does not
 * want is discarded from that dialog (two presses).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, CHROMIUM, launchBrowser, openPage, shot, startHarness, type Harness } from './support/harness.js';

const T = 30_000;
const skip = existsSync(CHROMIUM) ? false : `chromium not found at ${CHROMIUM} (apt-get install -y chromium fonts-wqy-microhei)`;
const CODE = `local base = import_adapter("openai-compatible")
transform_request = base.transform_request
transform_response = base.transform_response
-- HELD-ADAPTER-MARK: read me before taking me
`;

describe('Held Lua adapters on the LLM sources page (decision 0620)', { skip, timeout: 180_000 }, () => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    // What an import leaves (decision 0540): held adapters, one new and one named like a shipped one.
    h = await startHarness({
      beforeStart: (home) => {
        mkdirSync(join(home, 'adapters', 'imported'), { recursive: true });
        writeFileSync(join(home, 'adapters', 'imported', 'myvendor.lua'), CODE);
        writeFileSync(join(home, 'adapters', 'imported', 'openai.lua'), CODE);
      },
    });
    browser = await launchBrowser();
    ({ page, errors } = await openPage(browser, h.url, { lang: 'en', theme: 'light', token: h.token }));
  });
  after(async () => {
    await browser?.close();
    await h?.stop();
  });

  it('the person reads the code, then takes it; one that replaces a shipped adapter needs the tick', async () => {
    await page.goto(`${h.url}/#/settings/providers`);
    await page.getByTestId('held-adapters').waitFor({ timeout: T });
    await page.getByTestId('held-adapter-read-myvendor').click();
    const dialog = page.getByTestId('held-adapter-dialog');
    await dialog.getByTestId('held-adapter-source').waitFor({ timeout: T });
    assert.equal(await dialog.getByTestId('held-adapter-source').textContent(), CODE, 'the whole code is shown before it is taken');
    assert.equal(existsSync(join(h.home, 'adapters', 'myvendor.lua')), false, 'reading takes nothing');
    await shot(page, 'held-adapter-read');
    await dialog.getByTestId('held-adapter-take').click();
    await dialog.waitFor({ state: 'detached', timeout: T });
    await page.locator('[data-testid=adapters] code', { hasText: 'myvendor' }).waitFor({ timeout: T });
    assert.equal(readFileSync(join(h.home, 'adapters', 'myvendor.lua'), 'utf8'), CODE);
    assert.equal(existsSync(join(h.home, 'adapters', 'imported', 'myvendor.lua')), false);

    // Named like a shipped adapter: "Take" stays off until the person ticks the replacement.
    await page.getByTestId('held-adapter-read-openai').click();
    await dialog.getByTestId('held-adapter-source').waitFor({ timeout: T });
    assert.equal(await dialog.getByTestId('held-adapter-take').isDisabled(), true);
    await dialog.getByText('Cancel').click();
    await dialog.waitFor({ state: 'detached', timeout: T });
    assert.equal(existsSync(join(h.home, 'adapters', 'openai.lua')), false, 'cancelled: nothing taken');
    assert.deepEqual(errors, []);
  });

  it('one the person does not want is discarded: the first press says what goes, the second deletes it', async () => {
    const held = join(h.home, 'adapters', 'imported', 'openai.lua');
    await page.getByTestId('held-adapter-read-openai').click();
    const dialog = page.getByTestId('held-adapter-dialog');
    await dialog.getByTestId('held-adapter-source').waitFor({ timeout: T });
    await dialog.getByTestId('held-adapter-discard').click();
    assert.match((await dialog.getByTestId('held-adapter-discard-sure').textContent()) ?? '', /adapters\/imported\/openai\.lua/);
    assert.equal(existsSync(held), true, 'the first press deletes nothing');
    await dialog.getByTestId('held-adapter-discard').click();
    await dialog.waitFor({ state: 'detached', timeout: T });
    // The list is gone with its last entry; nothing in adapters/ was written.
    await page.getByTestId('held-adapters').waitFor({ state: 'detached', timeout: T });
    assert.equal(existsSync(held), false);
    assert.equal(existsSync(join(h.home, 'adapters', 'openai.lua')), false);
    assert.deepEqual(errors, []);
  });
});
