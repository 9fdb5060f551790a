/**
 * D6: stores found corrupt at start are reported by the daemon (socket `status`, `/api/v1/status`),
 * and an import is refused while memory-control.db's tombstones are set aside — unless the person
 * says to go ahead. In process, real files, real socket and HTTP.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestDaemon } from './fixtures/daemon.js';
import { DaemonClient } from '../src/waiter/daemon-client.js';
import { authedFetch } from '../src/builtins/webui/__fixtures__/mini-host.js';
import type { SetAsideStore, TransferJobView } from '../src/spec/index.js';
import { ColdArchive } from '../src/memory/archive/index.js';
import { overwritePage, tablePages } from '../src/fs/sqlite/__fixtures__/sqlite-damage.js';
import { startFakeLlm } from './fixtures/fake-llm/index.js';

const homes: string[] = [];
after(() => {
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});
const env = (h: string): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: process.env.HOME, HOMEAGENT_HOME: h, HOMEAGENT_WEBUI_PORT: '0', OLLAMA_HOST: 'http://127.0.0.1:9' });
const garbage = 'garbage '.repeat(1000);

test('D6: corrupt stores are listed in the daemon status; an import is refused while memory-control.db is set aside, unless told to go ahead', async () => {
  const h = mkdtempSync(join(tmpdir(), 'ha-aside-'));
  homes.push(h);
  // A first run leaves an export (made before anything broke) and sound stores.
  let d = await startTestDaemon({ homeDir: h, env: env(h), webuiPort: 0, heartbeats: false });
  const exported = join(h, 'old-export.zip');
  let c = new DaemonClient(d.socketPath);
  await c.connect();
  assert.deepEqual((await c.request<{ setAside: SetAsideStore[] }>('status')).setAside, []);
  await c.request('transfer.export', { file: exported });
  c.close();
  await d.stop();
  // Then memory-control.db, documents.db and config.db are found corrupt.
  mkdirSync(join(h, 'documents'), { recursive: true });
  for (const f of ['memory-control.db', 'documents/documents.db', 'config.db']) writeFileSync(join(h, f), garbage);
  // And a conversation's log with no readable line (saved in another encoding).
  mkdirSync(join(h, 'sessions'), { recursive: true });
  writeFileSync(join(h, 'sessions', 'cli%3Aold.jsonl'), garbage);
  d = await startTestDaemon({ homeDir: h, env: env(h), webuiPort: 0, heartbeats: false });
  try {
    c = new DaemonClient(d.socketPath);
    await c.connect();
    const st = await c.request<{ setAside: SetAsideStore[] }>('status');
    assert.deepEqual(st.setAside.map((s) => s.store).sort(), ['config', 'documents', 'memory-control', 'session-log']);
    for (const s of st.setAside) assert.equal(readFileSync(s.file, 'utf8'), garbage, `${s.store}: the old file is kept at ${s.file}`);
    assert.equal(st.setAside.find((s) => s.store === 'documents')?.recover, 'waiter memory reindex');
    const web = (await (await authedFetch(`${d.url}/api/v1/status`, {}, d.authToken)).json()) as { agent: { setAside: SetAsideStore[] } };
    assert.deepEqual(web.agent.setAside, st.setAside, 'the WebUI reads the same list');

    // The import would bring back what was forgotten: refused, coded, saying why and what to do.
    await assert.rejects(c.request('transfer.import', { file: exported, mode: 'skip' }), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'TRANSFER_TOMBSTONES_LOST', e.message);
      assert.match(e.message, /memory-control\.db.*set aside.*--without-tombstones/);
      return true;
    });
    const http = await authedFetch(`${d.url}/api/v1/transfer/import`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: readFileSync(exported) }, d.authToken);
    const job = ((await http.json()) as { job: { id: string } }).job;
    const refused = await authedFetch(`${d.url}/api/v1/transfer/jobs/${job.id}/apply`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ mode: 'skip' }) }, d.authToken);
    assert.equal(refused.status, 409);
    assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'TRANSFER_TOMBSTONES_LOST');
    // Told to go ahead, it imports.
    const done = await c.request<{ state: string }>('transfer.import', { file: exported, mode: 'skip', withoutTombstones: true });
    assert.equal(done.state, 'done');
    c.close();
  } finally {
    await d.stop();
  }
});

test('0280: memory-control.db damaged (a page overwritten): what was forgotten is read back — the daemon says so, an old export imports and the forgotten turn stays out', async () => {
  const h = mkdtempSync(join(tmpdir(), 'ha-salvage-'));
  homes.push(h);
  const llm = await startFakeLlm();
  const withLlm = { ...env(h), OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${llm.url}/v1` };
  try {
    let d = await startTestDaemon({ homeDir: h, env: withLlm, webuiPort: 0, heartbeats: false });
    const exported = join(h, 'before-the-forget.zip');
    let secret = '';
    try {
      // Replies differ: a forget tombstones the reply's text too, and an import forgets every turn that says it.
      const say = async (text: string, reply: string) => {
        llm.enqueue({ text: reply });
        const o = await d.agent.injectInput({ sessionId: 'webui:s', source: 'webui', text }).done;
        assert.equal(o.status, 'ok');
        return o.turnId;
      };
      secret = await say('The safe code is 8086, keep it between us', 'Noted, the safe code.');
      await say('I like green tea', 'Green tea it is.');
      // An export made before the forget: it holds the turn.
      const c = new DaemonClient(d.socketPath);
      await c.connect();
      await c.request('transfer.export', { file: exported });
      c.close();
      const res = await authedFetch(`${d.url}/api/v1/memory/forget`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ turnIds: [secret] }) }, d.authToken);
      assert.equal(res.status, 200);
      // Enough history that it has pages of its own in the middle of the file.
      for (let i = 0; i < 40; i++) d.memory.control.record({ kind: 'knowledge', target: `knowledge:k${i}`, op: 'create', summary: `created ${i}`, after: { content: 'note '.repeat(300) } });
    } finally {
      await d.stop();
    }
    const file = join(h, 'memory-control.db');
    const pages = tablePages(file, 'history', 'leaf');
    overwritePage(file, pages[Math.floor(pages.length / 2)].pageno);

    d = await startTestDaemon({ homeDir: h, env: withLlm, webuiPort: 0, heartbeats: false });
    try {
      const c = new DaemonClient(d.socketPath);
      await c.connect();
      const st = await c.request<{ setAside: SetAsideStore[] }>('status');
      const mc = st.setAside.find((s) => s.store === 'memory-control');
      assert.ok(mc?.salvaged, JSON.stringify(st.setAside));
      assert.ok((mc.salvaged.tombstones ?? 0) >= 2 && (mc.salvaged.changes ?? 0) > 0 && mc.salvaged.unreadablePages === 1, JSON.stringify(mc.salvaged));
      assert.equal(mc.salvaged.tombstonesLostAtMost, 0);
      const web = (await (await authedFetch(`${d.url}/api/v1/status`, {}, d.authToken)).json()) as { agent: { setAside: SetAsideStore[] } };
      assert.deepEqual(web.agent.setAside, st.setAside, 'the WebUI reads the same counts');
      // Every tombstone came back: the old export is not refused, and its copy of the turn stays out.
      const done = await c.request<{ state: string }>('transfer.import', { file: exported, mode: 'skip' });
      assert.equal(done.state, 'done');
      const hits = (await (await authedFetch(`${d.url}/api/v1/memory/documents?q=${encodeURIComponent('safe code 8086')}&limit=50`, {}, d.authToken)).json()) as { documents: { text: string }[] };
      assert.doesNotMatch(JSON.stringify(hits.documents), /8086/, 'no tier has it');
      const log = (await (await authedFetch(`${d.url}/api/v1/sessions/${encodeURIComponent('webui:s')}/events`, {}, d.authToken)).json()) as unknown;
      assert.doesNotMatch(JSON.stringify(log), /8086/, 'nor the conversation log');
      assert.match(JSON.stringify(log), /green tea/);
      c.close();
    } finally {
      await d.stop();
    }
  } finally {
    await llm.close();
  }
});

test('0310: config.db damaged (a page overwritten): the daemon starts with the settings read back — the LLM source the person added answers, with its key; the status says what came back; the key is in no log', async () => {
  const h = mkdtempSync(join(tmpdir(), 'ha-config-salvage-'));
  homes.push(h);
  const llm = await startFakeLlm();
  const KEY = 'sk-mine-SALVAGED-5f3a9c0e7d';
  try {
    let d = await startTestDaemon({ homeDir: h, env: env(h), webuiPort: 0, heartbeats: false });
    try {
      await d.providers.addSource({ name: 'mine', baseUrl: `${llm.url}/v1`, apiKey: KEY, model: 'fake-model' });
      await d.providers.setOrder(['mine']);
      await d.config.set('core.agent.name', 'Jarvis');
      // People enough to fill pages of their own.
      for (let i = 0; i < 150; i++) d.config.people.link([`telegram:${100 + i}`], { name: `Person ${i}` });
    } finally {
      await d.stop();
    }
    const file = join(h, 'config.db');
    const pages = tablePages(file, 'people', 'leaf');
    assert.ok(pages.length >= 2);
    overwritePage(file, pages[0].pageno);

    d = await startTestDaemon({ homeDir: h, env: env(h), webuiPort: 0, heartbeats: false });
    try {
      const c = new DaemonClient(d.socketPath);
      await c.connect();
      const st = await c.request<{ setAside: SetAsideStore[] }>('status');
      const cfg = st.setAside.find((s) => s.store === 'config');
      assert.ok(cfg?.salvaged, JSON.stringify(st.setAside));
      assert.equal(cfg.salvaged.unreadablePages, 1);
      assert.ok(cfg.salvaged.kept > 100 && (cfg.salvaged.tables.people?.kept ?? 0) < 151, JSON.stringify(cfg.salvaged));
      const web = (await (await authedFetch(`${d.url}/api/v1/status`, {}, d.authToken)).json()) as { agent: { setAside: SetAsideStore[] } };
      assert.deepEqual(web.agent.setAside, st.setAside, 'the WebUI reads the same counts');
      c.close();
      // The settings are in effect: the source the person added answers the chat, with its key.
      assert.equal(d.config.get('core.agent.name'), 'Jarvis');
      llm.enqueue({ text: 'Hello from the salvaged source.' });
      const o = await d.agent.injectInput({ sessionId: 'webui:s', source: 'webui', text: 'hello?' }).done;
      assert.equal(o.status, 'ok');
      const chat = llm.requests.filter((r) => r.path === '/v1/chat/completions').at(-1);
      assert.equal(chat?.headers.authorization, `Bearer ${KEY}`);
      assert.ok((d.config.people.list().length) > 1, 'the people on readable pages are back');
    } finally {
      await d.stop();
    }
    assert.doesNotMatch(readFileSync(join(h, 'logs', 'homed.log'), 'utf8'), new RegExp(KEY), 'the key is never logged');
    assert.match(readFileSync(join(h, 'logs', 'homed.log'), 'utf8'), /config database is corrupt.*started a new one with what could be read back of it/);
  } finally {
    await llm.close();
  }
});

test('0250: archive.db damage an open does not read leaves the export whole but for that file, named; damage the first reads meet sets it aside — the status names it, reindex runs, the export is whole', async () => {
  const h = mkdtempSync(join(tmpdir(), 'ha-archive-aside-'));
  homes.push(h);
  const file = join(h, 'documents', 'archive.db');
  // Turns that went cold before anything broke.
  const a = new ColdArchive({ home: h, tokenize: (t) => t.toLowerCase().split(/\W+/).filter(Boolean), saidDays: () => [] });
  a.open();
  a.putMany(
    Array.from({ length: 70 }, (_, i) => {
      const content = `archived turn ${i}: the dentist, the garden and the car ${'more words '.repeat(30)}`;
      return { id: `a${i}`, content, input: content, response: '', kind: 'archive', source: 'cli', channel: 'cli', sessionId: 'cli:old', createdAt: 1000 + i, addedAt: 1000 + i, accessCount: 0, refs: [`t${i}`], eventKind: 'user', speaker: { id: `cli:p${i % 3}`, name: `P${i % 3}` } };
    }),
  );
  a.close();
  const turnPages = tablePages(file, 'turns', 'leaf');
  const peoplePages = tablePages(file, 'speakers');
  assert.ok(turnPages.length >= 2 && peoplePages.length >= 1);

  // A bad sector under archived turns: opening reads only the counters and the people, and is fine.
  for (const p of turnPages) overwritePage(file, p.pageno);
  let d = await startTestDaemon({ homeDir: h, env: env(h), webuiPort: 0, heartbeats: false });
  try {
    const c = new DaemonClient(d.socketPath);
    await c.connect();
    assert.deepEqual((await c.request<{ setAside: SetAsideStore[] }>('status')).setAside, []);
    const backup = join(h, 'backup.zip');
    const job = await c.request<TransferJobView>('transfer.export', { file: backup });
    assert.equal(job.state, 'done', JSON.stringify(job.error));
    assert.ok(existsSync(backup), 'the backup is written');
    assert.deepEqual(job.leftOut?.map((l) => [l.part, l.file]), [['archive', 'documents/archive.db']], 'named in the data folder, not by the path of the machine');
    assert.match(job.leftOut[0].error, /malformed/);
    assert.match(job.leftOut[0].recover, /waiter memory reindex/);
    c.close();
  } finally {
    await d.stop();
  }
  assert.match(readFileSync(join(h, 'logs', 'homed.log'), 'utf8'), /archive\.db is damaged .*left out/);

  // And under the people heard: the first reads of the next open meet it.
  for (const p of peoplePages) overwritePage(file, p.pageno);
  d = await startTestDaemon({ homeDir: h, env: env(h), webuiPort: 0, heartbeats: false });
  try {
    const c = new DaemonClient(d.socketPath);
    await c.connect();
    const st = await c.request<{ setAside: SetAsideStore[] }>('status');
    assert.deepEqual(st.setAside.map((s) => s.store), ['archive']);
    const aside = st.setAside[0];
    assert.ok(aside.file.startsWith(`${file}.corrupt-`) && existsSync(aside.file), aside.file);
    assert.equal(aside.recover, 'waiter memory reindex');
    const web = (await (await authedFetch(`${d.url}/api/v1/status`, {}, d.authToken)).json()) as { agent: { setAside: SetAsideStore[] } };
    assert.deepEqual(web.agent.setAside, st.setAside, 'the WebUI reads the same list');
    const stats = await c.request<{ archive: { count: number } }>('memory.stats');
    assert.equal(stats.archive.count, 0, 'the new archive is empty, and says so');
    await c.request('memory.reindex', {});
    const job = await c.request<TransferJobView>('transfer.export', { file: join(h, 'backup2.zip') });
    assert.equal(job.state, 'done');
    assert.equal(job.leftOut, undefined);
    c.close();
  } finally {
    await d.stop();
  }
});
