/**
 * Decision 0620 on REAL daemons (`startDaemon`, the fake LLM over loopback, real SQLite, real
 * archives, the WebUI's resend route): which turn a regenerate replaced travels in an export, so an
 * import elsewhere does not bring the old copy of the turn back into memory there — from the
 * export made after the regenerate, nor from one made before it and imported before or after.
 * A replacement is recorded only for a turn of a conversation whose log comes in and says so: a
 * conversation kept as it is here (its turn ids are this install's turns) and a row the log does
 * not bear out change nothing here; a malformed `replacements.json` is refused whole.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import type { RecallHit, TransferReport } from '../src/spec/index.js';
import { parseManifest } from '../src/transfer/index.js';
import { DaemonClient } from '../src/waiter/daemon-client.js';
import { readZip, rewriteExport } from './fixtures/export-zip.js';
import { startFakeLlm, type FakeLlm } from './fixtures/fake-llm/index.js';

const SID = 'webui:regen';
const LOCK = 'My bike lock code is 8086, please remember it';

describe('replaced turns travel with an export (decision 0620)', { timeout: 180_000 }, () => {
  let llm: FakeLlm;
  let work: string;
  let a: Daemon;
  let oldTurn: string;
  let newTurn: string;
  let before0620: string;
  let after0620: string;
  const env = () => ({ PATH: process.env.PATH, OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${llm.url}/v1`, OLLAMA_HOST: 'http://127.0.0.1:9' });
  const start = (name: string) => startTestDaemon({ homeDir: join(work, name), env: env(), webuiPort: 0, heartbeats: false, transfer: { scryptLogN: 10 } });
  const api = async (d: Daemon, path: string, body?: unknown) => {
    const res = await fetch(`${d.url}${path}`, { method: body === undefined ? 'GET' : 'POST', headers: { authorization: `Bearer ${d.authToken}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const turn = async (d: Daemon, text: string, reply: string) => {
    llm.enqueue({ text: reply });
    const out = await d.agent.injectInput({ sessionId: SID, source: 'webui', text }).done;
    assert.equal(out.status, 'ok');
    return out.turnId;
  };
  /** `waiter memory search`: the turns of the hits that hold `words` (messages and replies; not the graph). */
  const recalled = async (d: Daemon, words: string) => {
    const c = new DaemonClient(d.socketPath);
    await c.connect();
    try {
      const hits = await c.request<RecallHit[]>('memory.search', { query: words, limit: 50 });
      return [...new Set(hits.filter((h) => h.tier !== 'graph' && h.text.includes(words)).map((h) => h.turnId))].sort();
    } finally {
      c.close();
    }
  };
  const importInto = async (d: Daemon, file: string, mode: 'skip' | 'overwrite' | 'keep-both' = 'skip'): Promise<TransferReport> => {
    const t = d.host.services.use('host.transfer')!;
    const job = await t.stageImport({ file });
    const done = await t.applyImport(job.id, { mode });
    assert.equal(done.state, 'done', JSON.stringify(done.error));
    return done.report!;
  };

  before(async () => {
    llm = await startFakeLlm();
    work = mkdtempSync(join(tmpdir(), 'ha-replacements-transfer-'));
    a = await start('a');
    oldTurn = await turn(a, LOCK, 'OLD-ANSWER: noted, the code is 8086.');
    const t = a.host.services.use('host.transfer')!;
    before0620 = join(work, 'before-regenerate.zip');
    await t.exportTo({ file: before0620 });
    llm.enqueue({ text: 'NEW-ANSWER: noted again.' });
    const res = await api(a, `/api/v1/sessions/${encodeURIComponent(SID)}/turns/${encodeURIComponent(oldTurn)}/resend`, {});
    assert.equal(res.status, 202, JSON.stringify(res.body));
    assert.deepEqual(res.body.replaced, [oldTurn]);
    newTurn = res.body.turnId as string;
    for (let i = 0; i < 400 && (await recalled(a, 'NEW-ANSWER')).length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    assert.deepEqual(await recalled(a, 'bike lock'), [newTurn], 'on the install that regenerated: once, the new turn');
    after0620 = join(work, 'after-regenerate.zip');
    await t.exportTo({ file: after0620 });
  });
  after(async () => {
    await a?.stop();
    await llm?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('the export carries the replacement (format 4); one made before any replacement has no such part (format 2)', async () => {
    const e2 = await readZip(after0620);
    assert.deepEqual(JSON.parse(e2.get('replacements.json')!.toString('utf8')), [{ turnId: oldTurn, byTurn: newTurn }]);
    assert.equal(parseManifest(e2.get('manifest.json')!.toString('utf8')).formatVersion, 4);
    const e1 = await readZip(before0620);
    assert.equal(e1.has('replacements.json'), false);
    assert.equal(parseManifest(e1.get('manifest.json')!.toString('utf8')).formatVersion, 2);
  });

  it('imported elsewhere, the export made before the regenerate and the one after leave the message in memory once — the new turn — in either order and across a restart', async () => {
    let b = await start('b');
    try {
      // The older export first (it holds no replacements: an archive of before 0620 imports as ever).
      const r1 = await importInto(b, before0620);
      assert.equal(r1.parts.replacements, undefined);
      assert.deepEqual(await recalled(b, 'bike lock'), [oldTurn], 'the older export brings the old turn');
      const r2 = await importInto(b, after0620);
      assert.equal(r2.parts.replacements?.added, 1, JSON.stringify(r2));
      assert.deepEqual(await recalled(b, 'bike lock'), [newTurn], 'the newer export takes the old copy out: the message once, in the new turn');
      assert.deepEqual(await recalled(b, 'OLD-ANSWER'), [], 'and nothing of the reply the person rejected');
      // The older export again, after: the old copy does not come back.
      const r3 = await importInto(b, before0620, 'overwrite');
      assert.equal(r3.parts.replacements, undefined);
      assert.deepEqual(await recalled(b, 'bike lock'), [newTurn]);
      // The newer one again: the same replacement, nothing new.
      const r4 = await importInto(b, after0620);
      assert.deepEqual([r4.parts.replacements?.added, r4.parts.replacements?.same], [0, 1]);
      await b.stop();
      b = await start('b');
      assert.deepEqual(await recalled(b, 'bike lock'), [newTurn], 'after a restart too');
      assert.deepEqual(await recalled(b, 'OLD-ANSWER'), []);
    } finally {
      await b.stop();
    }
  });

  it('a conversation kept as it is here is not touched by the archive\'s replacements, nor is a turn the archive\'s log does not show replaced; a malformed file is refused whole', async () => {
    const c = await start('c');
    try {
      // This install's own conversation of the same id: its turn 1 is another turn than the archive's.
      const own = await turn(c, 'My garden shed code is 3141', 'Noted, 3141.');
      assert.equal(own, oldTurn, 'the same turn id, another turn');
      const r = await importInto(c, after0620, 'skip');
      assert.equal(r.parts.sessions?.skipped, 1);
      assert.deepEqual(await recalled(c, 'garden shed'), [own], 'this install\'s own turn stays in memory');
      assert.deepEqual([r.parts.replacements?.added, r.parts.replacements?.skipped], [0, 1]);
      assert.ok(r.notes.some((n) => /replaced turn of the archive is in a conversation kept as it is here/.test(n)), r.notes.join('\n'));

      // A row that the archive's log does not bear out (nothing logged as replacing the turn).
      const forged = await rewriteExport(before0620, join(work, 'forged.zip'), (entries, m) => {
        entries.set('replacements.json', Buffer.from(JSON.stringify([{ turnId: oldTurn, byTurn: `${SID}#9` }, { turnId: '../../etc#1', byTurn: '../../etc#2' }])));
        m.files.push({ path: 'replacements.json', part: 'replacements', bytes: 0, sha256: '0'.repeat(64) });
        m.formatVersion = 4;
      });
      const d = await start('d');
      try {
        const rf = await importInto(d, forged);
        assert.deepEqual(await recalled(d, 'bike lock'), [oldTurn], 'the turn stays in memory');
        assert.deepEqual([rf.parts.replacements?.added, rf.parts.replacements?.skipped], [0, 2]);
        assert.ok(rf.notes.some((n) => /^2 replaced turns of the archive were left out/.test(n)), rf.notes.join('\n'));

        const malformed = await rewriteExport(before0620, join(work, 'malformed.zip'), (entries, m) => {
          entries.set('replacements.json', Buffer.from(JSON.stringify({ turnId: oldTurn })));
          m.files.push({ path: 'replacements.json', part: 'replacements', bytes: 0, sha256: '0'.repeat(64) });
          m.formatVersion = 4;
        });
        const t = d.host.services.use('host.transfer')!;
        const job = await t.stageImport({ file: malformed });
        await assert.rejects(t.inspectImport(job.id, { mode: 'skip' }), (e: Error & { code?: string }) => e.code === 'TRANSFER_CORRUPT' && /replacements\.json is malformed/.test(e.message));
        assert.deepEqual(await recalled(d, 'bike lock'), [oldTurn], 'nothing changed');
        assert.equal((await api(d, '/api/v1/status')).status, 200, 'the daemon keeps running');
      } finally {
        await d.stop();
      }
    } finally {
      await c.stop();
    }
  });
});
