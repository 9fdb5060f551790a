/**
 * Decision 0280: the import upload (`POST /api/v1/transfer/import`) over real HTTP on the real
 * daemon — a declared length over the limit (413) or over what the data folder's disk can take
 * (507) is refused before the body is read, with a coded error; an upload cut off midway (with a
 * declared length or chunked) leaves no partial file and no job; the daemon keeps answering and
 * takes the next upload.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { DaemonClient } from '../src/waiter/daemon-client.js';

const MiB = 1024 * 1024;

/**
 * Sends the headers and `first` bytes of an upload, then waits for an answer — or, with
 * `abortAfterMs`, cuts the connection then, or as soon as `abortWhen()` holds (polled every 10 ms).
 */
function upload(d: Daemon, headers: Record<string, string>, first: Buffer, abortAfterMs?: number, abortWhen?: () => boolean): Promise<{ status: number; body: { ok: boolean; error?: { code: string; message: string; details?: Record<string, unknown> } } } | 'aborted'> {
  const u = new URL(`${d.url}/api/v1/transfer/import`);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { authorization: `Bearer ${d.authToken}`, 'content-type': 'application/octet-stream', ...headers } });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString('utf8')));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as never });
        req.destroy();
      });
    });
    req.on('error', (e) => (abortAfterMs === undefined ? reject(e) : undefined));
    req.write(first);
    if (abortAfterMs !== undefined) {
      const cut = () => {
        clearTimeout(timer);
        clearInterval(poll);
        req.destroy();
        resolve('aborted');
      };
      const timer = setTimeout(cut, abortAfterMs);
      const poll = setInterval(() => abortWhen?.() && cut(), 10);
    }
  });
}

describe('import upload: size limit, free disk space, cleanup (decision 0280)', { timeout: 120_000 }, () => {
  let d: Daemon;
  let home: string;
  let exported: string;
  /** Import jobs in the staging folder (the export's own job folder is there from the start). */
  let exportJobs: string[] = [];
  const staging = () => (existsSync(join(home, '.transfer')) ? readdirSync(join(home, '.transfer')) : []).filter((j) => !exportJobs.includes(j));
  const zipStart = Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), Buffer.alloc(MiB)]);

  before(async () => {
    home = mkdtempSync(join(tmpdir(), 'ha-upload-'));
    // The size limit lifted, so the real disk's free space is what refuses a huge declared length.
    d = await startTestDaemon({ homeDir: home, env: { PATH: process.env.PATH, HOME: process.env.HOME, OLLAMA_HOST: 'http://127.0.0.1:9' }, webuiPort: 0, heartbeats: false, transfer: { limits: { maxArchiveBytes: Number.MAX_SAFE_INTEGER } } });
    exported = join(home, 'an-export.zip');
    const c = new DaemonClient(d.socketPath);
    await c.connect();
    await c.request('transfer.export', { file: exported });
    c.close();
    exportJobs = readdirSync(join(home, '.transfer'));
  });
  after(async () => {
    await d?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('a declared length no disk can take is 507 TRANSFER_NO_SPACE before the body is read', async () => {
    const r = await upload(d, { 'content-length': String(1e15) }, zipStart);
    assert.notEqual(r, 'aborted');
    if (r === 'aborted') return;
    assert.equal(r.status, 507);
    assert.equal(r.body.error?.code, 'TRANSFER_NO_SPACE');
    assert.match(r.body.error?.message ?? '', /not enough disk space.*must stay free/);
    assert.deepEqual(staging(), [], 'nothing was written');
  });

  it('a declared length over the size limit is 413 TRANSFER_TOO_LARGE (the default limit, 64 GiB)', async () => {
    const dflt = await startTestDaemon({ homeDir: mkdtempSync(join(tmpdir(), 'ha-upload-limit-')), env: { PATH: process.env.PATH, HOME: process.env.HOME, OLLAMA_HOST: 'http://127.0.0.1:9' }, webuiPort: 0, heartbeats: false });
    try {
      const r = await upload(dflt, { 'content-length': String(65 * 1024 ** 3) }, zipStart);
      assert.ok(r !== 'aborted' && r.status === 413 && r.body.error?.code === 'TRANSFER_TOO_LARGE', JSON.stringify(r));
      assert.equal(existsSync(join(dflt.homeDir, '.transfer')) ? readdirSync(join(dflt.homeDir, '.transfer')).length : 0, 0);
    } finally {
      await dflt.stop();
      rmSync(dflt.homeDir, { recursive: true, force: true });
    }
  });

  for (const [what, headers] of [
    ['with a declared length', { 'content-length': String(10 * MiB) }],
    ['chunked', {}],
  ] as const) {
    it(`an upload cut off midway (${what}) leaves no partial file and no job`, async () => {
      // Cut once the daemon has begun to receive it (its job folder exists), not at a guess.
      let receiving = false;
      const r = await upload(d, headers, zipStart, 10_000, () => (receiving = staging().length > 0));
      assert.equal(r, 'aborted');
      assert.ok(receiving, 'the upload was cut while the daemon was receiving it');
      for (let i = 0; i < 100 && staging().length; i++) await new Promise((res) => setTimeout(res, 20));
      assert.deepEqual(staging(), [], 'the partial file and its job are gone');
    });
  }

  it('the daemon keeps answering and takes the next upload whole', async () => {
    const body = readFileSync(exported);
    const res = await fetch(`${d.url}/api/v1/transfer/import`, { method: 'POST', headers: { authorization: `Bearer ${d.authToken}`, 'content-type': 'application/octet-stream' }, body });
    assert.equal(res.status, 201);
    const job = ((await res.json()) as { job: { id: string; state: string; progress: { total: number } } }).job;
    assert.equal(job.state, 'staged');
    assert.equal(job.progress.total, body.length);
    assert.deepEqual(staging(), [job.id]);
  });
});
