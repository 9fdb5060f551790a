/**
 * A small in-memory fake of the PluginSDK for the memory-manager tests (until the shared
 * `homeagent/sdk/testing` harness exists): records registrations, keeps sessions in memory,
 * validates settings with the plugin's schemas and sends `llm().chat` to a fake LLM server over
 * real HTTP (OpenAI chat format).
 */
import type {
  ConfigKeyDef,
  ConfigValue,
  Disposer,
  HttpRoute,
  LlmAPI,
  PluginSDK,
  SessionEvent,
  SessionInfo,
  SessionsAPI,
  SettingsAPI,
  StageContext,
  StageHandler,
  StageName,
  ToolDef,
} from '../../../sdk/index.js';
import { NotFoundError, ValidationError } from '../../../sdk/index.js';
import type { ContextEvent } from '../../../spec/index.js';

/** The API response envelope; `value` is loosely typed for test assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ApiEnvelope = { ok: boolean; value: any };

export interface FakeSdkOptions {
  homeDir: string;
  settingsDefs: Record<string, ConfigKeyDef>;
  /** Stored values (keys without prefix). */
  settings?: Record<string, ConfigValue>;
  /**
   * The LLM `sdk.llm()` returns: in tests a real provider manager in front of the fake LLM server
   * (`test/fixtures/provider-llm.ts`); none = no provider configured.
   */
  llm?: LlmAPI;
  /** Host services `sdk.use(name)` answers (e.g. `host.confirm`). */
  services?: Record<string, unknown>;
}

/** In-memory sessions with per-session seqs, like the real session log. */
export class FakeSessions implements SessionsAPI {
  infos = new Map<string, SessionInfo>();
  log = new Map<string, SessionEvent[]>();
  private turnCounter = new Map<string, number>();

  async list(): Promise<SessionInfo[]> {
    return [...this.infos.values()];
  }
  async get(id: string): Promise<SessionInfo | undefined> {
    return this.infos.get(id);
  }
  async events(id: string, opts: { afterSeq?: number; limit?: number } = {}): Promise<SessionEvent[]> {
    const all = (this.log.get(id) ?? []).filter((e) => e.seq > (opts.afterSeq ?? 0));
    return structuredClone(opts.limit ? all.slice(0, opts.limit) : all);
  }
  async append(id: string, event: Omit<SessionEvent, 'seq' | 'at'> & { at?: number }): Promise<SessionEvent> {
    const info = this.infos.get(id);
    if (!info) throw new NotFoundError('session', id);
    const list = this.log.get(id) ?? [];
    const e: SessionEvent = { ...structuredClone(event), seq: info.lastSeq + 1, at: event.at ?? Date.now() };
    list.push(e);
    this.log.set(id, list);
    info.lastSeq = e.seq;
    info.updatedAt = e.at;
    return structuredClone(e);
  }
  async create(opts: { channel: string; title?: string; id?: string }): Promise<SessionInfo> {
    const id = opts.id ?? `${opts.channel}:${this.infos.size + 1}`;
    const info: SessionInfo = { id, channel: opts.channel, title: opts.title ?? '', createdAt: Date.now(), updatedAt: Date.now(), turns: 0, lastSeq: 0 };
    this.infos.set(id, info);
    return info;
  }
  async rename(id: string, title: string): Promise<void> {
    const info = this.infos.get(id);
    if (!info) throw new NotFoundError('session', id);
    info.title = title;
  }
  /** A new turn id `<sessionId>#<n>`. */
  nextTurnId(sessionId: string): string {
    const n = (this.turnCounter.get(sessionId) ?? 0) + 1;
    this.turnCounter.set(sessionId, n);
    const info = this.infos.get(sessionId);
    if (info) info.turns = n;
    return `${sessionId}#${n}`;
  }
  /** Appends a whole turn (user + tool + assistant events) and returns its id. */
  async addTurn(sessionId: string, user: string, assistant: string, tool?: string): Promise<string> {
    const turnId = this.nextTurnId(sessionId);
    await this.append(sessionId, { turnId, kind: 'user', text: user });
    if (tool) {
      await this.append(sessionId, { turnId, kind: 'tool_call', text: tool });
      await this.append(sessionId, { turnId, kind: 'tool_result', text: `${tool} ok` });
    }
    await this.append(sessionId, { turnId, kind: 'assistant', text: assistant });
    return turnId;
  }
}

class FakeSettings implements SettingsAPI {
  values = new Map<string, ConfigValue>();
  listeners = new Set<(key: string, value: ConfigValue) => void>();
  /** Keys whose `set` fails (to test rollback). */
  failing = new Set<string>();
  constructor(private defs: Record<string, ConfigKeyDef>) {}
  get<T extends ConfigValue = ConfigValue>(key: string): T {
    const def = this.defs[key];
    if (!def) throw new NotFoundError('setting', key);
    return (this.values.has(key) ? this.values.get(key) : def.default) as T;
  }
  async set(key: string, value: ConfigValue): Promise<void> {
    const def = this.defs[key];
    if (!def) throw new NotFoundError('setting', key);
    if (this.failing.has(key)) throw new Error(`disk full while writing ${key}`);
    const r = def.schema.safeParse(value);
    if (!r.success) throw new ValidationError(`invalid value for ${key}`, { key });
    this.values.set(key, r.data as ConfigValue);
    for (const l of this.listeners) l(key, r.data as ConfigValue);
  }
  list() {
    return Object.entries(this.defs).map(([key, d]) => ({ key, value: this.get(key), default: d.default, description: d.description, secret: false, schema: d.jsonSchema ?? {}, origin: (this.values.has(key) ? 'stored' : 'default') as 'stored' | 'default' }));
  }
  onChange(listener: (key: string, value: ConfigValue) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

const notInFake = (what: string) => () => {
  throw new Error(`${what} is not implemented in the fake SDK`);
};

/** The fake SDK plus helpers to drive it. */
export class FakeSdk {
  readonly tools = new Map<string, ToolDef>();
  readonly stages: { stage: StageName; handler: StageHandler }[] = [];
  readonly routes: HttpRoute[] = [];
  readonly filters: ((e: ContextEvent) => boolean)[] = [];
  readonly published: { event: string; payload: unknown }[] = [];
  readonly logs: { level: string; msg: string }[] = [];
  readonly sessions = new FakeSessions();
  readonly settings: FakeSettings;
  readonly sdk: PluginSDK;
  /** Settable mid-test: configuring a provider after the plugin started. */
  llmApi: LlmAPI | undefined;

  constructor(opts: FakeSdkOptions) {
    this.settings = new FakeSettings(opts.settingsDefs);
    for (const [k, v] of Object.entries(opts.settings ?? {})) this.settings.values.set(k, v);
    this.llmApi = opts.llm;
    const reg = <T>(list: T[], item: T): Disposer => {
      list.push(item);
      return () => {
        const i = list.indexOf(item);
        if (i >= 0) list.splice(i, 1);
      };
    };
    const log = (level: string) => (msg: string) => void this.logs.push({ level, msg });
    const llm: LlmAPI = {
      available: () => this.llmApi?.available() ?? false,
      chat: (req, o) => {
        if (!this.llmApi) throw new Error('no provider');
        return this.llmApi.chat(req, o);
      },
    };
    this.sdk = {
      plugin: 'memory-manager',
      log: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
      dataDir: `${opts.homeDir}/plugins/memory-manager`,
      homeDir: opts.homeDir,
      registerTool: (def) => {
        if (this.tools.has(def.name)) throw new Error(`duplicate tool ${def.name}`);
        this.tools.set(def.name, def);
        return () => void this.tools.delete(def.name);
      },
      registerStage: (stage, handler) => reg(this.stages, { stage, handler }),
      subscribe: () => () => undefined,
      publish: (event, payload) => void this.published.push({ event: String(event), payload }),
      registerOutputChannel: notInFake('registerOutputChannel'),
      registerPromptSlot: notInFake('registerPromptSlot'),
      registerContextFilter: (f) => reg(this.filters, f),
      registerRoute: (r) => reg(this.routes, r),
      provide: notInFake('provide'),
      use: ((name: string) => opts.services?.[name]) as never,
      onDispose: () => () => undefined,
      injectInput: notInFake('injectInput'),
      injectInterrupt: notInFake('injectInterrupt'),
      memory: notInFake('memory'),
      knowledge: notInFake('knowledge'),
      settings: () => this.settings,
      llm: () => llm,
      social: notInFake('social'),
      sessions: () => this.sessions,
    };
  }

  /**
   * Runs a `pre_action` turn like the kernel: appends the user event to the log, runs every
   * handler concurrently on one StageContext, and returns it.
   */
  async runPreAction(opts: { sessionId: string; text: string; trigger?: 'user' | 'system'; turnId?: string; round?: number; messages?: StageContext['messages']; speaker?: StageContext['input']['speaker']; conversation?: StageContext['input']['conversation'] }): Promise<StageContext> {
    if (!this.sessions.infos.has(opts.sessionId)) await this.sessions.create({ channel: 'webui', id: opts.sessionId });
    const turnId = opts.turnId ?? this.sessions.nextTurnId(opts.sessionId);
    if (!opts.turnId) await this.sessions.append(opts.sessionId, { turnId, kind: 'user', text: opts.text });
    const ctx: StageContext = {
      stage: 'pre_action',
      input: { sessionId: opts.sessionId, source: 'webui', channel: 'webui', text: opts.text, trigger: opts.trigger ?? 'user', ...(opts.speaker ? { speaker: opts.speaker } : {}), ...(opts.conversation ? { conversation: opts.conversation } : {}) },
      turnId,
      round: opts.round ?? 0,
      messages: opts.messages ?? [{ role: 'user', content: opts.text }],
      state: {},
    };
    await Promise.all(this.stages.filter((s) => s.stage === 'pre_action').map((s) => s.handler(ctx)));
    return ctx;
  }

  /** Calls the registered route like the webui server would. */
  async request(method: 'GET' | 'POST', body?: unknown, init: { raw?: string; headers?: Record<string, string> } = {}): Promise<{ status: number; json: ApiEnvelope }> {
    const route = this.routes.find((r) => r.method === method && r.path === '/api/memory-manager');
    if (!route) throw new Error(`no ${method} route`);
    const req = new Request('http://127.0.0.1/api/memory-manager', {
      method,
      headers: { 'content-type': 'application/json', ...(init.headers ?? {}) },
      body: method === 'POST' ? (init.raw ?? JSON.stringify(body)) : undefined,
    });
    const res = await route.handler(req, {});
    return { status: res.status, json: (await res.json()) as ApiEnvelope };
  }

  /** Shorthand for `POST {op, sessionId, args}`. */
  async op(op: string, args: Record<string, unknown> = {}, sessionId?: string) {
    return (await this.request('POST', { op, args, sessionId })).json;
  }

  /** Calls a registered tool. */
  async callTool(name: string, args: Record<string, unknown>): Promise<unknown> {
    const t = this.tools.get(name);
    if (!t) throw new Error(`no tool ${name}`);
    return t.handler(args, { sessionId: 's', turnId: 's#1', callId: 'c1', signal: new AbortController().signal });
  }

  /** True when every registered context filter keeps the event. */
  visible(e: ContextEvent): boolean {
    return this.filters.every((f) => f(e));
  }
}
