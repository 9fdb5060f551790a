/**
 * The WebUI server's whole-request deadline (request-deadline.ts) over real HTTP on the real
 * daemon, with the deadlines lowered: a client that sends its headers and then trickles a body —
 * signed in or not, on any route — is cut (408, connection closed) once its deadline passes and
 * the server keeps answering; the import upload sent with the token is spared while bytes keep
 * arriving, and is governed by the transfer service's idle limit instead.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { createWebuiPlugin } from '../src/builtins/webui/index.js';

/** The lowered deadlines: a request with the token, one without; the upload's idle limit. */
const REQUEST_MS = 1500;
const ANONYMOUS_MS = 200;
const UPLOAD_IDLE_MS = 1000;
/** How long a trickle is watched before it counts as never cut. */
const WATCH_MS = REQUEST_MS + 2500;

interface Trickle {
  /** ms from the headers' sending until the server closed the connection; undefined: still open after `WATCH_MS`. */
  closedAfterMs?: number;
  /** The status line the server sent, if any. */
  status?: string;
  /** Everything the server sent. */
  text: string;
}

/**
 * Sends `method path` with `headers` and a declared length of `body` over a raw connection, then
 * the body one byte every 50 ms — for `trickleMs`, after which the rest goes at once (or, with
 * `thenPauseMs`, after a pause; `Infinity`: never) — and reports when the server closed the
 * connection and what it answered. Gives up watching after `watchMs`.
 */
function trickle(d: Daemon, method: string, path: string, headers: Record<string, string>, body: Buffer, o: { trickleMs?: number; thenPauseMs?: number; watchMs?: number } = {}): Promise<Trickle> {
  const u = new URL(d.url!);
  const trickleMs = o.trickleMs ?? Infinity;
  return new Promise((resolve) => {
    const s = connect({ host: u.hostname, port: Number(u.port) });
    let text = '';
    let sent = 0;
    let started = 0;
    let timer: ReturnType<typeof setInterval> | undefined;
    let rest: ReturnType<typeof setTimeout> | undefined;
    const finish = (r: Trickle) => {
      clearInterval(timer);
      clearTimeout(rest);
      clearTimeout(watch);
      s.destroy();
      resolve(r);
    };
    const statusOf = () => (text ? text.split('\r\n')[0] : undefined);
    s.on('data', (c: Buffer) => (text += c.toString('utf8')));
    s.on('error', () => {});
    s.on('close', () => finish({ closedAfterMs: Date.now() - started, status: statusOf(), text }));
    const watch = setTimeout(() => finish({ status: statusOf(), text }), o.watchMs ?? WATCH_MS);
    s.on('connect', () => {
      const head = [`${method} ${path} HTTP/1.1`, `host: ${u.host}`, `content-length: ${body.length}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', ''].join('\r\n');
      started = Date.now();
      s.write(head);
      timer = setInterval(() => {
        if (s.destroyed) return;
        if (Date.now() - started >= trickleMs) {
          clearInterval(timer);
          const pause = o.thenPauseMs ?? 0;
          if (pause !== Infinity) rest = setTimeout(() => !s.destroyed && s.write(body.subarray(sent)), pause);
          return;
        }
        if (sent < body.length - 1) s.write(body.subarray(sent, ++sent));
      }, 50);
    });
  });
}

/**
 * Cut by the deadline: closed, after at least `ms`, and — when anything was answered — `answer`
 * (a 408, unless the route had answered before the deadline without reading the body).
 */
function assertCut(r: Trickle, ms: number, what: string, answer = /^HTTP\/1\.1 408 /): void {
  assert.ok(r.closedAfterMs !== undefined, `${what}: still open after ${WATCH_MS} ms (${JSON.stringify(r.text.slice(0, 200))})`);
  assert.ok(r.closedAfterMs >= ms - 50, `${what}: closed after ${r.closedAfterMs} ms, before its deadline of ${ms} ms`);
  if (r.status !== undefined) assert.match(r.status, answer, `${what}: ${r.text.slice(0, 200)}`);
}

describe('webui: every request but the signed-in import upload has a deadline to arrive whole', { timeout: 120_000 }, () => {
  let d: Daemon;
  let home: string;
  const json = Buffer.from(JSON.stringify({ title: `a title ${'x'.repeat(400)}` }));
  const zip = Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), Buffer.alloc(2000)]);
  const signedIn = () => ({ authorization: `Bearer ${d.authToken}` });
  const answers = async () => {
    const res = await fetch(`${d.url}/api/v1/status`, { headers: signedIn() });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { ok: boolean }).ok, true);
  };

  before(async () => {
    home = mkdtempSync(join(tmpdir(), 'ha-deadline-'));
    d = await startTestDaemon({
      homeDir: home,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, OLLAMA_HOST: 'http://127.0.0.1:9' },
      webuiPort: 0,
      heartbeats: false,
      without: ['webui'],
      plugins: [createWebuiPlugin({ deadlines: { requestMs: REQUEST_MS, anonymousMs: ANONYMOUS_MS } })],
      transfer: { limits: { uploadIdleMs: UPLOAD_IDLE_MS } },
    });
    assert.ok(d.url);
  });
  after(async () => {
    await d?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('a signed-in client trickling a JSON body to a normal route is cut (408) at the deadline, and the server still answers', async () => {
    const r = await trickle(d, 'POST', '/api/v1/sessions', { ...signedIn(), 'content-type': 'application/json' }, json);
    assertCut(r, REQUEST_MS, 'POST /api/v1/sessions');
    await answers();
  });

  it('the signed-in import upload is not cut while bytes keep arriving past the deadline, and is taken whole', async () => {
    const r = await trickle(d, 'POST', '/api/v1/transfer/import', { ...signedIn(), 'content-type': 'application/octet-stream' }, zip, { trickleMs: REQUEST_MS + 1000 });
    assert.ok(r.status !== undefined, `no answer (${r.closedAfterMs === undefined ? 'still open' : `closed after ${r.closedAfterMs} ms`})`);
    assert.match(r.status, /^HTTP\/1\.1 201 /, r.text.slice(0, 300));
    assert.match(r.text, /"state":"staged"/);
    await answers();
  });

  it('the import upload is governed by its idle limit: a pause longer than that gives it up', async () => {
    const r = await trickle(d, 'POST', '/api/v1/transfer/import', { ...signedIn(), 'content-type': 'application/octet-stream' }, zip, { trickleMs: 300, thenPauseMs: Infinity });
    assert.ok(r.status !== undefined, 'answered');
    assert.match(r.status, /^HTTP\/1\.1 400 /, r.text.slice(0, 300));
    assert.match(r.text, /TRANSFER_TRUNCATED/);
    assert.match(r.text, /stalled/);
    await answers();
  });

  it('a trickle without the token is cut at the shorter deadline, on a static GET and on the API, and on the upload route', async () => {
    // A GET with a body: the SPA is answered at once without reading it, and nothing else would
    // stop the rest from trickling in.
    const get = await trickle(d, 'GET', '/', {}, json);
    assertCut(get, ANONYMOUS_MS, 'GET / without the token', /^HTTP\/1\.1 200 /);
    assert.ok(get.closedAfterMs! < REQUEST_MS, `GET / without the token: closed after ${get.closedAfterMs} ms, not before the signed-in deadline`);
    for (const path of ['/api/v1/sessions', '/api/v1/transfer/import']) {
      const r = await trickle(d, 'POST', path, { 'content-type': 'application/json' }, json);
      assert.ok(r.closedAfterMs !== undefined && r.closedAfterMs < REQUEST_MS, `POST ${path} without the token: ${r.closedAfterMs === undefined ? 'still open' : `closed after ${r.closedAfterMs} ms`}`);
    }
    // A wrong token is no token.
    const wrong = await trickle(d, 'POST', '/api/v1/transfer/import', { authorization: 'Bearer not-the-token', 'content-type': 'application/octet-stream' }, zip);
    assert.ok(wrong.closedAfterMs !== undefined && wrong.closedAfterMs < REQUEST_MS, 'the upload route with a wrong token is not spared');
    await answers();
  });
});
