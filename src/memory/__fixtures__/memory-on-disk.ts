/**
 * A memory system over real files (SQLite tiers, session logs, text log) on a simulated clock, as
 * the memory-control and recall tests use it; and where a word still is in it.
 */
import { after } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigRegistry, coreConfigDefaults } from '../../config/index.js';
import { SessionStore, TextLog } from '../../sessions/index.js';
import type { ContextEvent, PluginLogger } from '../../spec/index.js';
import { MemorySystem } from '../memory-system.js';
import { ManualScheduler } from '../heartbeat/index.js';
import { eventDocument } from '../documents/index.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-control-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
let n = 0;

/**
 * Memory, session logs, text log and config over the data folder `home` (new or one opened before:
 * a "restart"); warnings and errors the memory system logs are collected. `close` closes all of it.
 */
export async function openMemoryAt(home: string, clock: { t: number } = { t: Date.UTC(2026, 0, 1) }) {
  const config = new ConfigRegistry({ dbPath: path.join(home, 'config.db'), env: {}, logger: { info() {}, warn() {}, error() {} } as never });
  config.open();
  config.register(coreConfigDefaults());
  const now = () => clock.t;
  const warnings: string[] = [];
  const log: PluginLogger = { debug() {}, info() {}, warn: (m) => void warnings.push(m), error: (m) => void warnings.push(m) };
  const sessions = new SessionStore({ dir: path.join(home, 'sessions'), now });
  await sessions.open();
  const textLog = new TextLog({ file: path.join(home, 'logs', 'text.jsonl'), now });
  await textLog.open();
  const mem = new MemorySystem({ homeDir: home, config, log, scheduler: new ManualScheduler(clock.t), now, sessions, textLog });
  await mem.open();
  const close = async () => {
    await mem.close();
    await textLog.close();
    await sessions.close();
    config.close();
  };
  return { mem, sessions, textLog, warnings, close };
}

/**
 * A chat over a new data folder under `root` (`openMemoryAt`, session `webui:1`): `say` records a
 * turn as the kernel does (logged, text-logged, in the context window); `sink` moves one out of the
 * window as ageing does (its message to the warm documents, its reply to the archive).
 */
export async function chatAt(dir: string) {
  const home = path.join(dir, `h${n++}`);
  fs.mkdirSync(home, { recursive: true });
  const clock = { t: Date.UTC(2026, 0, 1) };
  const a = await openMemoryAt(home, clock);
  const sid = 'webui:1';
  await a.sessions.create({ channel: 'webui', id: sid });
  const say = async (input: string, reply: string): Promise<{ turnId: string; user: ContextEvent; agent: ContextEvent }> => {
    clock.t += 60_000;
    const { turnId } = a.sessions.nextTurn(sid);
    await a.sessions.append(sid, { turnId, kind: 'user', text: input });
    await a.sessions.append(sid, { turnId, kind: 'assistant', text: reply });
    await a.textLog.append({ role: 'user', text: input, sessionId: sid, turnId });
    await a.textLog.append({ role: 'assistant', text: reply, sessionId: sid, turnId });
    const base = { source: 'webui', channel: 'webui', sessionId: sid, refs: [turnId] };
    const user = a.mem.context.append({ ...base, kind: 'user', input, response: '' });
    const agent = a.mem.context.append({ ...base, kind: 'agent', input: '', response: reply });
    return { turnId, user, agent };
  };
  const sink = (x: { user: ContextEvent; agent: ContextEvent }) => {
    a.mem.context.removeIds([x.user.id, x.agent.id]);
    a.mem.docs.archiveEvents([x.user]);
    a.mem.archive.putMany([eventDocument(x.agent, clock.t)]);
  };
  return { home, clock, ...a, say, sink };
}

/** A memory system over real files (SQLite tiers, session logs, text log) on a simulated clock. */
export async function setup() {
  const home = path.join(root, `h${n++}`);
  fs.mkdirSync(home, { recursive: true });
  const config = new ConfigRegistry({ dbPath: path.join(home, 'config.db'), env: {}, logger: { info() {}, warn() {}, error() {} } as never });
  config.open();
  config.register(coreConfigDefaults());
  const clock = { t: Date.UTC(2026, 0, 1) };
  const now = () => clock.t;
  const log: PluginLogger = { debug() {}, info() {}, warn() {}, error() {} };
  const sessions = new SessionStore({ dir: path.join(home, 'sessions'), now });
  await sessions.open();
  const textLog = new TextLog({ file: path.join(home, 'logs', 'text.jsonl'), now });
  await textLog.open();
  const scheduler = new ManualScheduler(clock.t);
  const mk = () => new MemorySystem({ homeDir: home, config, log, scheduler, now, sessions, textLog });
  const mem = mk();
  await mem.open();
  await sessions.create({ channel: 'webui', id: 'webui:1' });
  /** One turn as the kernel records it: logged, text-logged, and in the context window. */
  const turn = async (input: string, reply: string): Promise<{ turnId: string; user: ContextEvent; agent: ContextEvent }> => {
    clock.t += 60_000;
    const { turnId } = sessions.nextTurn('webui:1');
    await sessions.append('webui:1', { turnId, kind: 'user', text: input });
    await sessions.append('webui:1', { turnId, kind: 'assistant', text: reply });
    await textLog.append({ role: 'user', text: input, sessionId: 'webui:1', turnId });
    const base = { source: 'webui', channel: 'webui', sessionId: 'webui:1', refs: [turnId] };
    const user = mem.context.append({ ...base, kind: 'user', input, response: '' });
    const agent = mem.context.append({ ...base, kind: 'agent', input: '', response: reply });
    return { turnId, user, agent };
  };
  const done = async (m: MemorySystem) => {
    await m.close();
    await textLog.close();
    await sessions.close();
    config.close();
  };
  return { home, clock, mem, mk, sessions, textLog, turn, done };
}

/** Every place the secret could be: window, documents, archive, graph, recall. */
export async function traces(mem: MemorySystem, word: string): Promise<string[]> {
  const out: string[] = [];
  if (mem.context.events().some((e) => `${e.input} ${e.response}`.includes(word))) out.push('context');
  if (mem.docs.list().some((d) => d.content.includes(word))) out.push('documents');
  if (mem.archive.list({ limit: 10_000 }).some((d) => d.content.includes(word))) out.push('archive');
  if (mem.graph.matchingFacts([word]).length) out.push('graph');
  if ((await mem.recall.search(word, { k: 50 })).some((h) => h.text.includes(word))) out.push('recall');
  return out;
}

