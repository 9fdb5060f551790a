/**
 * The one HTML reader behind `web_fetch` and the knowledge base's HTML files: what the reader
 * view keeps, when the whole page is kept instead, what never counts, how the bytes are decoded,
 * and inputs far larger or deeper than a page a person writes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseHTML } from 'linkedom';
import { KnowledgeFileError } from '../spec/index.js';
import { knowledgeFileText } from './index.js';
import { decodeHtml, domToMarkdown, readableHtml } from './readable-html.js';

const LONG = 'Longjing, or Dragon Well, is a pan-roasted green tea from the area of Longjing Village in Hangzhou, Zhejiang. '.repeat(4);
const ARTICLE = `<!doctype html><html><head><title>Teas  of
  Hangzhou</title><script>window.secret = "SCRIPT-TEXT";</script><style>.x{color:red}</style></head>
<body><nav><a href="/">Home</a> <a href="/shop">Shop</a> NAV-TEXT</nav>
<article><h1>Longjing</h1><p>${LONG}</p>
<p>See <a href="/brew">the brewing guide</a>, <a href="https://Example.COM">a shop</a>, <a href="mailto:tea@example.com">mail us</a> or <a href="javascript:void(0)">this</a>.</p></article>
<footer>FOOTER-TEXT</footer></body></html>`;
/** 中文 in GBK / GB18030: not valid UTF-8. */
const GBK_ZHONGWEN = [0xd6, 0xd0, 0xce, 0xc4];
const html = (s: string) => Buffer.from(s, 'utf8');

test("the reader view's pick: menus, footer, scripts and styles gone; the title on one line; relative links resolved against the page's URL", async () => {
  const page = await readableHtml(html(ARTICLE), { baseUrl: 'https://tea.example/guides/longjing' });
  assert.equal(page.mode, 'article');
  assert.equal(page.title, 'Teas of Hangzhou');
  assert.match(page.text, /^## Longjing\n\nLongjing, or Dragon Well/);
  assert.match(page.text, /See \[the brewing guide\]\(https:\/\/tea\.example\/brew\), \[a shop\]\(https:\/\/example\.com\/\), mail us or this\.$/);
  for (const hidden of ['SCRIPT-TEXT', 'color:red', 'NAV-TEXT', 'FOOTER-TEXT']) assert.ok(!page.text.includes(hidden), hidden);
  // A local file has no URL: a relative link leads nowhere, so only its words are kept.
  const file = await readableHtml(html(ARTICLE));
  assert.match(file.text, /See the brewing guide, \[a shop\]\(https:\/\/example\.com\/\), mail us or this\.$/);
});

test('no article: a short page gives its whole body; scripts, styles, templates, frames, drawings and form controls never count', async () => {
  const page = await readableHtml(
    html(`<html><head><title>Gate</title><style>p{color:red}</style></head><body><p>Gate code <b>4471</b>.</p><script>track()</script>
    <noscript>enable JS</noscript><template><p>TEMPLATE</p></template><iframe>frame</iframe><svg><text>SVG</text></svg><math><mi>x</mi></math>
    <form><textarea>draft</textarea><button>Click</button><select><option>opt</option></select><input value="v"></form><object>OBJ</object></body></html>`),
  );
  assert.deepEqual(page, { title: 'Gate', text: 'Gate code 4471.', mode: 'page' });
  assert.deepEqual(await readableHtml(html('<html><body><script>x()</script><style>p{}</style></body></html>')), { title: '', text: '', mode: 'page' });
});

test('a document without <html> and <body> (a fragment, an HTML5 page that leaves them out, plain text, nothing) is read like a browser reads it', async () => {
  const read = async (s: string) => (await readableHtml(html(s))).text;
  assert.equal(await read('<p>Gate code <b>4471</b>.</p>'), 'Gate code 4471.');
  const omitted = await readableHtml(html('<!doctype html><meta charset="utf-8"><title>Router</title><h1>Setup</h1><p>The router lives at 192.168.1.1.</p>'));
  assert.deepEqual(omitted, { title: 'Router', text: '# Setup\n\nThe router lives at 192.168.1.1.', mode: 'page' });
  assert.equal(await read('<html><head><title>T</title><style>p{}</style></head><p>inside html, no body</p></html>'), 'inside html, no body');
  assert.equal(await read('<head><title>T</title></head><body><p>body without html</p></body>'), 'body without html');
  assert.equal(await read('just words, no tags'), 'just words, no tags');
  assert.equal(await read('<!-- only a comment -->'), '');
  assert.deepEqual(await readableHtml(new Uint8Array(0)), { title: '', text: '', mode: 'page' });
  // What the knowledge base makes of them: the text, or "no text" — not a TypeError from the DOM.
  assert.equal((await knowledgeFileText(html('<h2>Wi-Fi</h2><p>guest network: tea-guests</p>'), { name: 'wifi.html' })).text, '## Wi-Fi\n\nguest network: tea-guests');
  await assert.rejects(knowledgeFileText(new Uint8Array(0), { name: 'empty.html' }), (e: unknown) => e instanceof KnowledgeFileError && e.code === 'KNOWLEDGE_FILE_EMPTY');
});

test('a kept file asks for most of the page (minShare): a pick that leaves much of the page out gives the whole page; scripts do not count in the share', async () => {
  const SIDEBAR = `<div class="related">${Array.from({ length: 12 }, (_, i) => `<p>Related note ${i}: oolong, pu-erh and white teas are kept apart from green teas in the cupboard.</p>`).join('')}</div>`;
  const bytes = html(`<html><head><title>Tea</title></head><body><article><h1>Longjing</h1><p>${LONG}</p></article>${SIDEBAR}</body></html>`);
  const web = await readableHtml(bytes);
  const kept = await readableHtml(bytes, { article: { minChars: 1, minShare: 0.7 } });
  assert.equal(web.mode, 'article');
  assert.doesNotMatch(web.text, /Related note/);
  assert.equal(kept.mode, 'page', 'the pick holds well under 70 % of the page');
  assert.match(kept.text, /^# Longjing\n\nLongjing, or Dragon Well[\s\S]*Related note 0:[\s\S]*Related note 11:/);
  // A page that is mostly its article keeps the pick, however large its scripts.
  const scripted = html(`<html><head><script>${'var tracking = "x";'.repeat(5000)}</script></head><body><article><h1>Longjing</h1><p>${LONG}</p></article><script>${'more();'.repeat(5000)}</script></body></html>`);
  assert.equal((await readableHtml(scripted, { article: { minChars: 1, minShare: 0.7 } })).mode, 'article');
  // minChars: a pick shorter than that is not enough, whatever its share.
  assert.equal((await readableHtml(bytes, { article: { minChars: 100_000 } })).mode, 'page');
});

test('structure as light Markdown: headings, lists, table rows, line breaks; preformatted text fenced as written (CRLF made \\n)', async () => {
  const page = await readableHtml(
    html(`<html><body><h2>Router</h2><p>Line one<br>line two</p><ul><li>2.4 GHz</li><li>5 GHz</li></ul>
    <table><tr><th>port</th><th>use</th></tr><tr><td>22</td><td>ssh</td></tr></table>
    <pre>ssh admin@192.168.1.1\r\n  uptime</pre><p>x  <b> y </b>  z</p><p><a href="https://example.com/empty"> </a></p></body></html>`),
    { article: { minChars: 1, minShare: 0.7 } },
  );
  assert.equal(page.text, '## Router\n\nLine one\nline two\n\n- 2.4 GHz\n- 5 GHz\n\n| port | use |\n| 22 | ssh |\n\n```\nssh admin@192.168.1.1\n  uptime\n```\n\nx y z');
});

test('decoding: a byte-order mark, then the transport charset, then valid UTF-8, then <meta charset>, else GB18030', async () => {
  const gbkPage = Buffer.concat([html('<html><head><meta charset="utf-8"></head><body><p>'), Buffer.from(GBK_ZHONGWEN), html('</p></body></html>')]);
  // The header's charset wins over the page's own (here wrong) declaration.
  assert.equal((await readableHtml(gbkPage, { charset: 'gbk' })).text, '中文');
  // The page's <meta>, in either spelling, when the bytes are not UTF-8.
  assert.equal(decodeHtml(Buffer.concat([html('<meta charset = "gbk"><p>'), Buffer.from(GBK_ZHONGWEN)])), '<meta charset = "gbk"><p>中文');
  const sjis = Buffer.concat([html('<meta http-equiv="Content-Type" content="text/html; charset=shift_jis"><p>'), Buffer.from([0x93, 0xfa, 0x96, 0x7b])]);
  assert.match(decodeHtml(sjis), /<p>日本$/);
  // A file saved as UTF-8 that kept the <meta> of the page it came from is read as UTF-8.
  assert.match(decodeHtml(html('<meta charset="iso-8859-1"><p>café</p>')), /café/);
  // A byte-order mark wins over everything, the header included.
  assert.equal(decodeHtml(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), html('<p>café</p>')]), 'iso-8859-1'), '<p>café</p>');
  assert.equal(decodeHtml(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<p>血压</p>', 'utf16le')])), '<p>血压</p>');
  // Nothing declared and not UTF-8: GB18030, the legacy encoding of Chinese files.
  assert.equal(decodeHtml(Buffer.concat([html('<p>'), Buffer.from(GBK_ZHONGWEN)])), '<p>中文');
  // An unknown label is passed over, not a reason to give up.
  assert.equal(decodeHtml(Buffer.concat([html('<meta charset="x-no-such"><p>'), Buffer.from(GBK_ZHONGWEN)]), 'x-nor-this'), '<meta charset="x-no-such"><p>中文');
  // A UTF-8 page cut inside its last character (a download limit) is still UTF-8, not mojibake.
  const cut = html('<p>café 中文');
  assert.equal(decodeHtml(cut.subarray(0, cut.length - 1)), '<p>café 中');
});

test('huge input: a 1 MB page is read whole (cutting is the caller’s to decide and say); nesting deeper than 300 levels is left out, not a stack overflow', async () => {
  const paras = Array.from({ length: 4000 }, (_, i) => `<p>Paragraph ${i}: ${'leaves and water '.repeat(14)}</p>`).join('');
  const big = html(`<html><head><title>Big</title></head><body><article>${paras}</article></body></html>`);
  assert.ok(big.length > 1_000_000);
  const page = await readableHtml(big, { article: { minChars: 1, minShare: 0.7 } });
  assert.equal(page.mode, 'article');
  assert.match(page.text, /^Paragraph 0: leaves/);
  assert.match(page.text, /Paragraph 3999: leaves and water[^\n]*$/);
  assert.equal(page.text.split('\n\n').length, 4000);
  // The walk itself, on a document nested 5,000 deep (the reader view is not asked here).
  const { document } = parseHTML(`<html><body><p>top</p>${'<div>'.repeat(5000)}bottom${'</div>'.repeat(5000)}</body></html>`);
  assert.equal(domToMarkdown(document.body as never), 'top');
});
