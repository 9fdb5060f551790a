/**
 * Attachments kept and read (C-11, issue 14): real files in a temp data folder, real pdf.js in
 * its worker thread, PDFs built byte by byte.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makePdf, makeStallingPdf } from '../../test/fixtures/make-pdf.js';
import type { MessageAttachment } from '../spec/index.js';
import { AttachmentReader, attachmentKind, decodeText, extractPdfText, PdfReader, safeFileName } from './index.js';

const b64 = (b: Buffer | string) => (typeof b === 'string' ? Buffer.from(b, 'utf8') : b).toString('base64');

function reader(t: TestContext, budget = 24_000) {
  const home = mkdtempSync(join(tmpdir(), 'ha-media-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const config = { get: <T>(k: string) => (k === 'core.media.text_budget_chars' ? budget : k === 'core.media.max_pdf_pages' ? 200 : undefined) as T, onChange: () => () => {} };
  return { home, r: new AttachmentReader({ homeDir: home, config, now: () => Date.parse('2026-12-01T10:00:00Z') }) };
}

test('text, Markdown and code are kept in the data folder and reach the model as text', async (t) => {
  const { home, r } = reader(t);
  const atts: MessageAttachment[] = [
    { name: 'notes.md', mimeType: 'text/markdown', data: b64('# Trip\n- book the ryokan\n') },
    { name: 'main.py', mimeType: 'application/octet-stream', data: b64('def add(a, b):\n    return a + b\n') },
  ];
  const stored = await r.store(atts, { sessionId: 's', turnId: 's#1' });
  assert.deepEqual(stored.map((s) => [s.kind, s.path]), [
    ['text', join('media', '2026-12-01', 'notes.md')],
    ['text', join('media', '2026-12-01', 'main.py')],
  ]);
  assert.equal(readFileSync(join(home, stored[0].path), 'utf8'), '# Trip\n- book the ryokan\n');
  assert.equal(statSync(join(home, stored[0].path)).mode & 0o777, 0o600, 'kept private');
  const p = await r.prepare(atts, stored, {});
  assert.match(p.text, /\[Attachment 1\/2: notes\.md — text \(text\/markdown\), 25 characters; kept at media\/2026-12-01\/notes\.md\]/);
  assert.match(p.text, /----- begin notes\.md -----\n# Trip\n- book the ryokan\n----- end notes\.md -----/);
  assert.match(p.text, /def add\(a, b\)/);
  assert.deepEqual(p.images, []);
  // The same name again is kept beside the first, never over it.
  const again = await r.store([atts[0]], { sessionId: 's', turnId: 's#2' });
  assert.equal(again[0].path, join('media', '2026-12-01', 'notes (2).md'));
});

test('one budget for all files, shared fairly: a small file whole, a big one cut with a note saying where the rest is', async (t) => {
  const { r } = reader(t, 1000);
  const big = Array.from({ length: 400 }, (_, i) => `line ${i} of the big log`).join('\n');
  const atts: MessageAttachment[] = [
    { name: 'big.log', mimeType: 'text/plain', data: b64(big) },
    { name: 'small.txt', mimeType: 'text/plain', data: b64('the small one matters too') },
  ];
  const p = await r.prepare(atts, await r.store(atts, { sessionId: 's', turnId: 's#1' }), {});
  assert.match(p.text, /the small one matters too/);
  const shown = /----- begin big\.log -----\n([\s\S]*?)\n----- end big\.log -----/.exec(p.text)![1];
  assert.ok(shown.length <= 1000 - 'the small one matters too'.length && shown.length > 800, `${shown.length}`);
  assert.ok(shown.endsWith('of the big log'), 'cut at a line break');
  assert.match(p.text, /more characters of big\.log are not shown \(the attachment budget, core\.media\.text_budget_chars, is 1,000\); the whole file is kept at media\/2026-12-01\/big\.log/);
});

test('PDF: its text layer through pdf.js; a scan, a broken file and a non-PDF named .pdf each get a clear note', async (t) => {
  const { r } = reader(t);
  const atts: MessageAttachment[] = [
    { name: 'report.pdf', mimeType: 'application/pdf', data: b64(makePdf([['Quarterly report', 'Revenue grew (a lot)'], ['Page two: outlook']])) },
    { name: 'scan.pdf', mimeType: 'application/pdf', data: b64(makePdf([[]])) },
    { name: 'broken.pdf', mimeType: 'application/pdf', data: b64(makePdf([['x']]).subarray(0, 120)) },
  ];
  const p = await r.prepare(atts, await r.store(atts, { sessionId: 's', turnId: 's#1' }), {});
  assert.match(p.text, /report\.pdf — PDF, 2 pages, \d+ characters of text/);
  assert.match(p.text, /Quarterly report\nRevenue grew \(a lot\)\n\nPage two: outlook/);
  assert.match(p.text, /scan\.pdf — PDF, 1 page, no text layer/);
  assert.match(p.text, /broken\.pdf — PDF, 120 bytes; kept at [^\]]+\]\n\[It could not be read: /);
});

test('a PDF made to stall pdf.js does not hold the turn: the turn\'s stop gives its read up, and the model is told it was not read', async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'ha-media-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const pdf = new PdfReader({ timeoutMs: 600_000 });
  t.after(() => pdf.stop());
  const r = new AttachmentReader({ homeDir: home, pdf });
  const atts: MessageAttachment[] = [{ name: 'stalling.pdf', mimeType: 'application/pdf', data: b64(makeStallingPdf(6_000_000)) }];
  const stop = new AbortController();
  const prepared = r.prepare(atts, await r.store(atts, { sessionId: 's', turnId: 's#1' }), { signal: stop.signal });
  await new Promise((res) => setTimeout(res, 20));
  stop.abort();
  // Half a minute of pdf.js's time and more if the read went on (this test's own limit is what would end it).
  const p = await prepared;
  assert.match(p.text, /stalling\.pdf — PDF, [\d.]+ KiB; kept at [^\]]+\]\n\[It could not be read: reading the PDF was cancelled\. Tell the person\.\]/);
});

test('audio without a source that transcribes: kept, and the model is told to say it could not be transcribed; other binaries are named, not read', async (t) => {
  const { home, r } = reader(t);
  const wav = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(40, 1)]);
  const atts: MessageAttachment[] = [
    { name: 'voice.wav', mimeType: 'audio/wav', data: b64(wav) },
    { name: 'archive.zip', mimeType: 'application/zip', data: b64(Buffer.from([0x50, 0x4b, 3, 4, 0, 0, 0])) },
    { name: 'photo.png', mimeType: 'image/png', data: b64(Buffer.from([0x89, 0x50, 0x4e, 0x47])) },
  ];
  const stored = await r.store(atts, { sessionId: 's', turnId: 's#1' });
  assert.ok(existsSync(join(home, stored[0].path)));
  const p = await r.prepare(atts, stored, {});
  assert.match(p.text, /voice\.wav — audio \(audio\/wav\), 44 bytes; kept at media\/2026-12-01\/voice\.wav\]\n\[It was not transcribed: no configured LLM source offers speech to text\. Tell the person/);
  assert.match(p.text, /archive\.zip — application\/zip, 7 bytes; kept at [^\]]+\]\n\[Its content cannot be read here/);
  assert.match(p.text, /photo\.png — image \(image\/png\)/);
  assert.deepEqual(p.images.map((i) => i.name), ['photo.png']);
});

test('names cannot escape the media folder; kinds and encodings', async (t) => {
  const { home, r } = reader(t);
  assert.equal(safeFileName('../../etc/passwd', 'x'), 'passwd');
  assert.equal(safeFileName('..\\..\\boot.ini', 'x'), 'boot.ini');
  assert.equal(safeFileName('...', 'fallback'), 'fallback');
  assert.equal(safeFileName('a\u0000b<c>.txt', 'x'), 'a_b_c_.txt');
  const stored = await r.store([{ name: '../../escape.txt', mimeType: 'text/plain', data: b64('x') }], { sessionId: 's', turnId: 's#1' });
  assert.equal(stored[0].path, join('media', '2026-12-01', 'escape.txt'));
  assert.ok(!existsSync(join(home, '..', 'escape.txt')));

  assert.equal(attachmentKind('application/octet-stream', 'Dockerfile'), 'text');
  assert.equal(attachmentKind('application/json', 'x'), 'text');
  assert.equal(attachmentKind('audio/x-m4a', 'a.m4a'), 'audio');
  assert.equal(attachmentKind('', 'scan.PDF'), 'pdf');
  assert.equal(attachmentKind('application/zip', 'a.zip'), 'other');
  assert.equal(decodeText(Buffer.from([0xef, 0xbb, 0xbf, 0x68, 0x69, 0x0d, 0x0a])), 'hi\n');
  assert.equal(decodeText(Buffer.from('c4e3bac3', 'hex')), '你好', 'GB18030 (legacy Chinese files)');
  assert.equal(decodeText(Buffer.from([0xff, 0xfe, 0x68, 0, 0x69, 0])), 'hi');
  await assert.rejects(extractPdfText(Buffer.from('%PDF-1.4 nonsense')), (e: unknown) => (e as { code?: string }).code === 'PDF_UNREADABLE');
});
