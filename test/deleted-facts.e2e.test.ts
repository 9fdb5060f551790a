/**
 * A fact the person deleted stays deleted (decision 0490), on the REAL daemon: after
 * `delete-fact` (the host.memory service `waiter` and the WebUI call), neither a reindex, nor a
 * context.json that is garbage at the next start (recovery replays the session log with new event
 * ids), nor an export imported into a fresh folder re-creates it from the same words; the value it
 * had replaced holds again. Said anew in a later turn, it comes back.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { startFakeLlm, type FakeLlm } from './fixtures/fake-llm/index.js';

const SID = 'cli:deleted-facts';

describe('a deleted fact is not distilled again from the same words', { timeout: 180_000 }, () => {
  let llm: FakeLlm;
  const homes: string[] = [];
  const daemons: Daemon[] = [];
  const env = () => ({ HOME: process.env.HOME, PATH: process.env.PATH, OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${llm.url}/v1`, OLLAMA_HOST: 'http://127.0.0.1:9' });
  const start = async (home?: string) => {
    for (const d of daemons.splice(0)) await d.stop();
    const h = home ?? mkdtempSync(join(tmpdir(), 'ha-deleted-fact-'));
    if (!home) homes.push(h);
    const d = await startTestDaemon({ homeDir: h, env: env(), webuiPort: 0, heartbeats: false, transfer: { scryptLogN: 10, limits: { maxRatio: 100 } } });
    daemons.push(d);
    return d;
  };
  const turn = async (d: Daemon, text: string) => {
    llm.enqueue({ text: 'Noted.' });
    const out = await d.agent.injectInput({ sessionId: SID, source: 'cli', text }).done;
    assert.equal(out.status, 'ok', JSON.stringify(out));
    await d.memory.rules.tick();
    return out.turnId;
  };
  /** Where the person lives, as the graph says: each value with whether it holds now. */
  const homesOf = (d: Daemon) => d.memory.graph.relationsOf('user', 'lives_in').map((r) => `${r.object}${r.validTo == null ? ' (now)' : ''}`).sort();

  let A: Daemon;
  let portoTurn = '';
  before(async () => {
    llm = await startFakeLlm();
    A = await start();
    await turn(A, 'I live in Lisbon.');
    await new Promise((r) => setTimeout(r, 5));
    portoTurn = await turn(A, 'I live in Porto.');
    assert.deepEqual(homesOf(A), ['Lisbon', 'Porto (now)']);
    const porto = A.memory.graph.relationsOf('user', 'lives_in').find((r) => r.object === 'Porto')!;
    await A.host.services.use('host.memory')!.deleteRelation(porto.id);
    assert.deepEqual(homesOf(A), ['Lisbon (now)'], 'the earlier value holds again');
  });
  after(async () => {
    for (const d of daemons) await d.stop();
    await llm?.close();
    for (const h of homes) rmSync(h, { recursive: true, force: true });
  });

  it('garbage in context.json, then a restart that replays the session log, does not bring it back', async () => {
    const home = A.homeDir;
    await A.stop();
    writeFileSync(join(home, 'memory', 'context.json'), '{ not json at all');
    A = await start(home);
    await A.memory.rules.tick();
    assert.ok(A.memory.context.events().some((e) => e.kind === 'user' && e.input.includes('Porto')), 'the log was replayed into the context');
    assert.deepEqual(homesOf(A), ['Lisbon (now)']);
  });

  it('an export imported into a fresh folder does not bring it back', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'ha-deleted-fact-x-')), 'all.zip');
    homes.push(join(out, '..'));
    await A.host.services.use('host.transfer')!.exportTo({ file: out });
    const home = A.homeDir;
    const B = await start();
    const t = B.host.services.use('host.transfer')!;
    const job = await t.stageImport({ file: out });
    assert.equal((await t.applyImport(job.id, { mode: 'skip' })).state, 'done');
    await t.discard(job.id);
    await B.memory.rules.tick();
    assert.ok(B.memory.context.events().some((e) => e.kind === 'user' && e.input.includes('Porto')), 'the turn came over');
    assert.deepEqual(homesOf(B), ['Lisbon (now)']);
    // Said again in a new turn, after the delete: the person means it, and it holds again.
    await turn(B, 'I live in Porto.');
    assert.deepEqual(homesOf(B), ['Lisbon', 'Porto (now)']);
    A = await start(home);
  });

  it('a delete the person undid leaves no mark: the fact stays through a reindex', async () => {
    const d = await start();
    const faroTurn = await turn(d, 'I live in Faro.');
    const faro = d.memory.graph.relationsOf('user', 'lives_in').find((r) => r.object === 'Faro')!;
    await d.host.services.use('host.memory')!.deleteRelation(faro.id);
    const control = d.host.services.use('host.memory-control')!;
    const del = control.history({ limit: 20 }).find((c) => c.kind === 'relation' && c.op === 'delete');
    assert.ok(del, JSON.stringify(control.history({ limit: 20 }).map((c) => [c.kind, c.op, c.summary])));
    await control.undo(del.id);
    assert.deepEqual(homesOf(d), ['Faro (now)']);
    d.memory.context.deleteByTurnIds([faroTurn]);
    d.memory.graph.deleteRelation(faro.id);
    const r = await d.memory.reindex();
    assert.ok(r.added >= 1, JSON.stringify(r));
    const homes = homesOf(d);
    A = await start(A.homeDir);
    assert.deepEqual(homes, ['Faro (now)'], 'distilled again from the turn, it is not dropped by a mark');
  });

  it('a reindex that distils the turn again does not bring it back', async () => {
    // The turn has left every tier: the reindex archives it from the session log and distils it.
    A.memory.context.deleteByTurnIds([portoTurn]);
    const r = await A.memory.reindex();
    assert.ok(r.added >= 1, JSON.stringify(r));
    assert.deepEqual(homesOf(A), ['Lisbon (now)']);
  });

  it('a corrected value is the fact now, and a reindex of the same words does not bring the wrong one back', async () => {
    const d = await start();
    const said = await turn(d, 'I work as a nurse.');
    const nurse = d.memory.graph.relationsOf('user', 'works_as').find((r) => r.object === 'nurse')!;
    // The person's correction (About me's "Correct", `waiter memory correct-fact`).
    const fixed = await d.host.services.use('host.memory')!.correctRelation(nurse.id, 'midwife');
    assert.equal(fixed.id, nurse.id, 'the same fact, its value corrected');
    assert.deepEqual(fixed.refs, nurse.refs, 'it keeps where it came from');
    const jobs = () => d.memory.graph.relationsOf('user', 'works_as').map((r) => `${r.object}${r.validTo == null ? ' (now)' : ''}`).sort();
    assert.deepEqual(jobs(), ['midwife (now)']);
    await assert.rejects(d.host.services.use('host.memory')!.correctRelation(nurse.id, '  '), /empty/);
    await assert.rejects(d.host.services.use('host.memory')!.correctRelation(987654, 'x'), /not found/i);
    d.memory.context.deleteByTurnIds([said]);
    const r = await d.memory.reindex();
    assert.ok(r.added >= 1, JSON.stringify(r));
    assert.deepEqual(jobs(), ['midwife (now)'], 'the wrong value was not distilled again');
    A = await start(A.homeDir);
  });
});
