/**
 * Decision 0700 on the REAL daemon (the fake LLM over loopback, real SQLite, the WebUI's routes, the
 * daemon's own log file): an excluded turn is swept aside once, not again at every start — only
 * what can bring back what it set aside (an undo that writes a fact of it back, an import's
 * swapped tiers) makes the next open sweep it again. What the opens did is read in `homed.log`,
 * where memory control says how many excluded turns it swept; what they left, in the graph.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { startFakeLlm, type FakeLlm } from './fixtures/fake-llm/index.js';

const SID = 'webui:exclusion-sweeps';
const SWEPT = /memory control: swept (\d+) excluded turn\(s\)/g;

describe('an excluded turn is swept once, and again only when something can bring it back (decision 0700)', { timeout: 180_000 }, () => {
  let llm: FakeLlm;
  let home: string;
  let work: string;
  let d: Daemon | undefined;
  const logFile = () => join(home, 'logs', 'homed.log');
  const logLength = () => (existsSync(logFile()) ? readFileSync(logFile(), 'utf8').length : 0);
  /** How many excluded turns memory control said it swept in what the log gained since `from`. */
  const sweptSince = (from: number) => [...readFileSync(logFile(), 'utf8').slice(from).matchAll(SWEPT)].map((m) => Number(m[1]));
  const env = () => ({ PATH: process.env.PATH, OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${llm.url}/v1`, OLLAMA_HOST: 'http://127.0.0.1:9' });
  /** Stops the daemon running (if any) and starts it again over the same data folder; returns how many excluded turns its start swept. */
  const restart = async () => {
    await d?.stop();
    const from = logLength();
    d = await startTestDaemon({ homeDir: home, env: env(), webuiPort: 0, heartbeats: false, transfer: { scryptLogN: 10 } });
    return sweptSince(from);
  };
  const api = async (path: string, body?: unknown) => {
    const res = await fetch(`${d!.url}${path}`, { method: body === undefined ? 'GET' : 'POST', headers: { authorization: `Bearer ${d!.authToken}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = (await res.json()) as Record<string, unknown>;
    assert.equal(res.status, 200, JSON.stringify(json));
    return json;
  };
  const porto = () => d!.memory.graph.relationsOf('user', 'lives_in').filter((r) => r.object === 'Porto');

  let turnId = '';
  let deleteId = '';
  before(async () => {
    llm = await startFakeLlm();
    work = mkdtempSync(join(tmpdir(), 'ha-exclusion-sweeps-'));
    home = join(work, 'home');
    assert.deepEqual(await restart(), [], 'nothing excluded yet');
    llm.enqueue({ text: 'Noted.' });
    const out = await d!.agent.injectInput({ sessionId: SID, source: 'webui', text: 'I live in Porto.' }).done;
    assert.equal(out.status, 'ok', JSON.stringify(out));
    turnId = out.turnId;
    await d!.memory.rules.tick();
    const [fact] = porto();
    assert.ok(fact, 'the rules drew the fact from the turn');
    // The person deletes the fact, then excludes the turn it came from.
    await d!.host.services.use('host.memory')!.deleteRelation(fact.id);
    const history = (await api(`/api/v1/memory/history?target=${encodeURIComponent(`relation:${fact.id}`)}`)).history as { id: string; op: string }[];
    deleteId = history.find((c) => c.op === 'delete')!.id;
    assert.ok(deleteId, JSON.stringify(history));
    assert.deepEqual((await api('/api/v1/memory/exclusions', { turnIds: [turnId] })).turns, 1);
  });
  after(async () => {
    await d?.stop();
    await llm?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('a start after the exclusion does not sweep it again, nor the start after that', async () => {
    assert.deepEqual(await restart(), [], 'swept when it was excluded, with every tier up: done');
    assert.deepEqual(await restart(), [], 'and still done at the next start');
    assert.deepEqual((await api('/api/v1/memory/exclusions')).turnIds, [turnId], 'still excluded');
  });

  it('an undo that writes back a fact of the excluded turn makes it swept again at the next start — once', async () => {
    await api(`/api/v1/memory/history/${deleteId}/undo`, {});
    assert.equal(porto().length, 1, 'the undo brought the fact back, citing the excluded turn');
    assert.deepEqual(await restart(), [1], 'the next start swept the excluded turn');
    assert.deepEqual(porto(), [], 'and set the fact aside with it');
    assert.deepEqual(await restart(), [], 'swept: the start after leaves it alone');
  });

  it('an import swaps the tiers: their reopening sweeps the exclusion again, and the next start does not', async () => {
    const file = join(work, 'all.zip');
    const t = d!.host.services.use('host.transfer')!;
    await t.exportTo({ file });
    const from = logLength();
    const job = await t.stageImport({ file });
    assert.equal((await t.applyImport(job.id, { mode: 'skip' })).state, 'done');
    assert.deepEqual(sweptSince(from), [1], 'the tiers\' reopening swept the excluded turn');
    assert.deepEqual(porto(), []);
    assert.deepEqual(await restart(), [], 'and the next start does not');
    // Restored, what it set aside is back.
    await api('/api/v1/memory/exclusions/restore', { turnIds: [turnId] });
    assert.equal(porto().length, 1, 'the restore put the fact back');
    assert.deepEqual(await restart(), [], 'nothing excluded is left to sweep');
  });
});
