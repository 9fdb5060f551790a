/**
 * A minimal in-memory PluginSDK for the built-ins' unit tests: tools, routes, services,
 * settings (validated with the plugin's own schemas, with change events) and recorded
 * injected inputs/interrupts. Integration tests use the real host (`homeagent/sdk/testing`).
 */
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigValue, Disposer, HttpRoute, InputOptions, InputTicket, PluginDefinition, PluginSDK, ServiceMap, ToolDef } from '../../spec/index.js';
import { ValidationError } from '../../spec/index.js';
import { callRoute, type RouteReply } from './call-route.js';

export interface FakeHost {
  sdk: PluginSDK;
  home: string;
  tools: Map<string, ToolDef>;
  routes: HttpRoute[];
  inputs: InputOptions[];
  interrupts: { sessionId?: string; source: string; text: string }[];
  logs: { level: string; msg: string; data?: Record<string, unknown> }[];
  services: Map<string, unknown>;
  callTool(name: string, args?: Record<string, unknown>, sessionId?: string): Promise<string>;
  request(method: string, path: string, body?: BodyInit | null, headers?: Record<string, string>): Promise<RouteReply>;
  setSetting(key: string, value: ConfigValue): Promise<void>;
  /** Runs stop() and every disposer in reverse. */
  stop(): Promise<void>;
  /** stop() + removes the temp home. */
  cleanup(): Promise<void>;
}

export interface FakeHostOptions {
  home?: string;
  settings?: Record<string, ConfigValue>;
  services?: Partial<ServiceMap>;
}

/** Starts `def` on a fake SDK in a temp home. */
export async function startFake(def: PluginDefinition, opts: FakeHostOptions = {}): Promise<FakeHost> {
  const home = opts.home ?? mkdtempSync(join(tmpdir(), 'ha-builtin-'));
  const ownsHome = !opts.home;
  const dataDir = join(home, 'plugins-data', def.name);
  mkdirSync(dataDir, { recursive: true });
  const tools = new Map<string, ToolDef>();
  const routes: HttpRoute[] = [];
  const inputs: InputOptions[] = [];
  const interrupts: FakeHost['interrupts'] = [];
  const logs: FakeHost['logs'] = [];
  const services = new Map<string, unknown>(Object.entries(opts.services ?? {}));
  const disposers: (() => void | Promise<void>)[] = [];
  const values = new Map<string, ConfigValue>();
  for (const [k, d] of Object.entries(def.settings ?? {})) {
    // Same key rule as the real config registry: dotted lower-case segments.
    if (!k.split('.').every((seg) => /^[a-z0-9][a-z0-9_-]*$/.test(seg))) throw new Error(`invalid setting key ${k}`);
    values.set(k, opts.settings?.[k] ?? d.default);
  }
  const listeners = new Set<(key: string, value: ConfigValue) => void>();
  let turn = 0;
  const own = (d: Disposer | (() => void | Promise<void>)): Disposer => {
    disposers.push(d);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      void d();
    };
  };
  const log = (level: string) => (msg: string, data?: Record<string, unknown>) => void logs.push({ level, msg, data });
  const setSetting = async (key: string, value: ConfigValue): Promise<void> => {
    const d = def.settings?.[key];
    if (!d) throw new ValidationError(`unknown setting ${key}`, { key });
    const r = d.schema.safeParse(value);
    if (!r.success) throw new ValidationError(`invalid value for ${key}: ${r.error.issues[0]?.message}`, { key });
    values.set(key, r.data as ConfigValue);
    for (const l of listeners) l(key, r.data as ConfigValue);
  };
  const unsupported = (what: string) => () => {
    throw new Error(`fake sdk: ${what} not supported`);
  };
  const sdk: PluginSDK = {
    plugin: def.name,
    log: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
    dataDir,
    homeDir: home,
    registerTool(t) {
      if (tools.has(t.name)) throw new Error(`duplicate tool ${t.name}`);
      tools.set(t.name, t);
      return own(() => void tools.delete(t.name));
    },
    registerStage: () => () => {},
    subscribe: () => () => {},
    publish: () => {},
    registerOutputChannel: () => () => {},
    registerPromptSlot: () => () => {},
    registerContextFilter: () => () => {},
    registerRoute(r) {
      routes.push(r);
      return own(() => {
        const i = routes.indexOf(r);
        if (i >= 0) routes.splice(i, 1);
      });
    },
    provide(name, impl) {
      services.set(name, impl);
      return own(() => void services.delete(name));
    },
    use(name) {
      return services.get(name) as never;
    },
    onDispose(fn) {
      return own(fn);
    },
    injectInput(input): InputTicket {
      inputs.push(input);
      const turnId = `${input.sessionId}#${++turn}`;
      return { turnId, sessionId: input.sessionId, done: Promise.resolve({ turnId, sessionId: input.sessionId, text: '', status: 'ok', rounds: 0 }), accepted: Promise.resolve() };
    },
    injectInterrupt(i) {
      interrupts.push(i);
    },
    memory: unsupported('memory') as never,
    knowledge: unsupported('knowledge') as never,
    social: unsupported('social') as never,
    sessions: unsupported('sessions') as never,
    llm: unsupported('llm') as never,
    settings: () => ({
      get: <T extends ConfigValue>(key: string) => values.get(key) as T,
      set: setSetting,
      list: () => [...values].map(([key, value]) => ({ key, value, default: def.settings![key].default, description: def.settings![key].description, secret: false, schema: {}, origin: 'stored' as const })),
      onChange(l) {
        listeners.add(l);
        return () => void listeners.delete(l);
      },
    }),
  };
  await def.start(sdk);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await def.stop?.();
    for (const d of disposers.reverse()) await d();
  };
  return {
    sdk,
    home,
    tools,
    routes,
    inputs,
    interrupts,
    logs,
    services,
    async callTool(name, args = {}, sessionId = 'test:1') {
      const t = tools.get(name);
      if (!t) throw new Error(`no tool ${name}`);
      const out = await t.handler(args, { sessionId, turnId: `${sessionId}#0`, callId: 'c1', signal: new AbortController().signal });
      return typeof out === 'string' ? out : JSON.stringify(out);
    },
    request: (method, path, body, headers) => callRoute(routes, method, path, body, headers),
    setSetting,
    stop,
    async cleanup() {
      await stop();
      if (ownsHome) rmSync(home, { recursive: true, force: true });
    },
  };
}
