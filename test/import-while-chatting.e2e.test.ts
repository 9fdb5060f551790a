/**
 * Decision 0380: chatting while an import is applied. A message acknowledged while an import
 * reads, merges and swaps session logs in is never lost — not when the import brings a longer
 * copy of the same session (overwrite), not when it is undone, not when the daemon is killed in
 * the middle of it — and no two turns of a session get the same id. REAL daemons (`startDaemon`,
 * the fake LLM over loopback), chats over the WebUI's HTTP route and straight into the agent while
 * the import's own fault-injection hooks run.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeLlm, type FakeLlm } from './fixtures/fake-llm/index.js';
import type { Daemon, DaemonOptions } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import type { InputTicket, TransferJobView } from '../src/spec/index.js';
import { journalPath, recoverInterruptedImport } from '../src/transfer/index.js';
import { sessionFileStem } from '../src/sessions/index.js';

let fake: FakeLlm;
const homes: string[] = [];
const daemons: Daemon[] = [];
const work = mkdtempSync(join(tmpdir(), 'ha-chatimp-'));
const env = () => ({ HOME: process.env.HOME, OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${fake.url}/v1`, OLLAMA_HOST: 'http://127.0.0.1:9' });
const transferOpts = { scryptLogN: 10, limits: { maxRatio: 100 } };
const S = 'webui:talk';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function daemon(extra: Partial<DaemonOptions> = {}): Promise<Daemon> {
  for (const d of daemons) await d.stop();
  const home = mkdtempSync(join(tmpdir(), 'ha-chatimp-home-'));
  homes.push(home);
  const d = await startTestDaemon({ homeDir: home, env: env(), webuiPort: 0, heartbeats: false, transfer: transferOpts, ...extra });
  daemons.push(d);
  return d;
}

/** The text of the last user message of a chat request (the fake LLM answers `REPLY[<its tail>]`). */
function lastUser(body: unknown): string {
  const msgs = ((body as { messages?: { role: string; content: unknown }[] })?.messages ?? []).filter((m) => m.role === 'user');
  const c = msgs[msgs.length - 1]?.content;
  return typeof c === 'string' ? c : JSON.stringify(c ?? '');
}

let e1 = '';
let e2 = '';

before(async () => {
  fake = await startFakeLlm();
  fake.setDefault((req) => {
    const tag = /\[m:[a-z0-9-]+\]/.exec(lastUser(req.body))?.[0];
    return { text: tag ? `REPLY${tag}` : 'ok' };
  });
  // P chats twice in S (→ e1), then twice more (→ e2): e2's S extends e1's.
  const P = await daemon();
  const say = async (text: string) => {
    const out = await P.agent.injectInput({ sessionId: S, source: 'webui', channel: 'webui', text }).done;
    assert.equal(out.status, 'ok', JSON.stringify(out));
  };
  await say('first [m:p1]');
  await say('second [m:p2]');
  const t = P.host.services.use('host.transfer')!;
  e1 = join(work, 'e1.zip');
  await t.exportTo({ file: e1 });
  await say('third [m:p3]');
  await say('fourth [m:p4]');
  e2 = join(work, 'e2.zip');
  await t.exportTo({ file: e2 });
  await P.stop();
});

after(async () => {
  for (const d of daemons) await d.stop().catch(() => {});
  await fake?.close();
  for (const h of [...homes, work]) rmSync(h, { recursive: true, force: true });
});

interface Sent {
  tag: string;
  turnId?: string;
  acked: boolean;
  /** Acknowledged as an interrupt of the turn then running (the chat route's `delivery`). */
  interrupt?: boolean;
}

/** Posts a chat message to S over HTTP and marks it acknowledged with its 202's turn id. */
async function post(d: Daemon, s: Sent): Promise<string> {
  const res = await fetch(`${d.url}/api/v1/chat`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${d.authToken}` }, body: JSON.stringify({ sessionId: S, text: `hello ${s.tag}` }) });
  const body = (await res.json()) as { turnId?: string; delivery?: string };
  assert.equal(res.status, 202, JSON.stringify(body));
  // Sent once the agent runs again (the import over), a message can join the turn in flight.
  Object.assign(s, { turnId: body.turnId!, acked: true, interrupt: body.delivery === 'interrupt' });
  return body.turnId!;
}

/** The user and assistant events of S, read from its log file (what is on disk). */
function logOf(home: string): { seq: number; turnId: string; kind: string; text: string }[] {
  return readFileSync(join(home, 'sessions', `${sessionFileStem(S)}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; seq: number; turnId: string; kind: string; text: string })
    .filter((r) => r.type === 'event');
}

/**
 * Every acknowledged message is in the log once, in the order acknowledged (`ordered`), each as
 * the first event of a turn of its own whose id is the one it was given, and answered in that turn.
 */
async function checkAllKept(d: Daemon, sent: Sent[], ordered: string[], imported = ['[m:p1]', '[m:p2]', '[m:p3]', '[m:p4]']): Promise<void> {
  const acked = sent.filter((s) => s.acked && !s.interrupt);
  const interrupts = sent.filter((s) => s.acked && s.interrupt);
  assert.ok(acked.length > 0, 'nothing was acknowledged');
  // What a turn's reply may answer: its message, or the last interrupt that joined it.
  const answers = (evs: ReturnType<typeof logOf>, s: Sent) => {
    const turn = evs.filter((e) => e.turnId === s.turnId);
    const tags = [s.tag, ...turn.filter((e) => e.kind === 'interrupt').map((e) => /\[m:[a-z0-9-]+\]/.exec(e.text)?.[0])];
    return turn.filter((e) => e.kind === 'assistant' && tags.some((t) => e.text === `REPLY${t}`));
  };
  // Every accepted message gets its reply (the agent runs them after the import).
  const deadline = Date.now() + 60_000;
  for (;;) {
    const evs = logOf(d.homeDir);
    if (acked.every((s) => answers(evs, s).length > 0)) break;
    if (Date.now() > deadline) assert.fail(`not every acknowledged message was answered: ${JSON.stringify(acked.filter((s) => !answers(evs, s).length).map((s) => s.tag))} ${JSON.stringify(evs.map((e) => [e.seq, e.turnId, e.kind, e.text.slice(0, 40)]))}`);
    await sleep(50);
  }
  const evs = logOf(d.homeDir);
  // Seqs are the log's order, without a hole or a repeat.
  assert.deepEqual(evs.map((e) => e.seq), evs.map((_, i) => i + 1), 'seqs run 1, 2, 3 … in the log');
  const users = evs.filter((e) => e.kind === 'user');
  const turnIds = users.map((e) => e.turnId);
  assert.equal(new Set(turnIds).size, turnIds.length, `two messages share a turn id: ${turnIds.join(' ')}`);
  // The session's turns from before (the imported ones, p1…p4, or the two of its own when the
  // import was undone) come first, then what was said during the import.
  assert.deepEqual(users.slice(0, imported.length).map((e) => /\[m:p\d\]/.exec(e.text)?.[0]), imported);
  for (const s of acked) {
    const mine = users.filter((e) => e.text.endsWith(s.tag));
    assert.equal(mine.length, 1, `${s.tag} is in the log ${mine.length} times`);
    assert.equal(mine[0].turnId, s.turnId, `${s.tag} was acknowledged as ${s.turnId} and logged as ${mine[0].turnId}`);
    const turn = evs.filter((e) => e.turnId === s.turnId);
    assert.equal(turn[0].kind, 'user', `${s.turnId} starts with its message`);
    assert.equal(turn.filter((e) => e.kind === 'assistant').length, 1, `${s.turnId} has one reply`);
    assert.equal(answers(evs, s).length, 1, `${s.turnId} answers its own message`);
  }
  // (An interrupt that came too late for its turn's last call is a turn of its own, C-2.)
  for (const s of interrupts) assert.ok(evs.some((e) => (e.kind === 'interrupt' || e.kind === 'user') && e.text.endsWith(s.tag)), `the interrupt ${s.tag} is in the log`);
  const order = users.map((e) => /\[m:[a-z0-9-]+\]/.exec(e.text)?.[0]).filter((t): t is string => !!t && ordered.includes(t));
  assert.deepEqual(order, ordered, 'messages sent one after another are logged in that order');
}

/**
 * Starts an import of e2 (overwrite) into `d` and chats in S from the moment it plans (it has the
 * agent held then and reads the live logs next) until it ends: one message after another over
 * HTTP, each sent once the one before was acknowledged, and others sent every few milliseconds
 * without waiting; `hooks` adds those sent straight into the agent from the import's hooks.
 */
async function importWhileChatting(d: Daemon, hooks: { fromHook: Sent[]; tickets: InputTicket[] }): Promise<{ job: Promise<TransferJobView>; sent: Sent[]; ordered: string[] }> {
  const t = d.host.services.use('host.transfer')!;
  const staged = await t.stageImport({ file: e2 });
  const sent: Sent[] = [];
  const ordered: string[] = [];
  // No turn runs until everything is sent (a message sent during a turn would join it as an
  // interrupt): the import holds the agent the same way while it applies.
  const release = await d.agent.hold();
  let running = true;
  const job = t.applyImport(staged.id, { mode: 'overwrite' }).finally(() => (running = false));
  job.catch(() => {});
  while (running && t.job(staged.id).progress.phase !== 'plan') await sleep(1);
  const chain = (async () => {
    for (let i = 0; running; i++) {
      const s: Sent = { tag: `[m:seq-${i}]`, acked: false };
      sent.push(s);
      await post(d, s);
      if (!s.interrupt) ordered.push(s.tag);
    }
  })();
  const burst: Promise<void>[] = [];
  for (let i = 0; running && i < 30; i++) {
    const s: Sent = { tag: `[m:par-${i}]`, acked: false };
    sent.push(s);
    burst.push(post(d, s).then(() => {}));
    await sleep(5);
  }
  await chain;
  await Promise.all(burst);
  await job.catch(() => {});
  release();
  for (const tk of hooks.tickets) await tk.accepted;
  for (const [i, s] of hooks.fromHook.entries()) {
    s.turnId = hooks.tickets[i].turnId;
    s.acked = true;
  }
  assert.ok(sent.length > 1, 'messages were sent while the import ran');
  return { job, sent: [...sent, ...hooks.fromHook], ordered };
}

/** Inputs sent straight to the agent from inside an import hook (in the middle of the swap). */
function injector(getDaemon: () => Daemon | undefined, hooks: { fromHook: Sent[]; tickets: InputTicket[] }, label: string) {
  return () => {
    const d = getDaemon();
    if (!d) return;
    for (let k = 0; k < 2; k++) {
      const s: Sent = { tag: `[m:${label}-${hooks.fromHook.length}]`, acked: false };
      const tk = d.agent.injectInput({ sessionId: S, source: 'webui', channel: 'webui', text: `hook ${s.tag}` });
      void tk.accepted.then(() => (s.acked = true), () => {});
      hooks.fromHook.push(s);
      hooks.tickets.push(tk);
    }
  };
}

test('0380: messages sent while an overwrite import brings a longer copy of the same session are all kept, in order, with their own turn ids and replies', async () => {
  const ref: { d?: Daemon } = {};
  const hooks = { fromHook: [] as Sent[], tickets: [] as InputTicket[] };
  const inject = injector(() => ref.d, hooks, 'swap');
  let armed = false;
  const B = (ref.d = await daemon({ transfer: { ...transferOpts, beforeSwap: (i) => void (armed && i === 0 && inject()) } }));
  const t = B.host.services.use('host.transfer')!;
  await t.applyImport((await t.stageImport({ file: e1 })).id, { mode: 'skip' });
  armed = true;
  assert.equal(logOf(B.homeDir).filter((e) => e.kind === 'user').length, 2, JSON.stringify(logOf(B.homeDir)));
  const { job, sent, ordered } = await importWhileChatting(B, hooks);
  const r = await job;
  assert.deepEqual([r.report!.parts.sessions?.added, r.report!.parts.sessions?.keptBoth], [1, 0], `S came in over the live one: ${JSON.stringify(r.report!.parts.sessions)}`);
  assert.ok(hooks.fromHook.length > 0, 'the hook ran');
  await checkAllKept(B, sent, ordered);
  while (B.agent.busy || B.agent.queued) await sleep(20);
  // What the store serves is what is on disk, and it goes on from there.
  const served = (await B.sessions.events(S)).filter((e) => e.kind === 'user').map((e) => e.turnId);
  assert.deepEqual(served, logOf(B.homeDir).filter((e) => e.kind === 'user').map((e) => e.turnId));
  const next = await post(B, { tag: '[m:after]', acked: false });
  assert.ok(!served.includes(next), `${next} is a turn id already in the log`);
});

test('0380: messages sent while an import is undone (a failure at its commit point) are all kept, with their own turn ids and replies', async () => {
  const ref: { d?: Daemon } = {};
  const hooks = { fromHook: [] as Sent[], tickets: [] as InputTicket[] };
  const inject = injector(() => ref.d, hooks, 'undo');
  let fail = false;
  const B = (ref.d = await daemon({
    transfer: {
      ...transferOpts,
      beforeSwap: (i) => void (fail && i === 0 && inject()),
      beforeCommit: () => {
        if (fail) throw new Error('disk I/O error (injected)');
      },
    },
  }));
  const t = B.host.services.use('host.transfer')!;
  await t.applyImport((await t.stageImport({ file: e1 })).id, { mode: 'skip' });
  fail = true;
  const { job, sent, ordered } = await importWhileChatting(B, hooks);
  await assert.rejects(job, /undone/);
  assert.ok(!existsSync(journalPath(B.homeDir)), 'the undo finished');
  // B's S is as it was (p3, p4 undone), plus everything said meanwhile.
  await checkAllKept(B, sent, ordered, ['[m:p1]', '[m:p2]']);
  assert.ok(!logOf(B.homeDir).some((e) => /\[m:p3\]/.test(e.text)), 'the import was undone');
});

test('0380: a daemon killed while an import swaps logs in loses no acknowledged message at its next start', async () => {
  const ref: { d?: Daemon } = {};
  const hooks = { fromHook: [] as Sent[], tickets: [] as InputTicket[] };
  const inject = injector(() => ref.d, hooks, 'kill');
  // The disk as a kill just before the commit point would leave it, with what was acknowledged then.
  let killedAt: { home: string; acked: Sent[] } | undefined;
  const snapshot = () => {
    const d = ref.d;
    if (!d || killedAt) return;
    const home = mkdtempSync(join(tmpdir(), 'ha-chatimp-killed-'));
    homes.push(home);
    for (const dir of ['sessions', '.transfer']) cpSync(join(d.homeDir, dir), join(home, dir), { recursive: true });
    // The journal names the live files by path: the copy's own.
    const j = journalPath(home);
    writeFileSync(j, readFileSync(j, 'utf8').split(d.homeDir).join(home));
    killedAt = { home, acked: [...sentNow, ...hooks.fromHook].filter((s) => s.acked).map((s) => ({ ...s })) };
  };
  const sentNow: Sent[] = [];
  let armed = false;
  const B = (ref.d = await daemon({ transfer: { ...transferOpts, beforeSwap: (i) => void (armed && i === 0 && inject()), beforeCommit: () => void (armed && snapshot()) } }));
  const t = B.host.services.use('host.transfer')!;
  await t.applyImport((await t.stageImport({ file: e1 })).id, { mode: 'skip' });
  armed = true;
  // Acknowledged while the import runs (one by one over HTTP, and from the swap hook).
  const staged = await t.stageImport({ file: e2 });
  const release = await B.agent.hold();
  let running = true;
  const job = t.applyImport(staged.id, { mode: 'overwrite' }).finally(() => (running = false));
  while (running && t.job(staged.id).progress.phase !== 'plan') await sleep(1);
  const burst: Promise<void>[] = [];
  for (let i = 0; running && i < 30; i++) {
    const s: Sent = { tag: `[m:during-${i}]`, acked: false };
    sentNow.push(s);
    burst.push(post(B, s).then(() => {}));
    await sleep(5);
  }
  const r = await job;
  assert.deepEqual([r.report!.parts.sessions?.added, r.report!.parts.sessions?.keptBoth], [1, 0], `S came in over the live one: ${JSON.stringify(r.report!.parts.sessions)}`);
  await Promise.all(burst);
  release();
  assert.ok(killedAt, 'the commit hook ran');
  // Messages were sent while the gate was closed, and none was acknowledged before the kill: they
  // wait, unacknowledged, until the import is through (a regression that acknowledged one while
  // the logs were being swapped would have to keep it below).
  assert.ok(sentNow.length > 0, 'messages were sent during the import');
  assert.deepEqual(killedAt.acked.map((s) => s.tag), [], 'nothing was acknowledged while the gate was closed');
  // The next start on the killed disk undoes the import (its journal) and keeps every message
  // that had been acknowledged when the daemon died.
  assert.ok(recoverInterruptedImport(killedAt.home) > 0, 'there was an import to undo');
  const texts = logOf(killedAt.home).filter((e) => e.kind === 'user');
  for (const s of killedAt.acked) assert.ok(texts.some((e) => e.text.endsWith(s.tag) && e.turnId === s.turnId), `${s.tag} (${s.turnId}) was acknowledged before the kill and is gone after it: ${JSON.stringify(texts)}`);
  assert.deepEqual(texts.slice(0, 2).map((e) => /\[m:p\d\]/.exec(e.text)?.[0]), ['[m:p1]', '[m:p2]'], 'the session is as it was before the import');
  const turnIds = texts.map((e) => e.turnId);
  assert.equal(new Set(turnIds).size, turnIds.length, `two messages share a turn id: ${turnIds.join(' ')}`);
  // The daemon that was not killed keeps all of them too.
  for (const [i, s] of hooks.fromHook.entries()) {
    await hooks.tickets[i].accepted;
    s.turnId = hooks.tickets[i].turnId;
    s.acked = true;
  }
  await checkAllKept(B, [...sentNow, ...hooks.fromHook], []);
});
