/**
 * What `web_fetch` hands the daemon's HTML reader (`host.media`): the header's charset and the
 * page's URL; text types never reach it, and without it HTML is refused with a coded error.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readableHtml } from '../../media/index.js';
import { toReadable } from './readable-text.js';
import { WebError } from './web-error.js';

const media = { readableHtml };

test("an HTML page is read with the header's charset, its links resolved against the page's URL", async () => {
  // 中文 in GBK, declared only by the Content-Type header.
  const body = Buffer.concat([Buffer.from('<html><body><p>'), Buffer.from([0xd6, 0xd0, 0xce, 0xc4]), Buffer.from(' <a href="../tea">tea</a></p></body></html>')]);
  const page = await toReadable(body, 'text/html; charset=gbk', 'https://example.com/a/b', media);
  assert.deepEqual(page, { title: '', text: '中文 [tea](https://example.com/tea)', mode: 'page' });
  // No Content-Type at all: a body that opens like HTML is read as HTML.
  assert.deepEqual(await toReadable(Buffer.from('<p>hello <b>there</b></p>'), '', 'https://example.com/', media), { title: '', text: 'hello there', mode: 'page' });
  // An empty HTML answer is an empty page, not a failure of the reader.
  assert.deepEqual(await toReadable(Buffer.alloc(0), 'text/html', 'https://example.com/', media), { title: '', text: '', mode: 'page' });
});

test('text types need no reader; HTML without one is a coded refusal', async () => {
  assert.deepEqual(await toReadable(Buffer.from('  just text \n'), 'text/plain', 'https://example.com/', undefined), { title: '', text: 'just text', mode: 'text' });
  await assert.rejects(toReadable(Buffer.from('<html><body><p>x</p></body></html>'), 'text/html', 'https://example.com/', undefined), (e: unknown) => e instanceof WebError && e.code === 'WEB_READER_UNAVAILABLE');
});
