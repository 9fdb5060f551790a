/**
 * The text of a file for the knowledge base (`waiter knowledge put`, the WebUI's "Add from
 * file…"): real bytes of each kind, a real PDF read by pdf.js in its worker, and the refusals a
 * person meets — each coded, naming the file, and never a half-stored text.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { makePdf } from '../../test/fixtures/make-pdf.js';
import { KnowledgeFileError, MAX_KNOWLEDGE_BYTES, MAX_KNOWLEDGE_FILE_BYTES } from '../spec/index.js';
import { knowledgeFileText } from './index.js';

const refused = (code: string, message: RegExp) => (e: unknown) => {
  assert.ok(e instanceof KnowledgeFileError, String(e));
  assert.equal(e.code, code);
  assert.match(e.message, message);
  return true;
};

test('Markdown and code are kept as written (UTF-8, BOM dropped, CRLF made \\n)', async () => {
  const md = await knowledgeFileText(Buffer.from('\uFEFF# 家庭网络\r\n\r\n- 路由器：192.168.1.1\r\n', 'utf8'), { name: '家庭网络.md' });
  assert.deepEqual(md, { kind: 'text', text: '# 家庭网络\n\n- 路由器：192.168.1.1' });
  // A note that talks about HTML is still a note.
  const note = await knowledgeFileText(Buffer.from('<html> is the root element\n'), { name: 'tags.md' });
  assert.equal(note.kind, 'text');
  assert.equal(note.text, '<html> is the root element');
  const code = await knowledgeFileText(Buffer.from('def add(a, b):\n    return a + b\n'), { name: 'add.py', mimeType: 'application/octet-stream' });
  assert.equal(code.text, 'def add(a, b):\n    return a + b');
});

test('UTF-16 (with its BOM) and GB18030 text files are decoded, not stored as mojibake', async () => {
  const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('体检报告：血压正常', 'utf16le')]);
  assert.equal((await knowledgeFileText(utf16, { name: 'report.txt' })).text, '体检报告：血压正常');
  const gb = Buffer.from(new Uint8Array([0xd1, 0xaa, 0xd1, 0xb9, 0xd5, 0xfd, 0xb3, 0xa3])); // 血压正常 in GB18030
  assert.equal((await knowledgeFileText(gb, { name: 'report.txt' })).text, '血压正常');
});

test('a PDF gives its text layer, page by page; its words are in the text', async () => {
  const pdf = makePdf([['Annual check-up 2026', 'Blood pressure 118/76'], ['Cholesterol within range']]);
  const out = await knowledgeFileText(pdf, { name: '体检报告.pdf', mimeType: 'application/pdf' });
  assert.equal(out.kind, 'pdf');
  assert.equal(out.pages, 2);
  assert.match(out.text, /Annual check-up 2026/);
  assert.match(out.text, /Blood pressure 118\/76/);
  assert.match(out.text, /Cholesterol within range/);
  assert.doesNotMatch(out.text, /%PDF|endobj|stream/);
  // The bytes say PDF even under another name.
  assert.equal((await knowledgeFileText(pdf, { name: 'scan.txt' })).kind, 'pdf');
});

test('HTML becomes readable text: headings and paragraphs kept, scripts, styles and tags gone', async () => {
  const html = `<!doctype html><html><head><title>Router setup</title><style>body { color: red }</style>
    <script>window.secret = "tracking-code"; document.write("<p>injected</p>")</script></head>
    <body><h1>Router setup</h1><p>The router lives at <b>192.168.1.1</b>.</p>
    <h2>Wi-Fi</h2><p>The guest network is <a href="https://example.com/guest">guest</a>.</p>
    <ul><li>2.4 GHz</li><li>5 GHz</li></ul><noscript>enable JS</noscript>
    <pre>ssh admin@192.168.1.1
  uptime</pre><script>more()</script></body></html>`;
  const out = await knowledgeFileText(Buffer.from(html), { name: 'router.html' });
  assert.equal(out.kind, 'html');
  assert.match(out.text, /^# Router setup\n\nThe router lives at 192\.168\.1\.1\.\n\n## Wi-Fi\n\nThe guest network is \[guest\]\(https:\/\/example\.com\/guest\)\./);
  assert.match(out.text, /\n- 2\.4 GHz\n- 5 GHz/);
  assert.match(out.text, /```\nssh admin@192\.168\.1\.1\n {2}uptime\n```/, 'preformatted text keeps its lines and indentation');
  assert.doesNotMatch(out.text, /tracking-code|color: red|injected|enable JS|more\(\)|<\/?[a-z]+[\s>]/);
  // A page declared in GBK is read in GBK; the <title> becomes the heading when the body lacks it.
  const gbk = Buffer.concat([Buffer.from('<html><head><meta charset="gbk"><title>'), Buffer.from([0xc3, 0xdc, 0xc2, 0xeb]), Buffer.from('</title></head><body><p>'), Buffer.from([0xd1, 0xaa, 0xd1, 0xb9]), Buffer.from('</p></body></html>')]);
  assert.equal((await knowledgeFileText(gbk, { name: 'old.htm' })).text, '# 密码\n\n血压');
});

test('a binary file is refused with a coded error naming the kinds it takes', async () => {
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), deflateSync(Buffer.alloc(200))]);
  await assert.rejects(knowledgeFileText(png, { name: 'photo.png', mimeType: 'image/png' }), refused('KNOWLEDGE_FILE_UNSUPPORTED', /^photo\.png is not a file the knowledge base can read: add Markdown, plain text, PDF or HTML \(\.md, \.txt, \.pdf, \.html, \.htm\)$/));
  // Renamed to .txt, or with no name that says: the bytes decide.
  await assert.rejects(knowledgeFileText(png, { name: 'photo.txt' }), refused('KNOWLEDGE_FILE_UNSUPPORTED', /photo\.txt/));
  await assert.rejects(knowledgeFileText(deflateSync(Buffer.from('x'.repeat(1000))), { name: 'data.bin', mimeType: 'application/octet-stream' }), refused('KNOWLEDGE_FILE_UNSUPPORTED', /data\.bin/));
});

test('a PDF without a text layer (a scan) and an empty file are refused: nothing to store', async () => {
  await assert.rejects(knowledgeFileText(makePdf([[], []]), { name: 'scan.pdf' }), refused('KNOWLEDGE_FILE_EMPTY', /^scan\.pdf has no text to read: its pages are pictures only \(a scan\); nothing was stored$/));
  await assert.rejects(knowledgeFileText(Buffer.from(' \n\n'), { name: 'blank.md' }), refused('KNOWLEDGE_FILE_EMPTY', /^blank\.md has no text; nothing was stored$/));
  await assert.rejects(knowledgeFileText(Buffer.from('<html><body><script>x()</script></body></html>'), { name: 'app.html' }), refused('KNOWLEDGE_FILE_EMPTY', /app\.html/));
  await assert.rejects(knowledgeFileText(Buffer.from('%PDF-1.4 and then nothing'), { name: 'broken.pdf' }), refused('KNOWLEDGE_FILE_UNREADABLE', /^broken\.pdf could not be read as a PDF: it is damaged or not a PDF$/));
});

test('too large: a file over the upload limit, and text over what an entry holds, are refused whole', async () => {
  await assert.rejects(knowledgeFileText(Buffer.alloc(MAX_KNOWLEDGE_FILE_BYTES + 1, 0x61), { name: 'huge.txt' }), refused('KNOWLEDGE_FILE_TOO_LARGE', /^huge\.txt is over 25 MB, the most a file added to the knowledge base may be$/));
  await assert.rejects(knowledgeFileText(Buffer.alloc(2 * MAX_KNOWLEDGE_BYTES, 0x61), { name: 'long.md' }), refused('KNOWLEDGE_FILE_TOO_LARGE', /^long\.md is 2\.0 MB; a knowledge entry holds at most 1 MB$/));
  // A PDF whose text is over the limit: read until that is known, then refused (never cut).
  const line = 'word '.repeat(18);
  const pdf = makePdf(Array.from({ length: 300 }, () => Array.from({ length: 48 }, () => line)));
  await assert.rejects(knowledgeFileText(pdf, { name: 'book.pdf' }), refused('KNOWLEDGE_FILE_TOO_LARGE', /^the text of book\.pdf is \d\.\d MB; a knowledge entry holds at most 1 MB$/));
  // Just under the limit is taken whole.
  const fits = await knowledgeFileText(Buffer.alloc(MAX_KNOWLEDGE_BYTES, 0x61), { name: 'fits.txt' });
  assert.equal(fits.text.length, MAX_KNOWLEDGE_BYTES);
});
