import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type {
  ConfigKeyDef,
  Disposer,
  HttpRoute,
  InputOptions,
  InputTicket,
  KnowledgeAPI,
  LlmAPI,
  MemoryAPI,
  PluginDefinition,
  PluginLogger,
  PluginSDK,
  PromptSlot,
  PromptSlotProvider,
  ServiceMap,
  SessionsAPI,
  SettingsAPI,
  SocialAPI,
  SocialReadAPI,
  StageHandler,
  StageName,
  StageScope,
  ToolDef,
  NotifyService,
} from '../spec/index.js';
import { ConflictError, HomeAgentError, PluginError, STAGES, ValidationError } from '../spec/index.js';
import type { Agent } from '../kernel/index.js';
import type { Logger } from '../log/index.js';
import { DisposerStack } from './disposer-stack.js';
import { RouteTable } from './route-table.js';
import { ServiceRegistry } from './service-registry.js';

/** What the host needs of the config registry (G-1): full keys `plugin.<name>.<key>`. */
export interface PluginConfigPort {
  register(defs: Record<string, ConfigKeyDef>): () => void;
  settingsFor(plugin: string): SettingsAPI;
  /** Reads a full key (`core.notify.channel`); throws for an unknown key. */
  get?(key: string): unknown;
}

/** The memory subsystem as the SDK sees it; absent when memory is not running. */
export interface MemoryPort {
  memoryAPI(): MemoryAPI;
  knowledgeAPI(): KnowledgeAPI;
  socialAPI(): SocialAPI;
  socialReadAPI(): SocialReadAPI;
}

export interface PluginHostOptions {
  agent: Agent;
  /** The HomeAgent data folder. */
  homeDir: string;
  config: PluginConfigPort;
  sessions: SessionsAPI;
  llm: LlmAPI;
  memory?: MemoryPort;
  log: Logger;
  /** How long an in-process plugin's `start` may take before it is failed. Default 30 s. */
  startTimeoutMs?: number;
}

/** A plugin name: lower-case letters, digits, `_` and `-` (it is also its config namespace). */
export const PLUGIN_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** Thrown by memory/knowledge/social calls when the memory subsystem is not running. */
export class SubsystemUnavailableError extends HomeAgentError {
  constructor(subsystem: string) {
    super('NOT_AVAILABLE', `${subsystem} subsystem not available`, { details: { subsystem } });
  }
}

function unavailable<T extends object>(subsystem: string, methods: string[]): T {
  return Object.fromEntries(methods.map((m) => [m, () => Promise.reject(new SubsystemUnavailableError(subsystem))])) as T;
}

interface Loaded {
  def: PluginDefinition<PluginSDK>;
  scope: DisposerStack;
  builtin: boolean;
}

/** Options of {@link PluginHost.start}. */
export interface PluginStartOptions {
  /**
   * A built-in plugin (compiled into the daemon). Only a built-in may register a tool whose name
   * is one of the kernel's or a built-in plugin's; the registry says which. Default false.
   */
  builtin?: boolean;
}

/** The prefix of the tools output channels generate (P-6); no plugin may register one itself. */
const CHANNEL_TOOL_PREFIX = 'output_send__';

/**
 * The SDK runtime (P-1): gives each plugin a {@link PluginSDK} bound to the Agent and the host
 * services. Every registration returns a disposer owned by the plugin; `stop(name)` runs the
 * plugin's `stop()` and then its disposers in reverse order, and is idempotent — so a reload is
 * `stop` + `start` again.
 *
 * The host itself offers the services `host.routes` (the {@link RouteTable}) and `host.notify`
 * (proactive notices through the owner's default channel, R-6).
 */
/**
 * The tool-name prefixes of the built-in plugins (`cmd_run`, `files_*`, `library_*`, `terminal_*`,
 * `web_search` …). Reserved whether or not the built-in runs: a built-in that is disabled, or that
 * registers a tool only when a setting is on (`web_search`), has not claimed its names yet, and a
 * plugin must not take them in the meantime — the model would call the plugin's tool by the
 * built-in's name.
 */
export const BUILTIN_TOOL_PREFIXES = ['cmd_', 'config_', 'files_', 'health_', 'library_', 'mcp_', 'plugin_', 'terminal_', 'timer_', 'web_', 'memory_', 'doc_', 'person_', 'knowledge_', 'skill_', 'subagent_'] as const;

export class PluginHost {
  readonly routes = new RouteTable();
  readonly services = new ServiceRegistry();
  private readonly loaded = new Map<string, Loaded>();
  private readonly order: string[] = [];
  /**
   * Settings of plugins whose start failed, still registered: the setting that made a plugin
   * fail (a port in use …) must stay settable so the person can fix it and start it again.
   */
  private readonly failedSettings = new Map<string, () => void>();
  /** Starts in progress, each cancellable (daemon shutdown must not wait for a hanging plugin). */
  private readonly pendingStarts = new Set<(reason: string) => void>();
  /**
   * Tool names built-in plugins registered in this run → the plugin: theirs even while that
   * plugin is stopped or disabled, so no other plugin takes the name meanwhile (C-3).
   */
  private readonly builtinToolNames = new Map<string, string>();
  private evicted: (plugin: string, error: ConflictError) => void = (plugin) => void this.stop(plugin);

  constructor(private readonly opts: PluginHostOptions) {
    this.services.provide('host', 'host.routes', this.routes);
    this.services.provide('host', 'host.notify', this.notifyService());
  }

  private notifyService(): NotifyService {
    const { agent, config } = this.opts;
    return {
      channel: () => {
        let preferred = 'webui';
        try {
          preferred = String(config.get?.('core.notify.channel') || 'webui');
        } catch {}
        return agent.channels.get(preferred) ? preferred : agent.channels.get('webui') ? 'webui' : undefined;
      },
      channels: () => agent.channels.list().map((c) => ({ name: c.name, caps: c.caps, push: c.options.push === true, plugin: c.plugin, description: c.description })),
      send: (n) => agent.notify(n),
    };
  }

  get agent(): Agent {
    return this.opts.agent;
  }

  get homeDir(): string {
    return this.opts.homeDir;
  }

  /** The host logger (plugin loggers are children of it). */
  get log(): Logger {
    return this.opts.log;
  }

  /**
   * Who takes a plugin out when a built-in plugin claims a tool name it held (it got there while
   * the built-in was not running yet): the tool is the built-in's at once, the other plugin gets
   * this call with the CONFLICT that says why. Default: the plugin is stopped.
   */
  onToolEviction(fn: (plugin: string, error: ConflictError) => void): void {
    this.evicted = fn;
  }

  /** True while `name` is started. */
  isRunning(name: string): boolean {
    return this.loaded.has(name);
  }

  /** Names of the running plugins, in start order. */
  running(): string[] {
    return [...this.order];
  }

  /** The tools a plugin currently owns. */
  toolsOf(name: string): string[] {
    return [...this.opts.agent.stages.toolPlugins()].filter(([, p]) => p === name).map(([t]) => t).sort();
  }

  /**
   * Starts a plugin: registers its settings, builds its SDK and calls `start(sdk)`. When start
   * throws, everything it registered is disposed and a PluginError (PLUGIN_START_FAILED) is thrown.
   */
  async start(def: PluginDefinition<PluginSDK>, opts: PluginStartOptions = {}): Promise<void> {
    if (!def || typeof def.name !== 'string' || typeof def.start !== 'function') throw new ValidationError('a plugin needs a name and a start(sdk) function');
    if (!PLUGIN_NAME.test(def.name)) throw new ValidationError(`invalid plugin name "${def.name}": use ${PLUGIN_NAME.source}`, { plugin: def.name });
    if (this.loaded.has(def.name)) throw new ConflictError(`plugin "${def.name}" is already running`, { plugin: def.name });
    const log = this.opts.log.child(`plugin:${def.name}`);
    const scope = new DisposerStack((e) => log.error(`disposer failed: ${(e as Error)?.message ?? String(e)}`));
    const entry: Loaded = { def, scope, builtin: opts.builtin === true };
    this.loaded.set(def.name, entry);
    this.order.push(def.name);
    let settingsReg: (() => void) | undefined;
    let keepSettings = false;
    try {
      this.failedSettings.get(def.name)?.();
      this.failedSettings.delete(def.name);
      if (def.settings && Object.keys(def.settings).length) {
        const full = Object.fromEntries(Object.entries(def.settings).map(([k, d]) => [`plugin.${def.name}.${k}`, d]));
        const reg = this.opts.config.register(full);
        settingsReg = reg;
        scope.add(() => {
          if (!keepSettings) reg();
        });
      }
      const limit = this.opts.startTimeoutMs ?? 30_000;
      let timer: NodeJS.Timeout | undefined;
      let cancel: ((why: PluginError) => void) | undefined;
      let onCancel: ((reason: string) => void) | undefined;
      const starting = Promise.resolve().then(() => def.start(this.createSdk(def.name, scope, log, entry.builtin)));
      try {
        await Promise.race([
          starting,
          new Promise<never>((_, reject) => {
            cancel = (why) => {
              // A start given up (time limit, daemon stopping) is stopped at once, and again if
              // it finishes later: what it registered is disposed with the scope, what it opened
              // itself (a child process, a server) by its stop(), which is safe to call twice.
              const stopLate = () => {
                // …unless the plugin was started again meanwhile (a reload): that start owns it now.
                const now = this.loaded.get(def.name);
                if (now && now !== entry) return;
                return Promise.resolve()
                  .then(() => def.stop?.())
                  .catch((e) => log.warn(`stop of an abandoned start failed: ${(e as Error)?.message ?? String(e)}`));
              };
              reject(why);
              queueMicrotask(() => void stopLate());
              starting.then(stopLate, () => {});
            };
            onCancel = (reason) => cancel?.(new PluginError(def.name, `start abandoned: ${reason}`, 'PLUGIN_START_CANCELLED'));
            this.pendingStarts.add(onCancel);
            timer = setTimeout(() => cancel?.(new PluginError(def.name, `start did not finish within ${limit} ms`, 'PLUGIN_START_TIMEOUT')), limit);
          }),
        ]);
      } finally {
        clearTimeout(timer);
        if (onCancel) this.pendingStarts.delete(onCancel);
      }
    } catch (e) {
      keepSettings = true;
      await scope.disposeAll();
      if (settingsReg) this.failedSettings.set(def.name, settingsReg);
      this.forget(def.name);
      throw e instanceof PluginError ? e : new PluginError(def.name, `start failed: ${(e as Error)?.message ?? String(e)}`, 'PLUGIN_START_FAILED', e);
    }
  }

  /** Stops a plugin: `stop()`, then its disposers newest first. Idempotent; never throws. */
  async stop(name: string): Promise<void> {
    const entry = this.loaded.get(name);
    if (!entry) return;
    this.forget(name);
    const log = this.opts.log.child(`plugin:${name}`);
    try {
      await entry.def.stop?.();
    } catch (e) {
      log.error(`stop failed: ${(e as Error)?.message ?? String(e)}`, { stack: (e as Error)?.stack });
    }
    await entry.scope.disposeAll();
    // Belt and braces: a tool registered behind the SDK's back still goes with its plugin (C-3).
    this.opts.agent.stages.unregisterPluginTools(name);
  }

  /**
   * Gives up every start still in progress: each fails with PLUGIN_START_CANCELLED and its
   * plugin is stopped (now, and again if its start finishes later). For shutdown.
   */
  cancelStarts(reason = 'the daemon is stopping'): void {
    for (const cancel of [...this.pendingStarts]) cancel(reason);
  }

  /** Stops every plugin, the last started first. */
  async stopAll(): Promise<void> {
    for (const name of [...this.order].reverse()) await this.stop(name);
  }

  private forget(name: string): void {
    this.loaded.delete(name);
    const i = this.order.indexOf(name);
    if (i >= 0) this.order.splice(i, 1);
  }

  /**
   * Registers a plugin's tool (C-3). A name the kernel's own tools use (memory, channels,
   * built-in tools — `output_send__*` included) or a built-in plugin's is refused for any other
   * plugin with CONFLICT naming its owner; a built-in claiming a name another plugin got first
   * takes it, and that plugin is evicted ({@link onToolEviction}).
   */
  private registerTool(def: ToolDef, plugin: string, builtin: boolean): Disposer {
    const { agent } = this.opts;
    const name = typeof def?.name === 'string' ? def.name : '';
    if (!builtin) {
      const kernel = name.startsWith(CHANNEL_TOOL_PREFIX) ? 'output channels' : agent.tools.ownerOf(name);
      if (kernel) throw new ConflictError(`tool "${name}" is a built-in tool (${kernel}); a plugin cannot register or replace it`, { tool: name, owner: kernel, plugin });
      const owner = this.builtinToolNames.get(name);
      if (owner && owner !== plugin) throw new ConflictError(`tool "${name}" belongs to the built-in plugin "${owner}"; a plugin cannot register or replace it`, { tool: name, owner, plugin });
      const prefix = BUILTIN_TOOL_PREFIXES.find((x) => name.startsWith(x));
      if (prefix) throw new ConflictError(`tool "${name}" is in the built-in plugins' namespace "${prefix}…"; a plugin names its tools otherwise (its own name is a good prefix)`, { tool: name, owner: `${prefix}*`, plugin });
    } else {
      const holder = agent.stages.toolPlugin(name);
      const held = holder === undefined ? undefined : this.loaded.get(holder);
      if (holder !== undefined && holder !== plugin && !held?.builtin) {
        agent.stages.removeTool(name);
        const why = new ConflictError(`tool "${name}" belongs to the built-in plugin "${plugin}"; plugin "${holder}" cannot register or replace it`, { tool: name, owner: plugin, plugin: holder });
        this.opts.log.warn(why.message);
        this.evicted(holder, why);
      }
    }
    const dispose = agent.stages.registerTool(def, plugin);
    if (builtin) this.builtinToolNames.set(name, plugin);
    return dispose;
  }

  /** Builds the full SDK of one plugin; every registration goes on `scope`. */
  createSdk(plugin: string, scope: DisposerStack, log: PluginLogger, builtin = false): PluginSDK {
    const { agent, config, memory, llm, sessions } = this.opts;
    const homeDir = this.opts.homeDir;
    const own = (d: Disposer): Disposer => scope.add(d);
    let dataDir: string | undefined;
    let settings: SettingsAPI | undefined;
    return {
      plugin,
      log,
      homeDir: this.opts.homeDir,
      get dataDir(): string {
        if (!dataDir) {
          dataDir = join(homeDir, 'plugins-data', plugin);
          mkdirSync(dataDir, { recursive: true });
        }
        return dataDir;
      },
      registerTool: (def: ToolDef) => own(this.registerTool(def, plugin, builtin)),
      registerStage: (stage: StageName, handler: StageHandler, scopeName: StageScope = 'global') => {
        if (!(STAGES as readonly string[]).includes(stage)) throw new ValidationError(`unknown stage "${stage}" (stages: ${STAGES.join(', ')})`, { plugin, stage });
        if (typeof handler !== 'function') throw new ValidationError(`stage ${stage}: handler must be a function`, { plugin });
        return own(agent.stages.registerStage(stage, handler, plugin, scopeName));
      },
      subscribe: (event, fn) => own(agent.bus.on(event, fn)),
      publish: (event, payload) => agent.bus.emit(event, payload),
      registerOutputChannel: (name, caps, description, handler, options) => own(agent.channels.register(plugin, name, caps, description, handler, options)),
      registerPromptSlot: (slot: PromptSlot, provider: PromptSlotProvider) => own(agent.prompt.register(slot, provider, plugin)),
      registerContextFilter: (filter) => own(agent.registerContextFilter(filter)),
      registerRoute: (route: HttpRoute) => own(this.routes.add(plugin, route)),
      provide: <K extends keyof ServiceMap>(name: K, impl: ServiceMap[K]) => own(this.services.provide(plugin, name, impl)),
      use: <K extends keyof ServiceMap>(name: K) => this.services.use(name),
      onDispose: (fn) => scope.add(fn),
      injectInput: (input: InputOptions): InputTicket => agent.injectInput(input),
      injectInterrupt: (input) => agent.injectInterrupt(input),
      memory: () => memory?.memoryAPI() ?? unavailable<MemoryAPI>('memory', ['recall', 'commit', 'embed', 'embeddingModel']),
      knowledge: () => memory?.knowledgeAPI() ?? unavailable<KnowledgeAPI>('knowledge', ['search', 'create', 'list']),
      social: () => memory?.socialAPI() ?? unavailable<SocialAPI>('social', ['getPerson', 'getTrait', 'getRelations', 'getNetwork', 'listPersons', 'setTrait', 'relate']),
      settings: () => (settings ??= config.settingsFor(plugin)),
      llm: () => llm,
      sessions: () => sessions,
    };
  }

  /** The read half of the social API (external plugins), or an unavailable stub. */
  socialRead(): SocialReadAPI {
    return this.opts.memory?.socialReadAPI() ?? unavailable<SocialReadAPI>('social', ['getPerson', 'getTrait', 'getRelations', 'getNetwork', 'listPersons']);
  }
}
