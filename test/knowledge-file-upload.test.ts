/**
 * `POST /api/v1/memory/knowledge/:name/file` — the WebUI's "Add from file…" — over real HTTP on
 * loopback through a real daemon: a PDF, an HTML page and a GB18030 text file become entries whose
 * words are found; an upload never replaces an entry; and what a person or a page elsewhere could
 * send wrong (too big, a path for a name, a kind it does not read, a scan, a cross-site request)
 * is refused with a coded error and stores nothing.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import http from 'node:http';
import { deflateSync } from 'node:zlib';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { MAX_KNOWLEDGE_FILE_BYTES } from '../src/spec/index.js';
import { makePdf } from './fixtures/make-pdf.js';

describe('adding a file to the knowledge base over HTTP', { timeout: 120_000 }, () => {
  let d: Daemon;
  let home: string;

  before(async () => {
    home = mkdtempSync(join(tmpdir(), 'ha-kb-file-'));
    d = await startTestDaemon({ homeDir: home, env: { PATH: process.env.PATH, OLLAMA_HOST: 'http://127.0.0.1:9' }, webuiPort: 0, heartbeats: false });
    assert.ok(d.url);
  });
  after(async () => {
    await d?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  /** An upload as the WebUI sends it: the file as the body, its name URL-encoded in X-Filename. */
  const upload = (name: string, body: Uint8Array | string, opts: { type?: string; file?: string; headers?: Record<string, string>; token?: string | null } = {}) =>
    fetch(`${d.url}/api/v1/memory/knowledge/${encodeURIComponent(name)}/file`, {
      method: 'POST',
      headers: {
        ...(opts.token === null ? {} : { authorization: `Bearer ${opts.token ?? d.authToken}` }),
        'content-type': opts.type ?? 'application/octet-stream',
        ...(opts.file ? { 'x-filename': encodeURIComponent(opts.file) } : {}),
        ...opts.headers,
      },
      body: typeof body === 'string' ? body : new Uint8Array(body),
    });
  /**
   * An upload that keeps sending 1 MiB chunks until the daemon answers (it answers a body over the
   * limit without reading the rest, and closes): the answer and how much was sent by then.
   */
  const oversized = (name: string, file: string, headers: Record<string, string>) =>
    new Promise<{ status: number; error: { code: string; message: string }; sent: number }>((resolve, reject) => {
      const u = new URL(`${d.url}/api/v1/memory/knowledge/${encodeURIComponent(name)}/file`);
      const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { authorization: `Bearer ${d.authToken}`, 'content-type': 'application/octet-stream', 'x-filename': encodeURIComponent(file), ...headers } });
      const chunk = Buffer.alloc(1 << 20, 0x61);
      let sent = 0;
      let answered = false;
      req.on('response', (res) => {
        answered = true;
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString('utf8')));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, error: (JSON.parse(text) as { error: { code: string; message: string } }).error, sent });
          req.destroy();
        });
      });
      req.on('error', (e) => (answered ? undefined : reject(e)));
      const more = () => {
        if (answered || sent > 2 * MAX_KNOWLEDGE_FILE_BYTES) return;
        sent += chunk.length;
        if (req.write(chunk)) setImmediate(more);
        else req.once('drain', more);
      };
      if (headers['content-length']) {
        sent = chunk.length;
        req.write(chunk);
      } else more();
    });
  const api = async <T>(path: string) => (await (await fetch(`${d.url}${path}`, { headers: { authorization: `Bearer ${d.authToken}` } })).json()) as T;
  const entries = async () => (await api<{ items: { name: string }[] }>('/api/v1/memory/knowledge')).items.map((k) => k.name).sort();
  const refusal = async (res: Response) => ({ status: res.status, ...((await res.json()) as { error: { code: string; message: string } }).error });

  it('a PDF becomes an entry of its text: the words in it are found, no PDF syntax is stored', async () => {
    const pdf = makePdf([['Annual check-up 2026', 'Blood pressure 118/76'], ['Cholesterol within range']]);
    const res = await upload('体检报告', pdf, { type: 'application/pdf', file: '体检报告.pdf' });
    assert.equal(res.status, 200, await res.clone().text());
    const body = (await res.json()) as { item: { name: string; kind: string; pages: number; characters: number } };
    assert.deepEqual({ ...body.item, characters: body.item.characters > 40 }, { name: '体检报告', kind: 'pdf', pages: 2, characters: true });
    const entry = await api<{ item: { content: string } }>(`/api/v1/memory/knowledge/${encodeURIComponent('体检报告')}`);
    assert.match(entry.item.content, /Annual check-up 2026[\s\S]*Cholesterol within range/);
    assert.doesNotMatch(entry.item.content, /%PDF|endobj|\uFFFD/);
    const hits = await api<{ hits: { name: string; snippet: string }[] }>('/api/v1/memory/knowledge?q=cholesterol');
    assert.equal(hits.hits[0]?.name, '体检报告');
  });

  it('an HTML page becomes readable text: search snippets show no tags, scripts or styles', async () => {
    const html = '<!doctype html><html><head><title>Router</title><style>.x{color:red}</style><script>track("visitor")</script></head><body><h1>Router</h1><p>The <b>admin</b> page of the router is 192.168.1.1.</p><h2>Guest Wi-Fi</h2><p>Password: sunflower-42</p></body></html>';
    const res = await upload('router', html, { type: 'text/html', file: 'router.html' });
    assert.equal(res.status, 200, await res.clone().text());
    const entry = await api<{ item: { content: string } }>('/api/v1/memory/knowledge/router');
    assert.equal(entry.item.content, '# Router\n\nThe admin page of the router is 192.168.1.1.\n\n## Guest Wi-Fi\n\nPassword: sunflower-42');
    const hits = await api<{ hits: { name: string; snippet: string }[] }>('/api/v1/memory/knowledge?q=sunflower');
    assert.equal(hits.hits[0]?.name, 'router');
    assert.doesNotMatch(hits.hits[0].snippet, /<|track|color/);
  });

  it('a text file in GB18030, sent as application/octet-stream (the WebUI never sends text/plain), is decoded', async () => {
    const gb = Buffer.from([0xd1, 0xaa, 0xd1, 0xb9, 0xd5, 0xfd, 0xb3, 0xa3]); // 血压正常
    const res = await upload('血压', gb, { file: '血压.txt' });
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal((await api<{ item: { content: string } }>(`/api/v1/memory/knowledge/${encodeURIComponent('血压')}`)).item.content, '血压正常');
  });

  it('an upload never replaces an entry: the same name, in any letter case, is a 409 and the entry stays', async () => {
    for (const name of ['router', 'ROUTER']) {
      const r = await refusal(await upload(name, 'something else', { file: 'other.md' }));
      assert.deepEqual([r.status, r.code], [409, 'CONFLICT']);
      assert.equal(r.message, 'a knowledge entry named "router" exists already: open it to edit it, or choose another name');
    }
    assert.match((await api<{ item: { content: string } }>('/api/v1/memory/knowledge/router')).item.content, /sunflower-42/);
  });

  it('refuses what cannot be stored — too big, a path for a name, a kind it does not read, a scan — and stores nothing', async () => {
    const before = await entries();
    // Over the limit by its declared length: refused before it is read (only 1 MiB is ever sent).
    const big = await oversized('big', 'big.txt', { 'content-length': String(MAX_KNOWLEDGE_FILE_BYTES + 1) });
    assert.deepEqual([big.status, big.error.code, big.error.message], [413, 'KNOWLEDGE_FILE_TOO_LARGE', 'big.txt is over 25 MB, the most a file added to the knowledge base may be']);
    // Streamed with no length (chunked): stopped once it is over.
    const streamed = await oversized('streamed', 'streamed.txt', {});
    assert.deepEqual([streamed.status, streamed.error.code], [413, 'KNOWLEDGE_FILE_TOO_LARGE']);
    assert.ok(streamed.sent > MAX_KNOWLEDGE_FILE_BYTES, `answered after ${streamed.sent} bytes`);
    // Text over what an entry holds.
    const long = await refusal(await upload('long', Buffer.alloc(2 << 20, 0x61), { file: 'long.md' }));
    assert.deepEqual([long.status, long.code, long.message], [413, 'KNOWLEDGE_FILE_TOO_LARGE', 'long.md is 2.0 MB; a knowledge entry holds at most 1 MB']);
    // A name that is a path.
    for (const name of ['../x', '../../etc/passwd', 'a/b', '..\\x', '.hidden']) {
      const r = await refusal(await upload(name, 'escape', { file: 'x.md' }));
      assert.deepEqual([r.status, r.code], [400, 'VALIDATION'], `${name}: ${r.message}`);
    }
    assert.ok(!existsSync(join(home, 'x')) && !existsSync(join(home, 'knowledge', '..', 'x')), 'nothing written beside the folder');
    // A kind it does not read (a zip, an image), and binary bytes under a text name.
    const zip = deflateSync(Buffer.from('PK'.repeat(500)));
    for (const [file, type] of [['notes.zip', 'application/zip'], ['photo.png', 'image/png'], ['data.txt', 'application/octet-stream']] as const) {
      const r = await refusal(await upload('kind', Buffer.concat([Buffer.from([0x50, 0x4b, 3, 4, 0, 0]), zip]), { file, type }));
      assert.deepEqual([r.status, r.code, r.message], [415, 'KNOWLEDGE_FILE_UNSUPPORTED', `${file} is not a file the knowledge base can read: add Markdown, plain text, PDF or HTML (.md, .txt, .pdf, .html, .htm)`]);
    }
    // A scan: pages without a text layer.
    const scan = await refusal(await upload('scan', makePdf([[], []]), { type: 'application/pdf', file: 'scan.pdf' }));
    assert.deepEqual([scan.status, scan.code, scan.message], [422, 'KNOWLEDGE_FILE_EMPTY', 'scan.pdf has no text to read: its pages are pictures only (a scan); nothing was stored']);
    const broken = await refusal(await upload('broken', Buffer.from('%PDF-1.7 cut off'), { type: 'application/pdf', file: 'broken.pdf' }));
    assert.deepEqual([broken.status, broken.code], [422, 'KNOWLEDGE_FILE_UNREADABLE']);
    assert.deepEqual(await entries(), before);
    assert.deepEqual(readdirSync(join(home, 'knowledge')).sort(), before);
  });

  it('a request from a page elsewhere is refused even with the token, and a form-sendable body too: nothing is stored', async () => {
    const before = await entries();
    const pdf = makePdf([['Planted text']]);
    const cases: [string, Parameters<typeof upload>[2], number, string][] = [
      ['Origin evil, with the token', { type: 'application/pdf', file: 'a.pdf', headers: { origin: 'http://evil.example' } }, 403, 'CROSS_SITE_REQUEST'],
      ['Sec-Fetch-Site cross-site', { type: 'application/pdf', file: 'a.pdf', headers: { 'sec-fetch-site': 'cross-site' } }, 403, 'CROSS_SITE_REQUEST'],
      ['another port of 127.0.0.1 (same-site)', { type: 'application/pdf', file: 'a.pdf', headers: { 'sec-fetch-site': 'same-site', origin: 'http://127.0.0.1:1' } }, 403, 'CROSS_SITE_REQUEST'],
      // A no-cors fetch or a form can send these types without a preflight: a raw body is no exception.
      ['text/plain with the token', { type: 'text/plain', file: 'a.txt' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['multipart with the token', { type: 'multipart/form-data; boundary=x', file: 'a.pdf' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['form-encoded with the token', { type: 'application/x-www-form-urlencoded', file: 'a.pdf' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['no token', { type: 'application/pdf', file: 'a.pdf', token: null }, 401, 'UNAUTHORIZED'],
      ['a wrong token', { type: 'application/pdf', file: 'a.pdf', token: 'wrong' }, 401, 'UNAUTHORIZED'],
    ];
    for (const [what, opts, status, code] of cases) {
      const r = await refusal(await upload('planted', pdf, opts));
      assert.deepEqual([r.status, r.code], [status, code], what);
    }
    assert.deepEqual(await entries(), before);
  });
});
