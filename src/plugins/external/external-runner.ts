/**
 * The child-process side of an external plugin (P-3). Forked by {@link ExternalPlugin}; imports
 * the plugin's entry (an ES module default-exporting `definePlugin({...})` or a plain object)
 * and gives it the RESTRICTED SDK, whose every call travels as a JSON message over the IPC
 * channel. It has no other way into the daemon.
 */
import { mkdirSync } from 'node:fs';
import { register as registerLoaderHooks } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { ConfigKeyInfo, ConfigValue, RestrictedPluginSDK, StageContext, ToolDef, ToolInvocation, TurnOutcome } from '../../spec/index.js';
import { sdkHooksSource } from './sdk-shim.js';
import { RemoteError, STAGE_MUTABLE, toRpcError, type ChildMessage, type ParentMessage } from './rpc-protocol.js';

type Handler = (payload: unknown) => unknown;

const handlers = new Map<string, { target: string; fn: Handler }>();
const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
const tickets = new Map<string, (o: TurnOutcome) => void>();
const earlyOutcomes = new Map<string, TurnOutcome>();
const registrations: Promise<unknown>[] = [];
const settingsListeners = new Set<(key: string, value: ConfigValue) => void>();
let settings: ConfigKeyInfo[] = [];
let nextId = 1;
let nextKey = 1;
let plugin: { name?: string; start: (sdk: RestrictedPluginSDK) => unknown; stop?: () => unknown } | undefined;

function send(msg: ChildMessage): void {
  process.send?.(msg);
}

function request(op: string, args: Record<string, unknown> = {}): Promise<unknown> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    send({ t: 'req', id, op, args });
  });
}

/** A registration: sent at once, awaited before `started` so that a refused one fails the start. */
function register(op: string, key: string, target: string, fn: Handler, args: Record<string, unknown>): () => void {
  handlers.set(key, { target, fn });
  const p = request(op, { key, ...args });
  registrations.push(p);
  p.catch(() => handlers.delete(key));
  let done = false;
  return () => {
    if (done) return;
    done = true;
    handlers.delete(key);
    request('dispose', { key }).catch(() => {});
  };
}

function log(level: 'debug' | 'info' | 'warn' | 'error') {
  return (msg: string, data?: Record<string, unknown>) => send({ t: 'log', level, msg: String(msg), data });
}

function buildSdk(init: Extract<ParentMessage, { t: 'init' }>): RestrictedPluginSDK {
  const disposers: (() => void | Promise<void>)[] = [];
  const call = (op: string) => (args: Record<string, unknown>) => request(op, args);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const sdk: any = {
    plugin: init.name,
    homeDir: init.homeDir,
    get dataDir() {
      mkdirSync(init.dataDir, { recursive: true });
      return init.dataDir;
    },
    log: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
    registerTool(def: ToolDef) {
      if (!def || typeof def.handler !== 'function') throw new TypeError('registerTool: a tool needs a handler');
      return register('registerTool', `tool:${def.name}`, 'tool', (p) => {
        const { args, call: c } = p as { args: Record<string, unknown>; call: Omit<ToolInvocation, 'signal'> };
        return def.handler(args ?? {}, { ...c, signal: new AbortController().signal });
      }, { name: def.name, description: def.description, parameters: def.parameters, noMemory: def.noMemory === true, ...(def.audience === 'anyone' ? { audience: 'anyone' } : {}) });
    },
    registerStage(stage: string, handler: (ctx: StageContext) => unknown, scope?: string) {
      return register('registerStage', `stage:${nextKey++}`, 'stage', async (p) => {
        const ctx = p as StageContext;
        await handler(ctx);
        return Object.fromEntries(STAGE_MUTABLE.map((k) => [k, (ctx as unknown as Record<string, unknown>)[k]]));
      }, { stage, scope: scope ?? 'global' });
    },
    subscribe(event: string, fn: (payload: unknown) => void) {
      return register('subscribe', `event:${nextKey++}`, 'event', fn, { event });
    },
    registerOutputChannel(name: string, caps: number, description: string, handler: (msg: unknown) => unknown, options?: Record<string, unknown>) {
      return register('registerOutputChannel', `output:${name}`, 'output', handler, { name, caps, description, options: options ?? {} });
    },
    registerPromptSlot(slot: string, provider: (q: unknown) => unknown) {
      return register('registerPromptSlot', `slot:${nextKey++}`, 'slot', provider, { slot });
    },
    registerContextFilter() {
      throw new RemoteError('PLUGIN_FORBIDDEN', 'registerContextFilter is not available to external plugins');
    },
    onDispose(fn: () => void | Promise<void>) {
      disposers.push(fn);
      return () => {
        const i = disposers.indexOf(fn);
        if (i >= 0) disposers.splice(i, 1);
      };
    },
    injectInput(input: Record<string, unknown>) {
      // The ticket needs its ids at once; the daemon answers before the turn can end.
      let resolveDone!: (o: TurnOutcome) => void;
      const done = new Promise<TurnOutcome>((r) => (resolveDone = r));
      const ids = request('injectInput', { input }) as Promise<{ turnId: string; sessionId: string; notRecorded?: string }>;
      const accepted = ids.then((v) => {
        if (v.notRecorded) throw new Error(`the message was not written to the session log: ${v.notRecorded}`);
      });
      accepted.catch(() => {});
      const ticket: { turnId: string; sessionId: string; done: Promise<TurnOutcome>; accepted: Promise<void>; ready?: Promise<unknown> } = {
        turnId: '',
        sessionId: String(input.sessionId ?? ''),
        done,
        accepted,
      };
      ticket.ready = ids.then((v) => {
          ticket.turnId = v.turnId;
          const early = earlyOutcomes.get(v.turnId);
          if (early) {
            earlyOutcomes.delete(v.turnId);
            resolveDone(early);
          } else tickets.set(v.turnId, resolveDone);
          return ticket;
        });
      ticket.ready.catch(() => {});
      ids.catch((e) => resolveDone({ turnId: '', sessionId: ticket.sessionId, text: '', status: 'error', error: toRpcError(e), rounds: 0 }));
      return ticket;
    },
    injectInterrupt: (input: Record<string, unknown>) => void request('injectInterrupt', { input }).catch((e) => log('warn')(`injectInterrupt failed: ${(e as Error).message}`)),
    memory: () => ({
      recall: (keywords: string[], depth?: number) => call('memory.recall')({ keywords, depth }),
      commit: (triples: unknown[]) => call('memory.commit')({ triples }),
      embed: (texts: string[]) => call('memory.embed')({ texts }),
      embeddingModel: () => call('memory.embeddingModel')({}),
    }),
    knowledge: () => ({
      search: (query: string, limit?: number) => call('knowledge.search')({ query, limit }),
      create: (name: string, content: string) => call('knowledge.create')({ name, content }),
      list: () => call('knowledge.list')({}),
    }),
    social: () => ({
      getPerson: (name: string) => call('social.getPerson')({ name }),
      getTrait: (name: string, trait: string) => call('social.getTrait')({ name, trait }),
      getRelations: (name: string) => call('social.getRelations')({ name }),
      getNetwork: (name: string, depth?: number) => call('social.getNetwork')({ name, depth }),
      listPersons: () => call('social.listPersons')({}),
    }),
    settings: () => ({
      get(key: string) {
        const info = settings.find((s) => s.key === key);
        if (!info) throw new RemoteError('NOT_FOUND', `config key not found: plugin.${init.name}.${key}`);
        return info.value;
      },
      set: (key: string, value: ConfigValue) => call('settings.set')({ key, value }),
      list: () => settings.map((s) => ({ ...s })),
      onChange(fn: (key: string, value: ConfigValue) => void) {
        settingsListeners.add(fn);
        return () => settingsListeners.delete(fn);
      },
    }),
    llm: () => {
      let available = false;
      void call('llm.available')({}).then((v) => (available = v === true), () => {});
      return { available: () => available, chat: (req: unknown) => call('llm.chat')({ request: req }) };
    },
    sessions: () => ({
      list: () => call('sessions.list')({}),
      get: (id: string) => call('sessions.get')({ id }),
      events: (id: string, opts?: unknown) => call('sessions.events')({ id, opts }),
      append: () => Promise.reject(new RemoteError('PLUGIN_FORBIDDEN', 'sessions are read-only for external plugins')),
      create: () => Promise.reject(new RemoteError('PLUGIN_FORBIDDEN', 'sessions are read-only for external plugins')),
      rename: () => Promise.reject(new RemoteError('PLUGIN_FORBIDDEN', 'sessions are read-only for external plugins')),
    }),
  };
  sdk.__disposers = disposers;
  return sdk as RestrictedPluginSDK;
}

async function init(msg: Extract<ParentMessage, { t: 'init' }>): Promise<void> {
  settings = msg.settings;
  try {
    // `import ... from 'homeagent/sdk'` in the plugin resolves to a shim of the SDK's runtime exports.
    registerLoaderHooks(`data:text/javascript;base64,${Buffer.from(sdkHooksSource()).toString('base64')}`);
    const mod = (await import(pathToFileURL(msg.entry).href)) as { default?: unknown; plugin?: unknown };
    const def = (mod.default ?? mod.plugin) as typeof plugin;
    if (!def || typeof def !== 'object' || typeof def.start !== 'function') throw new RemoteError('PLUGIN_BAD_ENTRY', `${msg.entry} must default-export definePlugin({ name, start(sdk) })`);
    plugin = def;
    const sdk = buildSdk(msg);
    await def.start(sdk);
    await Promise.all(registrations);
    send({ t: 'started' });
  } catch (e) {
    send({ t: 'start-failed', error: toRpcError(e) });
  }
}

async function handleCall(msg: Extract<ParentMessage, { t: 'call' }>): Promise<void> {
  const h = handlers.get(msg.key);
  try {
    if (!h || h.target !== msg.target) throw new RemoteError('NOT_FOUND', `no ${msg.target} handler ${msg.key}`);
    const value = await h.fn(msg.payload);
    send({ t: 'res', id: msg.id, ok: true, value: value === undefined ? null : value });
  } catch (e) {
    send({ t: 'res', id: msg.id, ok: false, error: toRpcError(e) });
  }
}

let stopping = false;
async function stop(): Promise<void> {
  stopping = true;
  try {
    await plugin?.stop?.();
  } catch (e) {
    log('error')(`stop failed: ${(e as Error).message}`);
  }
  send({ t: 'stopped' });
  process.disconnect?.();
  setTimeout(() => process.exit(0), 50).unref();
}

process.on('message', (raw: unknown) => {
  const msg = raw as ParentMessage;
  switch (msg?.t) {
    case 'init':
      void init(msg);
      break;
    case 'call':
      void handleCall(msg);
      break;
    case 'notify': {
      const h = handlers.get(msg.key);
      try {
        h?.fn(msg.payload);
      } catch (e) {
        log('error')(`event handler failed: ${(e as Error).message}`);
      }
      break;
    }
    case 'res': {
      const p = pending.get(msg.id);
      if (!p) break;
      pending.delete(msg.id);
      if (msg.ok) p.resolve(msg.value);
      else p.reject(new RemoteError(msg.error?.code ?? 'PLUGIN_ERROR', msg.error?.message ?? 'request failed'));
      break;
    }
    case 'ping':
      send({ t: 'pong', id: msg.id });
      break;
    case 'settings': {
      const before = new Map(settings.map((s) => [s.key, JSON.stringify(s.value)]));
      settings = msg.list;
      for (const s of settings) {
        if (before.get(s.key) !== JSON.stringify(s.value)) for (const fn of settingsListeners) fn(s.key, s.value);
      }
      break;
    }
    case 'turn': {
      const resolve = tickets.get(msg.turnId);
      if (resolve) {
        tickets.delete(msg.turnId);
        resolve(msg.outcome as TurnOutcome);
      } else earlyOutcomes.set(msg.turnId, msg.outcome as TurnOutcome);
      break;
    }
    case 'stop':
      void stop();
      break;
  }
});
// The daemon went away (even killed outright): nothing left to serve. This process leads its own
// process group on POSIX (the daemon forks it detached), so the subprocesses the plugin started
// go with it instead of outliving the daemon.
process.on('disconnect', () => {
  // After a 'stop' the daemon is alive and ends the group itself when this process exits.
  if (!stopping && process.platform !== 'win32') {
    try {
      process.kill(-process.pid, 'SIGKILL'); // the group, this process included
    } catch {
      // not a group leader (started some other way): only this process ends
    }
  }
  process.exit(0);
});
