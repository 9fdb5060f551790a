/**
 * A small in-process host for the webui's tests and the browser suite until the daemon
 * (`src/daemon`) can be started from tests: real plugins (webui, memory-manager …) run on a
 * PluginSDK with in-memory sessions, an event bus, a route table, settings validated by each
 * plugin's schemas, and a scripted agent that plays turns (streamed text, a tool call, an
 * injected memory block) the way the kernel publishes them. Every LLM answer (turn rounds and
 * `sdk.llm().chat`) is fetched over loopback HTTP from a fake LLM server (`ScriptedLlm`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  ConfigKeyInfo,
  ConfigValue,
  Disposer,
  HttpRoute,
  InputOptions,
  InputTicket,
  PluginDefinition,
  PluginSDK,
  SessionEvent,
  SessionInfo,
  SessionsAPI,
  StageContext,
  StageHandler,
  TurnOutcome,
} from '../../../spec/index.js';
import { ValidationError } from '../../../spec/index.js';
import { ScriptedLlm } from '../../../sdk/testing/scripted-llm.js';
import type { RecordedRequest } from '../../../sdk/testing/fake-llm/index.js';

/** One scripted turn: rounds of text (+ an optional tool call), or a failure code. */
export interface ScriptedTurn {
  rounds?: { text?: string; reasoning?: string; tool?: { name: string; args: Record<string, unknown>; result: string } }[];
  fail?: { code: string; message: string };
  /** ms between streamed chunks (default 15). */
  chunkMs?: number;
}

export interface MiniHost {
  home: string;
  /** Starts a plugin on this host. */
  start(def: PluginDefinition, settings?: Record<string, ConfigValue>): Promise<PluginSDK>;
  /** Queue scripted turns (each input takes the next; default: echo). */
  script(...turns: ScriptedTurn[]): void;
  emit(event: string, payload: unknown): void;
  inputs: InputOptions[];
  interrupts: { sessionId?: string; source: string; text: string }[];
  sessions: SessionsAPI;
  routes: (HttpRoute & { plugin: string })[];
  outputs: { channel: string; msg: unknown }[];
  /** When false, turns fail with NO_PROVIDER_CONFIGURED. */
  llmAvailable: boolean;
  /** The fake LLM server every LLM call of this host goes to (over HTTP). */
  llm: ScriptedLlm;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The per-install secret of a mini host (`host.auth`). */
export const MINI_TOKEN = 'mini-host-token-0123456789abcdef0123456789';

/**
 * fetch as the WebUI's own client does it: the Bearer token, and `application/json` for a string
 * body that names no type.
 */
export function authedFetch(url: string, init: RequestInit = {}, token = MINI_TOKEN): Promise<Response> {
  const headers = new Headers(init.headers);
  if (!headers.has('authorization')) headers.set('authorization', `Bearer ${token}`);
  if (typeof init.body === 'string' && !headers.has('content-type')) headers.set('content-type', 'application/json');
  return fetch(url, { ...init, headers });
}

function memorySessions(now: () => number): SessionsAPI & { nextTurn(id: string): string } {
  const infos = new Map<string, SessionInfo>();
  const events = new Map<string, SessionEvent[]>();
  const ensure = (id: string, channel = id.split(':')[0] ?? 'webui') => {
    let s = infos.get(id);
    if (!s) {
      s = { id, channel, title: '', createdAt: now(), updatedAt: now(), turns: 0, lastSeq: 0 };
      infos.set(id, s);
      events.set(id, []);
    }
    return s;
  };
  return {
    async list() {
      return [...infos.values()].map((s) => ({ ...s }));
    },
    async get(id) {
      const s = infos.get(id);
      return s && { ...s };
    },
    async events(id, opts = {}) {
      const list = (events.get(id) ?? []).filter((e) => e.seq > (opts.afterSeq ?? 0) && (opts.beforeSeq === undefined || e.seq < opts.beforeSeq));
      const n = opts.limit ?? list.length;
      return (opts.beforeSeq === undefined ? list.slice(0, n) : list.slice(Math.max(0, list.length - n))).map((e) => ({ ...e }));
    },
    async append(id, ev) {
      const s = ensure(id);
      const full: SessionEvent = { ...ev, seq: ++s.lastSeq, at: ev.at ?? now() };
      events.get(id)!.push(full);
      s.updatedAt = now();
      if (!s.title && ev.kind === 'user') s.title = ev.text.slice(0, 40);
      return full;
    },
    async create(opts) {
      const id = opts.id ?? `${opts.channel}:${Math.random().toString(36).slice(2, 10)}`;
      const s = ensure(id, opts.channel);
      if (opts.title) s.title = opts.title;
      return { ...s };
    },
    async rename(id, title) {
      const s = infos.get(id);
      if (!s) throw new ValidationError(`no session ${id}`);
      s.title = title;
    },
    nextTurn(id) {
      const s = ensure(id);
      s.turns += 1;
      return `${id}#${s.turns}`;
    },
  };
}

/** Creates a host; call `start(plugin)` for each plugin. */
export function createMiniHost(opts: { home?: string } = {}): MiniHost {
  const home = opts.home ?? mkdtempSync(join(tmpdir(), 'ha-webui-host-'));
  const ownsHome = !opts.home;
  const now = () => Date.now();
  const sessions = memorySessions(now);
  const anyListeners = new Set<(event: string, payload: unknown) => void>();
  const listeners = new Map<string, Set<(p: unknown) => void>>();
  const routes: (HttpRoute & { plugin: string })[] = [];
  const routeListeners = new Set<() => void>();
  const services = new Map<string, unknown>();
  const stages = new Map<string, { plugin: string; fn: StageHandler }[]>();
  const endpoints: Record<string, string> = {};
  const stops: (() => Promise<void>)[] = [];
  const scripts: ScriptedTurn[] = [];
  const llm = new ScriptedLlm();
  /** Asks the fake LLM server (non-streaming OpenAI chat completions) for the next answer. */
  const askLlm = async (model: 'mini-turn' | 'mini-util', messages: { role: string; content: string }[]) => {
    const server = await llm.start();
    server.setDefault(defaultAnswer);
    const res = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer test' }, body: JSON.stringify({ model, messages, stream: false }) });
    if (!res.ok) throw new Error(`fake LLM answered ${res.status}: ${await res.text()}`);
    const j = (await res.json()) as { choices: { message: { content?: string | null; reasoning_content?: string; tool_calls?: { id: string; function: { name: string; arguments: string } }[] } }[] };
    const m = j.choices[0]?.message ?? {};
    return { text: m.content ?? '', reasoning: m.reasoning_content ?? '', toolCalls: (m.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })) };
  };
  const lastUser = (req: RecordedRequest): string => ((req.body?.messages ?? []) as { role: string; content: string }[]).filter((m) => m.role === 'user').at(-1)?.content ?? '';
  const defaultAnswer = (req: RecordedRequest) => {
    if (req.body?.model === 'mini-turn') return { text: `echo: ${lastUser(req)}` };
    const all = JSON.stringify(req.body?.messages ?? []).slice(0, 20000);
    return { text: /六要素|JSON|json/.test(all) ? JSON.stringify({ user: '用户请求', thinking: '分析', processing: '处理', result: '完成', groups: [[1]] }) : `summary of ${lastUser(req).slice(0, 40)}` };
  };
  const inputs: InputOptions[] = [];
  const interrupts: MiniHost['interrupts'] = [];
  const outputs: MiniHost['outputs'] = [];
  const queue: { input: InputOptions; turnId: string; resolve: (o: TurnOutcome) => void }[] = [];
  let current: { turnId: string; sessionId: string; pending: string[] } | undefined;
  let running = false;
  const startedAt = now();

  const emit = (event: string, payload: unknown) => {
    for (const l of listeners.get(event) ?? []) l(payload);
    for (const l of anyListeners) l(event, payload);
  };
  const routesChanged = () => routeListeners.forEach((l) => l());

  services.set('host.agent', {
    status: () => ({ busy: !!current, current: current && { turnId: current.turnId, sessionId: current.sessionId }, queued: queue.length, startedAt, version: '0.1.0-test', homeDir: home, pid: process.pid }),
    onAny(fn: (e: string, p: unknown) => void) {
      anyListeners.add(fn);
      return () => void anyListeners.delete(fn);
    },
    endpoints: () => ({ ...endpoints }),
    setEndpoint(name: string, url: string | undefined) {
      if (url) endpoints[name] = url;
      else delete endpoints[name];
    },
  });
  services.set('host.auth', { token: () => MINI_TOKEN, signInToken: () => MINI_TOKEN });
  services.set('host.routes', {
    list: () => [...routes],
    onChange(fn: () => void) {
      routeListeners.add(fn);
      return () => void routeListeners.delete(fn);
    },
  });

  const host: MiniHost = {
    home,
    inputs,
    interrupts,
    sessions,
    routes,
    outputs,
    llmAvailable: true,
    llm,
    emit,
    script(...turns) {
      for (const t of turns) {
        scripts.push(t);
        for (const r of t.rounds ?? []) llm.enqueue({ text: r.text ?? '', reasoning: r.reasoning, toolCalls: r.tool ? [{ name: r.tool.name, arguments: r.tool.args }] : undefined });
      }
    },
    async start(def, initial = {}) {
      const values = new Map<string, ConfigValue>();
      for (const [k, d] of Object.entries(def.settings ?? {})) values.set(k, initial[k] ?? d.default);
      const changeListeners = new Set<(k: string, v: ConfigValue) => void>();
      const disposers: Disposer[] = [];
      const own = (d: Disposer): Disposer => {
        let done = false;
        const once = () => {
          if (done) return;
          done = true;
          d();
        };
        disposers.push(once);
        return once;
      };
      const log = (level: string) => (msg: string) => {
        if (process.env.MINI_HOST_LOG) console.error(`[${def.name}] ${level}: ${msg}`);
      };
      const sdk: PluginSDK = {
        plugin: def.name,
        log: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
        dataDir: join(home, 'plugins-data', def.name),
        homeDir: home,
        registerTool: () => own(() => {}),
        registerStage(stage, fn) {
          const list = stages.get(stage) ?? [];
          const entry = { plugin: def.name, fn };
          list.push(entry);
          stages.set(stage, list);
          return own(() => list.splice(list.indexOf(entry) >>> 0, 1));
        },
        subscribe(event, fn) {
          const set = listeners.get(event) ?? new Set();
          set.add(fn as (p: unknown) => void);
          listeners.set(event, set);
          return own(() => set.delete(fn as (p: unknown) => void));
        },
        publish: (event, payload) => emit(event, payload),
        registerOutputChannel(name, _caps, _d, handler) {
          services.set(`channel:${name}`, handler);
          return own(() => services.delete(`channel:${name}`));
        },
        registerPromptSlot: () => own(() => {}),
        registerContextFilter: () => own(() => {}),
        registerRoute(r) {
          const entry = { ...r, plugin: def.name };
          routes.push(entry);
          routesChanged();
          return own(() => {
            const i = routes.indexOf(entry);
            if (i >= 0) routes.splice(i, 1);
            routesChanged();
          });
        },
        provide(name, impl) {
          services.set(name, impl);
          return own(() => services.delete(name));
        },
        use: (name) => services.get(name) as never,
        onDispose: (fn) => own(() => void fn()),
        injectInput: (input) => enqueue(input),
        injectInterrupt(i) {
          interrupts.push(i);
          if (current) {
            current.pending.push(i.text);
            emit('interrupt', { ...i, delivery: 'abort+queue', at: now() });
          } else {
            emit('interrupt', { ...i, delivery: 'new-turn', at: now() });
            enqueue({ sessionId: i.sessionId ?? `${i.source}:default`, source: i.source, text: i.text });
          }
        },
        memory: () => {
          throw new Error('mini host: memory not available');
        },
        knowledge: () => {
          throw new Error('mini host: knowledge not available');
        },
        social: () => {
          throw new Error('mini host: social not available');
        },
        sessions: () => sessions,
        llm: () => ({
          available: () => host.llmAvailable,
          chat: async (req) => {
            const a = await askLlm('mini-util', req.messages.map((m) => ({ role: m.role, content: typeof m.content === 'string' ? m.content : JSON.stringify(m.content) })));
            return { text: a.text, reasoning: a.reasoning, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, finishReason: 'stop', provider: 'fake' };
          },
        }),
        settings: () => ({
          get: <T extends ConfigValue>(k: string) => values.get(k) as T,
          async set(k, v) {
            const d = def.settings?.[k];
            if (!d) throw new ValidationError(`unknown setting ${k}`);
            const r = d.schema.safeParse(v);
            if (!r.success) throw new ValidationError(`invalid value for ${k}: ${r.error.issues[0]?.message}`);
            values.set(k, r.data as ConfigValue);
            changeListeners.forEach((l) => l(k, r.data as ConfigValue));
          },
          list: (): ConfigKeyInfo[] =>
            [...values].map(([key, value]) => ({ key, value, default: def.settings![key].default, description: def.settings![key].description, secret: !!def.settings![key].secret, schema: def.settings![key].jsonSchema ?? {}, origin: 'stored' })),
          onChange(l) {
            changeListeners.add(l);
            return () => void changeListeners.delete(l);
          },
        }),
      };
      await def.start(sdk);
      stops.unshift(async () => {
        await def.stop?.();
        for (const d of disposers.reverse()) d();
      });
      return sdk;
    },
    async stop() {
      for (const s of stops.splice(0)) await s().catch(() => undefined);
      await llm.close();
      if (ownsHome) rmSync(home, { recursive: true, force: true });
    },
  };

  function enqueue(input: InputOptions): InputTicket {
    inputs.push(input);
    const turnId = sessions.nextTurn(input.sessionId);
    let resolve!: (o: TurnOutcome) => void;
    const done = new Promise<TurnOutcome>((r) => (resolve = r));
    queue.push({ input, turnId, resolve });
    const accepted = sessions.append(input.sessionId, { turnId, kind: 'user', text: input.text, data: { source: input.source, attachments: input.attachments?.map((a) => ({ name: a.name, mimeType: a.mimeType, bytes: Math.round((a.data.length * 3) / 4) })) } }).then(() => undefined);
    accepted.catch(() => {});
    void pump();
    return { turnId, sessionId: input.sessionId, done, accepted };
  }

  async function pump(): Promise<void> {
    if (running) return;
    running = true;
    try {
      for (let q = queue.shift(); q; q = queue.shift()) q.resolve(await runTurn(q.input, q.turnId));
    } finally {
      running = false;
    }
  }

  async function runTurn(input: InputOptions, turnId: string): Promise<TurnOutcome> {
    const sessionId = input.sessionId;
    current = { turnId, sessionId, pending: [] };
    const log = (kind: SessionEvent['kind'], text: string, data?: Record<string, unknown>) => sessions.append(sessionId, { turnId, kind, text, data });
    emit('turn_start', { turnId, sessionId, input: { ...input, channel: input.channel ?? input.source, trigger: 'user' }, at: now() });
    const script = scripts.shift() ?? { rounds: [{ text: `echo: ${input.text}` }] };
    const ctx: StageContext = { stage: 'pre_action', input: { ...input, channel: input.channel ?? input.source, trigger: 'user' }, turnId, round: 0, messages: [{ role: 'user', content: input.text }], state: {} };
    for (const s of stages.get('pre_action') ?? []) await Promise.resolve(s.fn(ctx)).catch(() => undefined);
    const injected = ctx.messages.slice(1).map((m) => ({ source: m.source ?? 'plugin', text: m.content }));
    for (const i of injected) {
      emit('stage_event', { turnId, sessionId, stage: 'pre_action', note: `injected user message from ${i.source} (${i.text.length} chars)` });
    }
    let finalText = '';
    let rounds = 0;
    let error: { code: string; message: string } | undefined;
    if (!host.llmAvailable || script.fail) {
      error = script.fail ?? { code: 'NO_PROVIDER_CONFIGURED', message: 'No LLM source is configured. Set OPENAI_API_KEY, DEEPSEEK_API_KEY or ANTHROPIC_API_KEY, or add a key in Settings.' };
      finalText = error.code === 'NO_PROVIDER_CONFIGURED' ? error.message : `Sorry, this turn failed: ${error.message}`;
      await log('assistant', finalText);
      await log('error', error.message, { code: error.code });
    } else {
      // Each round's answer comes over HTTP from the fake LLM server; the scripted turn only adds
      // the tool results and the streaming pace.
      const toolResults = (script.rounds ?? []).filter((r) => r.tool).map((r) => r.tool!.result);
      const messages = [{ role: 'user', content: input.text }];
      for (let more = true; more && rounds < 8; ) {
        const round = rounds;
        const a = await askLlm('mini-turn', messages);
        let text = a.text;
        if (current.pending.length) text = `(${current.pending.splice(0).map((p) => `[打断消息] ${p}`).join(' ')}) ${text}`;
        if (a.reasoning) emit('turn_delta', { turnId, sessionId, round, kind: 'reasoning', text: a.reasoning });
        for (const chunk of text.match(/[\s\S]{1,6}/g) ?? []) {
          emit('turn_delta', { turnId, sessionId, round, kind: 'text', text: chunk });
          await sleep(script.chunkMs ?? 15);
        }
        rounds++;
        const calls = a.toolCalls.slice(0, 1);
        emit('agent_llm_chain', { turnId, sessionId, round: rounds, provider: 'fake', model: 'fake-1', text, reasoning: a.reasoning, toolCalls: calls, usage: { inputTokens: 10, outputTokens: 5 }, finishReason: calls.length ? 'tool-calls' : 'stop', latencyMs: 5, consolidation: false, injected: rounds === 1 ? injected : [], at: now() });
        if (a.reasoning) await log('reasoning', a.reasoning, { round: rounds });
        messages.push({ role: 'assistant', content: text });
        more = calls.length > 0;
        for (const call of calls) {
          const result = toolResults.shift() ?? '{}';
          await log('tool_call', call.name, { id: call.id, arguments: call.arguments });
          emit('tool_start', { turnId, sessionId, round: rounds, call });
          await sleep(script.chunkMs ?? 15);
          emit('tool_end', { turnId, sessionId, round: rounds, call, result, durationMs: 3 });
          await log('tool_result', result, { id: call.id, name: call.name });
          messages.push({ role: 'user', content: `tool ${call.name} → ${result}` });
        }
        finalText = text;
      }
      await log('assistant', finalText);
    }
    current = undefined;
    const status = error ? 'error' : 'ok';
    emit('turn_end', { turnId, sessionId, text: finalText, status, error, rounds, at: now() });
    return { turnId, sessionId, text: finalText, status, error, rounds };
  }

  return host;
}
