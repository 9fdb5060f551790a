/**
 * An install's own export imported back into it (decision 0540), on a REAL daemon (`startDaemon`,
 * the fake LLM over loopback for the turns, real SQLite, real archives): memories, a library
 * memory, facts from the rule distiller and a forgotten turn. Imported back — checked and applied,
 * in every mode — it is the same memory: no conflict, nothing "forgotten", no second copy of a
 * conversation. An export taken before the forget keeps the turn forgotten, says so in words, and
 * still finds the conversation the same (its title included: the forgotten message must not come
 * back as a conversation's name).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeLlm, type FakeLlm } from './fixtures/fake-llm/index.js';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { TRANSFER_MODES, type TransferReport } from '../src/spec/index.js';

let fake: FakeLlm;
let work: string;
let d: Daemon;
let beforeForget: string;
let afterForget: string;
const SECRET = 'My bank PIN is 4471, remember it.';

async function turn(text: string, reply: string): Promise<string> {
  fake.enqueue({ text: reply });
  const out = await d.agent.injectInput({ sessionId: 'cli:default', source: 'cli', text }).done;
  assert.equal(out.status, 'ok', JSON.stringify(out));
  return out.turnId;
}

/** What a person sees of the memory and the conversations. */
async function seen(): Promise<string> {
  const sessions = await d.sessions.list();
  const logs = await Promise.all(sessions.map(async (s) => `${s.id} "${s.title}": ${(await d.sessions.events(s.id)).map((e) => `${e.turnId}/${e.kind}/${e.text}`).join('|')}`));
  const dir = join(d.homeDir, 'memory', 'memories');
  return JSON.stringify({
    logs: logs.sort(),
    context: d.memory.context.events().map((e) => e.id).sort(),
    docs: d.memory.docs.list({ limit: 1000 }).map((x) => x.id).sort(),
    graph: d.memory.graph.exportFacts().relations.map((r) => `${r.subject} ${r.predicate} ${r.object}`).sort(),
    library: readdirSync(dir).sort().map((n) => readFileSync(join(dir, n), 'utf8')),
  });
}

function conflictsAndForgotten(r: TransferReport): Record<string, { conflicts: number; forgotten: number; added: number }> {
  const out: Record<string, { conflicts: number; forgotten: number; added: number }> = {};
  for (const [part, p] of Object.entries(r.parts)) if (p && (p.conflicts || p.forgotten || p.added)) out[part] = { conflicts: p.conflicts, forgotten: p.forgotten, added: p.added };
  return out;
}

before(async () => {
  fake = await startFakeLlm();
  work = mkdtempSync(join(tmpdir(), 'ha-reimport-'));
  const env = { HOME: process.env.HOME, OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${fake.url}/v1`, OLLAMA_HOST: 'http://127.0.0.1:9' };
  d = await startTestDaemon({ homeDir: join(work, 'home'), env, webuiPort: 0, heartbeats: false, transfer: { scryptLogN: 10 } });
  // The forgotten turn is the conversation's first: its title was made from it.
  const secret = await turn(SECRET, 'I will remember your PIN.');
  await turn('I live in Paris.', 'Noted, Paris.');
  await turn('My name is Lea.', 'Hello Lea.');
  await turn('I work at Acme as a baker.', 'A baker at Acme, nice.');
  const rules = await d.memory.heartbeats.runOnce('rules');
  assert.ok(rules?.ok && d.memory.graph.exportFacts().relations.length >= 3, JSON.stringify(rules));
  const saved = await fetch(`${d.url}/api/memory-manager`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${d.authToken}` },
    body: JSON.stringify({ op: 'memory.save', args: { title: 'Trip', snapshot: 'Trip to Rome in May.', tags: ['travel'] } }),
  });
  assert.equal(saved.status, 200);
  const t = d.host.services.use('host.transfer')!;
  beforeForget = join(work, 'before-forget.zip');
  await t.exportTo({ file: beforeForget });
  await d.host.services.use('host.memory-control')!.forget({ turnIds: [secret] });
  afterForget = join(work, 'after-forget.zip');
  await t.exportTo({ file: afterForget });
});

after(async () => {
  await d?.stop();
  await fake?.close();
  rmSync(work, { recursive: true, force: true });
});

test('0540: an install\'s own export imported back is the same memory — no conflict, nothing forgotten, no second conversation — checked and applied, in every mode', async () => {
  const t = d.host.services.use('host.transfer')!;
  const was = await seen();
  for (const mode of TRANSFER_MODES) {
    const job = await t.stageImport({ file: afterForget });
    const dry = await t.inspectImport(job.id, { mode });
    // Before 0540: sessions 1 conflict, 2 forgotten — the log's two `[forgotten]` placeholders of
    // the forgotten turn were taken out of the archive's copy, which then differed from ours.
    assert.deepEqual(conflictsAndForgotten(dry.report!), {}, `${mode}: ${JSON.stringify(dry.report!.parts)}`);
    assert.equal(dry.report!.parts.sessions?.same, 1);
    assert.ok((dry.report!.parts.tombstones?.same ?? 0) > 0, 'the forgets are here already');
    const applied = await t.applyImport(job.id, { mode });
    assert.deepEqual(conflictsAndForgotten(applied.report!), {}, `${mode}: ${JSON.stringify(applied.report!.parts)}`);
    assert.deepEqual(applied.report!.renamedSessions, {});
    assert.equal(await seen(), was, `${mode} changed the memory`);
  }
});

test('0540: an export made before a forget, imported back: the turn stays forgotten and the report says so in words; the conversation is the same, not a second copy named after the forgotten message', async () => {
  const t = d.host.services.use('host.transfer')!;
  const was = await seen();
  assert.doesNotMatch(was, /4471/);
  for (const mode of TRANSFER_MODES) {
    const job = await t.stageImport({ file: beforeForget });
    const dry = await t.inspectImport(job.id, { mode });
    const s = dry.report!.parts.sessions!;
    // One conversation, the same; one turn of it forgotten (counted in turns, not log events).
    assert.deepEqual({ same: s.same, conflicts: s.conflicts, forgotten: s.forgotten }, { same: 1, conflicts: 0, forgotten: 1 }, `${mode}: ${JSON.stringify(s)}`);
    assert.ok(dry.report!.notes.includes('1 turn in the archive was forgotten here, and stays forgotten: it comes in as [forgotten] in its conversation\'s log, and what the other parts held of it was left out (the "forgotten" column)'), JSON.stringify(dry.report!.notes));
    const applied = await t.applyImport(job.id, { mode });
    assert.deepEqual(applied.report!.renamedSessions, {}, `${mode} imported the conversation a second time`);
    assert.equal(await seen(), was, `${mode} changed the memory`);
  }
  const files = readdirSync(join(d.homeDir, 'sessions'));
  assert.deepEqual(files, ['cli%3Adefault.jsonl']);
  assert.doesNotMatch(readFileSync(join(d.homeDir, 'sessions', files[0]), 'utf8'), /4471/, 'the forgotten message came back in the log');
});

test('an own export imported back without privileged settings: a privileged setting with the same value here is the same, not "left out"; one changed since is left out', async () => {
  const t = d.host.services.use('host.transfer')!;
  await d.config.set('core.media.html_timeout_ms', 20_000);
  const file = join(work, 'with-setting.zip');
  await t.exportTo({ file });
  const same = await t.inspectImport((await t.stageImport({ file })).id, { mode: 'skip' });
  assert.equal(same.report!.parts.settings?.privilegedLeftOut, undefined, JSON.stringify(same.report!.parts.settings));
  assert.ok((same.report!.parts.settings?.same ?? 0) >= 1);
  await d.config.set('core.media.html_timeout_ms', 25_000);
  const changed = await t.inspectImport((await t.stageImport({ file })).id, { mode: 'skip' });
  assert.deepEqual(changed.report!.parts.settings?.privilegedLeftOut, ['core.media.html_timeout_ms']);
  assert.equal(d.config.get('core.media.html_timeout_ms'), 25_000);
});
