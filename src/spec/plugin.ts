import type { Disposer, ToolDef } from './tool.js';
import type { StageHandler, StageName, StageScope, TurnInput } from './stage.js';
import type { AgentEvents } from './events.js';
import type { OutputChannelOptions, OutputHandler } from './channel.js';
import type { ContextEvent, KnowledgeAPI, MemoryAPI, PromptSlot, PromptSlotProvider, SocialAPI, SocialReadAPI } from './memory.js';
import type { ConfigValue, SettingsAPI } from './config.js';
import type { SessionsAPI } from './session.js';
import type { ChatRequest, ChatResponse, StreamPart } from './provider.js';

/** A structural schema (zod satisfies it) so the contracts layer needs no validation library. */
export interface SchemaLike<T = unknown> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: { message: string; path: PropertyKey[] }[] } };
}

/** A typed config key with its default (G-1). */
export interface ConfigKeyDef<T extends ConfigValue = ConfigValue> {
  default: T;
  description: string;
  schema: SchemaLike<T>;
  /** JSON Schema for forms; derived from `schema` when omitted and the schema is zod. */
  jsonSchema?: Record<string, unknown>;
  secret?: boolean;
  /** Env var that supplies the value (secrets). */
  env?: string;
  /**
   * The setting widens what the agent may do or reach (what it may run, which folders it writes,
   * where memory goes, which endpoints get its data): only the person changes it, from the WebUI
   * or `waiter config` — never a tool call (SPEC §9).
   */
  privileged?: boolean;
}

export interface PluginLogger {
  debug(msg: string, data?: Record<string, unknown>): void;
  info(msg: string, data?: Record<string, unknown>): void;
  warn(msg: string, data?: Record<string, unknown>): void;
  error(msg: string, data?: Record<string, unknown>): void;
}

/** The LLM API of the SDK: the kernel's provider manager with fallback. */
export interface LlmAPI {
  /** True when at least one source is configured and not disabled. */
  available(): boolean;
  chat(request: Omit<ChatRequest, 'model'> & { model?: string }, opts?: { signal?: AbortSignal; onPart?: (p: StreamPart) => void }): Promise<ChatResponse & { provider: string }>;
}

/** What `injectInput` gives back: the turn id at once, the outcome when the turn ends. */
export interface InputTicket {
  turnId: string;
  sessionId: string;
  done: Promise<TurnOutcome>;
  /**
   * Resolves once the message (and its attachments) is in the session log; rejects when it could
   * not be written. A channel acknowledges a message to its sender only after this, so a daemon
   * killed right after loses nothing it acknowledged.
   */
  accepted: Promise<void>;
}

export interface TurnOutcome {
  turnId: string;
  sessionId: string;
  text: string;
  status: 'ok' | 'error' | 'aborted' | 'short-circuit';
  error?: { code: string; message: string; details?: Record<string, unknown> };
  rounds: number;
}

/** An HTTP route a plugin contributes to the webui server (web-standard Request/Response). */
export interface HttpRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** hono-style path, e.g. `/api/memory-manager` or `/api/v1/things/:id`. */
  path: string;
  handler: (req: Request, params: Record<string, string>) => Response | Promise<Response>;
}

export type InputOptions = Omit<TurnInput, 'trigger' | 'channel' | 'attachments'> & {
  trigger?: TurnInput['trigger'];
  channel?: string;
  /**
   * The files sent with the message. `savedAt`: where the channel saved the file itself (an
   * absolute path inside `<home>/media/`); it is recorded with the message, so a forget of the
   * turn deletes that copy too (decision 0370). The turn's stages and the model never see it.
   */
  attachments?: (NonNullable<TurnInput['attachments']>[number] & { savedAt?: string })[];
};

/**
 * The full plugin SDK (P-1). Every `register*`/`subscribe` returns a disposer owned by the
 * plugin; unloading the plugin disposes them in reverse order.
 */
export interface PluginSDK {
  readonly plugin: string;
  readonly log: PluginLogger;
  /** The plugin's own folder inside the data folder (created on first use). */
  readonly dataDir: string;
  /** The HomeAgent data folder. */
  readonly homeDir: string;

  registerTool(def: ToolDef): Disposer;
  registerStage(stage: StageName, handler: StageHandler, scope?: StageScope): Disposer;
  subscribe<K extends keyof AgentEvents>(event: K, fn: (payload: AgentEvents[K]) => void): Disposer;
  publish<K extends keyof AgentEvents>(event: K, payload: AgentEvents[K]): void;
  registerOutputChannel(name: string, caps: number, description: string, handler: OutputHandler, options?: OutputChannelOptions): Disposer;
  registerPromptSlot(slot: PromptSlot, provider: PromptSlotProvider): Disposer;
  /**
   * Hides context events from the timeline the model sees while `filter` returns false
   * (non-destructive: the event stays stored). Used for turn exclusion (M-9).
   */
  registerContextFilter(filter: (event: ContextEvent) => boolean): Disposer;
  registerRoute(route: HttpRoute): Disposer;
  /** Offer a service to other plugins (cordis-style). */
  provide<K extends keyof ServiceMap>(name: K, impl: ServiceMap[K]): Disposer;
  use<K extends keyof ServiceMap>(name: K): ServiceMap[K] | undefined;
  onDispose(fn: () => void | Promise<void>): Disposer;

  injectInput(input: InputOptions): InputTicket;
  /**
   * Breaks into the running turn (or starts one when idle). The kernel's returns a promise that
   * settles once the interrupt is in a session log — it never settles for one the daemon stopped
   * before recording, so a sender that must not lose it (a reminder) keeps it until then.
   */
  injectInterrupt(input: { sessionId?: string; source: string; text: string }): void | Promise<void>;

  memory(): MemoryAPI;
  knowledge(): KnowledgeAPI;
  settings(): SettingsAPI;
  llm(): LlmAPI;
  social(): SocialAPI;
  sessions(): SessionsAPI;
}

/** The restricted SDK external plugins get (P-3): social read-only, subscribe without publish. */
export interface RestrictedPluginSDK extends Omit<PluginSDK, 'publish' | 'social' | 'provide' | 'use' | 'registerRoute'> {
  social(): SocialReadAPI;
}

/** A plugin (built-in or external): name, start(sdk), stop(). */
export interface PluginDefinition<S extends PluginSDK | RestrictedPluginSDK = PluginSDK> {
  name: string;
  version?: string;
  description?: string;
  /** Plugins that must start before this one. */
  dependencies?: string[];
  /** Typed config keys in `plugin.<name>.*` (keys without the prefix). */
  settings?: Record<string, ConfigKeyDef>;
  start(sdk: S): void | Promise<void>;
  stop?(): void | Promise<void>;
}

/**
 * Services plugins share through `provide`/`use`. Declared here as open interfaces; each
 * providing subsystem augments the map with its own type.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ServiceMap {}
