import { fork, type ChildProcess } from 'node:child_process';
import { AsyncLocalStorage } from 'node:async_hooks';
import { createInterface } from 'node:readline';
import { join, resolve, sep } from 'node:path';
import { z } from 'zod';
import type { ConfigKeyDef, ConfigKeyInfo, Disposer, PluginSDK, PluginInfo, StageContext, StageName, StageScope, SocialReadAPI, ToolInvocation } from '../../spec/index.js';
import { PluginError, ValidationError } from '../../spec/index.js';
import { DisposerStack } from '../disposer-stack.js';
import type { PluginManifest } from '../plugin-manifest.js';
import { runnerScript } from './runner-script.js';
import { CHILD_OPS, RemoteError, STAGE_MUTABLE, toRpcError, type CallTarget, type ChildMessage, type ParentMessage } from './rpc-protocol.js';


/** Process groups (a child and the subprocesses it starts) exist on POSIX only. */
const GROUPS = process.platform !== 'win32';

/** Signals the child's whole process group (POSIX), or just the child; never throws. */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (GROUPS && child.pid) {
    try {
      process.kill(-child.pid, signal);
      return;
    } catch {
      // No such group (already gone) — fall through to the child itself.
    }
  }
  try {
    child.kill(signal);
  } catch {}
}

/** Supervision knobs (P-3). */
export interface ExternalPluginOptions {
  /** First restart delay; doubles per crash in the window. Default 500 ms. */
  restartBaseMs?: number;
  restartMaxMs?: number;
  /** Crashes within `giveUpWindowMs` that make the supervisor give up. Default 5 in 60 s. */
  giveUpCount?: number;
  giveUpWindowMs?: number;
  /** Ping interval and how long without a pong counts as hung. Defaults 2 s / 10 s. */
  heartbeatMs?: number;
  heartbeatTimeoutMs?: number;
  /** Time for one tool/stage/output call before the child is considered hung. Default 30 s. */
  callTimeoutMs?: number;
  /** Time for the child's `start` to finish. Default 15 s. */
  startTimeoutMs?: number;
  /** Heap limit of the child in MiB. Default 256. */
  maxOldSpaceMb?: number;
}

/** What the supervisor reports to the registry. */
export interface ExternalHealth {
  state: PluginInfo['state'];
  restarts: number;
  lastError?: string;
  lastHeartbeat?: number;
}

interface Generation {
  child: ChildProcess;
  scope: DisposerStack;
  regs: Map<string, Disposer>;
  calls: Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout; context?: RunInContext }>;
  heartbeat?: NodeJS.Timeout;
  lastPong: number;
  exited: boolean;
  exit: Promise<void>;
  /** Why the supervisor killed this child, if it did. */
  hung?: string;
}

/** Runs a function in an async context captured earlier (`AsyncLocalStorage.snapshot()`). */
type RunInContext = <R>(fn: () => R) => R;

const toolArgs = z.object({ key: z.string(), name: z.string(), description: z.string().default(''), parameters: z.record(z.string(), z.unknown()).default({ type: 'object', properties: {} }), noMemory: z.boolean().optional(), audience: z.enum(['owner', 'anyone']).optional() });
const stageArgs = z.object({ key: z.string(), stage: z.string(), scope: z.enum(['global', 'own']).default('global') });
const keyed = z.object({ key: z.string(), event: z.string().optional(), slot: z.string().optional() });
const outputArgs = z.object({ key: z.string(), name: z.string(), caps: z.number(), description: z.string().default(''), options: z.object({ maxMessageLength: z.number().optional(), help: z.string().optional() }).default({}) });

/** Variables a plugin process inherits; everything else (API keys, tokens …) stays in the daemon. */
const ENV_PASS = ['PATH', 'HOME', 'USERPROFILE', 'LANG', 'LANGUAGE', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR', 'TEMP', 'TMP', 'SystemRoot', 'SYSTEMROOT', 'ComSpec', 'PATHEXT', 'WINDIR'];

function childEnv(plugin: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { HOMEAGENT_PLUGIN: plugin };
  for (const k of ENV_PASS) if (process.env[k] !== undefined) env[k] = process.env[k];
  return env;
}

/** Settings declared in a manifest become typed config keys (schema from the default's type). */
export function manifestSettings(m: PluginManifest): Record<string, ConfigKeyDef> | undefined {
  if (!m.settings) return undefined;
  return Object.fromEntries(
    Object.entries(m.settings).map(([k, s]) => {
      const schema = s.default === null ? z.null() : typeof s.default === 'number' ? z.number() : typeof s.default === 'boolean' ? z.boolean() : z.string();
      return [k, { default: s.default, description: s.description, schema, secret: s.secret, env: s.env } as ConfigKeyDef];
    }),
  );
}

/**
 * An external plugin (P-3) seen by the registry as an ordinary plugin definition: `start(sdk)`
 * forks a child process running the plugin with the restricted SDK over an RPC bridge, and
 * supervises it: heartbeats, call timeouts, restart with exponential back-off after a crash or a
 * hang (the child's registrations are disposed first), give-up after too many crashes.
 */
export class ExternalPlugin {
  readonly name: string;
  readonly version: string;
  readonly description?: string;
  readonly dependencies: string[];
  readonly settings?: Record<string, ConfigKeyDef>;
  private sdk: PluginSDK | undefined;
  private gen: Generation | undefined;
  private stopping = false;
  private crashes: number[] = [];
  private restartTimer: NodeJS.Timeout | undefined;
  private nextCall = 1;
  private readonly h: ExternalHealth = { state: 'stopped', restarts: 0 };
  private readonly o: Required<ExternalPluginOptions>;

  constructor(
    readonly dir: string,
    readonly manifest: PluginManifest,
    private readonly socialRead: () => SocialReadAPI,
    opts: ExternalPluginOptions = {},
    private readonly onState: (h: ExternalHealth) => void = () => {},
  ) {
    this.name = manifest.name;
    this.version = manifest.version;
    this.description = manifest.description;
    this.dependencies = manifest.dependencies;
    this.settings = manifestSettings(manifest);
    this.o = {
      restartBaseMs: opts.restartBaseMs ?? 500,
      restartMaxMs: opts.restartMaxMs ?? 30_000,
      giveUpCount: opts.giveUpCount ?? 5,
      giveUpWindowMs: opts.giveUpWindowMs ?? 60_000,
      heartbeatMs: opts.heartbeatMs ?? 2_000,
      heartbeatTimeoutMs: opts.heartbeatTimeoutMs ?? 10_000,
      callTimeoutMs: opts.callTimeoutMs ?? 30_000,
      startTimeoutMs: opts.startTimeoutMs ?? 15_000,
      maxOldSpaceMb: opts.maxOldSpaceMb ?? 256,
    };
  }

  health(): ExternalHealth {
    return { ...this.h };
  }

  /** Child process id (tests, diagnostics). */
  get pid(): number | undefined {
    return this.gen && !this.gen.exited ? this.gen.child.pid : undefined;
  }

  async start(sdk: PluginSDK): Promise<void> {
    this.sdk = sdk;
    this.stopping = false;
    this.crashes = [];
    this.h.restarts = 0;
    this.h.lastError = undefined;
    await this.spawn();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const gen = this.gen;
    if (gen && !gen.exited) {
      this.send(gen, { t: 'stop' });
      const killer = setTimeout(() => killGroup(gen.child, 'SIGKILL'), 2000);
      await gen.exit;
      clearTimeout(killer);
    }
    this.set('stopped');
  }

  private set(state: ExternalHealth['state'], error?: string): void {
    this.h.state = state;
    if (error !== undefined) this.h.lastError = error;
    this.onState(this.health());
  }

  private send(gen: Generation, msg: ParentMessage): void {
    if (gen.exited || !gen.child.connected) return;
    try {
      gen.child.send(msg);
    } catch {}
  }

  private async spawn(): Promise<void> {
    const sdk = this.sdk!;
    const entry = resolve(this.dir, this.manifest.entry);
    if (!entry.startsWith(resolve(this.dir) + sep)) throw new PluginError(this.name, 'entry escapes the plugin folder', 'PLUGIN_BAD_MANIFEST');
    this.set('starting');
    const runner = await runnerScript();
    const execArgv = [`--max-old-space-size=${this.o.maxOldSpaceMb}`, ...runner.execArgv];
    // On POSIX the child leads its own process group, so the subprocesses the plugin starts can be
    // ended with it (killGroup); it still exits when the daemon goes (the IPC channel closes).
    const child = fork(runner.script, [], { cwd: this.dir, execArgv, stdio: ['ignore', 'pipe', 'pipe', 'ipc'], serialization: 'json', env: childEnv(this.name), detached: GROUPS });
    let markExit!: () => void;
    const gen: Generation = {
      child,
      scope: new DisposerStack((e) => sdk.log.error(`dispose failed: ${(e as Error).message}`)),
      regs: new Map(),
      calls: new Map(),
      lastPong: Date.now(),
      exited: false,
      exit: new Promise<void>((r) => (markExit = r)),
    };
    this.gen = gen;
    // The plugin's console output goes to its log, line by line.
    for (const [stream, level] of [[child.stdout, 'info'], [child.stderr, 'warn']] as const) {
      if (stream) createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => line.trim() && sdk.log[level](line.slice(0, 2000)));
    }
    let startResolve!: (v: { ok: boolean; error?: string }) => void;
    const started = new Promise<{ ok: boolean; error?: string }>((r) => (startResolve = r));
    child.on('message', (m) => this.onMessage(gen, m as ChildMessage, startResolve));
    child.on('error', (e) => sdk.log.error(`child process error: ${e.message}`));
    child.on('exit', (code, signal) => {
      gen.exited = true;
      // Whatever the plugin left running (its own subprocesses) ends with it.
      killGroup(child, 'SIGKILL');
      markExit();
      startResolve({ ok: false, error: `child exited during start (${signal ?? `code ${code}`})` });
      void this.onExit(gen, signal ?? `code ${code}`);
    });
    this.send(gen, {
      t: 'init',
      name: this.name,
      entry,
      homeDir: sdk.homeDir,
      dataDir: join(sdk.homeDir, 'plugins-data', this.name),
      settings: this.safeSettings(),
      permissions: this.manifest.permissions,
    });
    gen.scope.add(sdk.settings().onChange(() => this.send(gen, { t: 'settings', list: this.safeSettings() })));
    const timer = setTimeout(() => startResolve({ ok: false, error: `start did not finish within ${this.o.startTimeoutMs} ms` }), this.o.startTimeoutMs);
    const r = await started;
    clearTimeout(timer);
    if (!r.ok) {
      await this.kill(gen);
      this.set('failed', r.error);
      throw new PluginError(this.name, r.error ?? 'start failed', 'PLUGIN_START_FAILED');
    }
    gen.lastPong = Date.now();
    gen.heartbeat = setInterval(() => this.beat(gen), this.o.heartbeatMs);
    gen.heartbeat.unref();
    this.h.lastHeartbeat = Date.now();
    this.set('running');
  }

  /** The plugin's settings for the child: `list()` masks secrets, so values come from `get()`. */
  private safeSettings(): ConfigKeyInfo[] {
    try {
      const settings = this.sdk!.settings();
      return settings.list().map((info) => {
        try {
          return { ...info, value: settings.get(info.key) };
        } catch {
          return info;
        }
      });
    } catch {
      return [];
    }
  }

  private beat(gen: Generation): void {
    if (gen.exited) return;
    if (Date.now() - gen.lastPong > this.o.heartbeatTimeoutMs) {
      this.sdk?.log.error(`no heartbeat for ${this.o.heartbeatTimeoutMs} ms: killing the plugin process`);
      gen.hung = `hung: no heartbeat for ${this.o.heartbeatTimeoutMs} ms`;
      void this.kill(gen);
      return;
    }
    this.send(gen, { t: 'ping', id: this.nextCall++ });
  }

  private async kill(gen: Generation): Promise<void> {
    if (!gen.exited) {
      killGroup(gen.child, 'SIGKILL');
      await gen.exit;
    }
  }

  /** The child ended: dispose its registrations, fail its pending calls, restart with back-off. */
  private async onExit(gen: Generation, how: string): Promise<void> {
    clearInterval(gen.heartbeat);
    for (const c of gen.calls.values()) {
      clearTimeout(c.timer);
      c.reject(new PluginError(this.name, `plugin process ended (${how})`, 'PLUGIN_CRASHED'));
    }
    gen.calls.clear();
    await gen.scope.disposeAll();
    if (this.gen !== gen || this.stopping || this.h.state === 'starting' || this.h.state === 'failed') return;
    this.crashed(gen.hung ?? `crashed (${how})`);
  }

  /** Counts a crash; gives up past the threshold, else restarts after an exponential back-off. */
  private crashed(why: string): void {
    const now = Date.now();
    this.crashes = [...this.crashes.filter((t) => now - t < this.o.giveUpWindowMs), now];
    this.sdk?.log.error(`plugin process ${why}`);
    if (this.crashes.length >= this.o.giveUpCount) {
      this.set('gave-up', `${why}; gave up after ${this.crashes.length} crashes in ${this.o.giveUpWindowMs} ms`);
      return;
    }
    this.set('crashed', why);
    const delay = Math.min(this.o.restartMaxMs, this.o.restartBaseMs * 2 ** (this.crashes.length - 1));
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => {
      if (this.stopping) return;
      this.h.restarts++;
      this.spawn().catch((e) => {
        if (!this.stopping) this.crashed(`restart failed: ${(e as Error).message}`);
      });
    }, delay);
    this.restartTimer.unref?.();
  }

  /** Calls a handler in the child; a call that outlives `callTimeoutMs` marks the child hung and kills it. */
  private call(gen: Generation, target: CallTarget, key: string, payload: unknown): Promise<unknown> {
    if (gen.exited) return Promise.reject(new PluginError(this.name, 'plugin process is not running', 'PLUGIN_CRASHED'));
    const id = this.nextCall++;
    return new Promise((resolvePromise, reject) => {
      const timer = setTimeout(() => {
        gen.calls.delete(id);
        reject(new PluginError(this.name, `${target} ${key} timed out after ${this.o.callTimeoutMs} ms; restarting the plugin`, 'PLUGIN_TIMEOUT'));
        gen.hung = `hung: ${target} ${key} timed out after ${this.o.callTimeoutMs} ms`;
        void this.kill(gen);
      }, this.o.callTimeoutMs);
      // A tool call's async context (the kernel's tool scope: whose change, which turn) is kept, so
      // what the child asks of the host while the tool runs is done in it (decision 0290).
      gen.calls.set(id, { resolve: resolvePromise, reject, timer, ...(target === 'tool' ? { context: AsyncLocalStorage.snapshot() as RunInContext } : {}) });
      this.send(gen, { t: 'call', id, target, key, payload });
    });
  }

  private onMessage(gen: Generation, msg: ChildMessage, started: (v: { ok: boolean; error?: string }) => void): void {
    if (!msg || typeof msg !== 'object') return;
    switch (msg.t) {
      case 'started':
        started({ ok: true });
        break;
      case 'start-failed':
        started({ ok: false, error: `start failed: ${String(msg.error?.message ?? 'unknown error')}` });
        break;
      case 'pong':
        gen.lastPong = Date.now();
        this.h.lastHeartbeat = gen.lastPong;
        break;
      case 'log': {
        const level = (['debug', 'info', 'warn', 'error'] as const).find((l) => l === msg.level) ?? 'info';
        this.sdk?.log[level](String(msg.msg).slice(0, 4000), typeof msg.data === 'object' && msg.data ? msg.data : undefined);
        break;
      }
      case 'res': {
        const c = gen.calls.get(msg.id);
        if (!c) break;
        gen.calls.delete(msg.id);
        clearTimeout(c.timer);
        if (msg.ok) c.resolve(msg.value);
        else c.reject(new RemoteError(String(msg.error?.code ?? 'PLUGIN_ERROR'), String(msg.error?.message ?? 'failed')));
        break;
      }
      case 'req': {
        // In the context of the tool call that is running (the latest, when several are): a request
        // of the child's own (a timer of its) while none runs keeps the host's.
        let context: RunInContext | undefined;
        for (const c of gen.calls.values()) if (c.context) context = c.context;
        const handled = context ? context(() => this.handleRequest(gen, msg.op, msg.args ?? {})) : this.handleRequest(gen, msg.op, msg.args ?? {});
        handled.then(
          (value) => this.send(gen, { t: 'res', id: msg.id, ok: true, value: value === undefined ? null : value }),
          (e) => this.send(gen, { t: 'res', id: msg.id, ok: false, error: toRpcError(e) }),
        );
        break;
      }
    }
  }

  /** One request of the restricted SDK. Anything not in CHILD_OPS — publish, social writes — is refused. */
  private async handleRequest(gen: Generation, op: string, a: Record<string, unknown>): Promise<unknown> {
    const sdk = this.sdk!;
    if (!Object.prototype.hasOwnProperty.call(CHILD_OPS, op)) throw new PluginError(this.name, `"${op}" is not available to external plugins`, 'PLUGIN_FORBIDDEN');
    const perm = CHILD_OPS[op];
    if (perm && !this.manifest.permissions.includes(perm as never)) throw new PluginError(this.name, `"${op}" needs the "${perm}" permission in plugin.json`, 'PLUGIN_FORBIDDEN');
    const own = (key: string, d: Disposer): null => {
      gen.regs.set(key, gen.scope.add(d));
      return null;
    };
    switch (op) {
      case 'registerTool': {
        const t = toolArgs.parse(a);
        // The child gets whose turn it is (decision 0360): a tool it declares for `anyone` must keep
        // to the turn's scope, so the scope, the speaker and the place cross the bridge with the call.
        const who = (c: ToolInvocation) => ({ speaker: c.speaker, conversation: c.conversation, owner: c.owner, scope: c.scope ? [...c.scope] : undefined });
        return own(t.key, sdk.registerTool({ name: t.name, description: t.description, parameters: t.parameters, noMemory: t.noMemory, audience: t.audience, handler: (args, c) => this.call(gen, 'tool', t.key, { args, call: { sessionId: c.sessionId, turnId: c.turnId, callId: c.callId, ...who(c) } }) as never }));
      }
      case 'registerStage': {
        const s = stageArgs.parse(a);
        return own(s.key, sdk.registerStage(s.stage as StageName, async (ctx: StageContext) => {
          const out = (await this.call(gen, 'stage', s.key, ctx)) as Record<string, unknown> | null;
          if (out && typeof out === 'object') for (const k of STAGE_MUTABLE) if (k in out && k !== 'state') (ctx as unknown as Record<string, unknown>)[k] = out[k] ?? undefined;
          if (out?.state && typeof out.state === 'object') Object.assign(ctx.state, out.state);
        }, s.scope as StageScope));
      }
      case 'subscribe': {
        const k = keyed.parse(a);
        if (!k.event) throw new ValidationError('subscribe needs an event name');
        return own(k.key, sdk.subscribe(k.event as never, (payload) => this.send(gen, { t: 'notify', target: 'event', key: k.key, payload })));
      }
      case 'registerPromptSlot': {
        const k = keyed.parse(a);
        return own(k.key, sdk.registerPromptSlot(k.slot as never, async (q) => ((await this.call(gen, 'slot', k.key, q)) as string | null) ?? undefined));
      }
      case 'registerOutputChannel': {
        const o = outputArgs.parse(a);
        return own(o.key, sdk.registerOutputChannel(o.name, o.caps, o.description, async (m) => void (await this.call(gen, 'output', o.key, m)), o.options));
      }
      case 'dispose': {
        const key = String(a.key);
        gen.regs.get(key)?.();
        gen.regs.delete(key);
        return null;
      }
      case 'injectInput': {
        const ticket = sdk.injectInput(a.input as never);
        void ticket.done.then((outcome) => this.send(gen, { t: 'turn', turnId: ticket.turnId, outcome }));
        // Answered once the message is in the session log (the plugin's ticket.accepted).
        const notRecorded = await ticket.accepted.then(
          () => undefined,
          (e: Error) => e.message,
        );
        return { turnId: ticket.turnId, sessionId: ticket.sessionId, ...(notRecorded ? { notRecorded } : {}) };
      }
      case 'injectInterrupt':
        sdk.injectInterrupt(a.input as never);
        return null;
      case 'memory.recall':
        return sdk.memory().recall(a.keywords as string[], a.depth as number | undefined);
      case 'memory.commit':
        return sdk.memory().commit(a.triples as never);
      case 'memory.embed':
        return sdk.memory().embed(a.texts as string[]);
      case 'memory.embeddingModel':
        return sdk.memory().embeddingModel();
      case 'knowledge.search':
        return sdk.knowledge().search(String(a.query), a.limit as number | undefined);
      case 'knowledge.create':
        return sdk.knowledge().create(String(a.name), String(a.content));
      case 'knowledge.list':
        return sdk.knowledge().list();
      case 'social.getPerson':
        return this.socialRead().getPerson(String(a.name));
      case 'social.getTrait':
        return this.socialRead().getTrait(String(a.name), String(a.trait));
      case 'social.getRelations':
        return this.socialRead().getRelations(String(a.name));
      case 'social.getNetwork':
        return this.socialRead().getNetwork(String(a.name), a.depth as number | undefined);
      case 'social.listPersons':
        return this.socialRead().listPersons();
      case 'settings.set':
        return sdk.settings().set(String(a.key), a.value as never);
      case 'llm.available':
        return sdk.llm().available();
      case 'llm.chat':
        return sdk.llm().chat(a.request as never);
      case 'sessions.list':
        return sdk.sessions().list();
      case 'sessions.get':
        return sdk.sessions().get(String(a.id));
      case 'sessions.events':
        return sdk.sessions().events(String(a.id), a.opts as never);
    }
    throw new PluginError(this.name, `"${op}" is not available to external plugins`, 'PLUGIN_FORBIDDEN');
  }
}
