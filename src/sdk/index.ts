/**
 * `homeagent/sdk` — the only import a plugin needs (P-1).
 *
 * @example
 * ```ts
 * import { definePlugin } from 'homeagent/sdk';
 * export default definePlugin({
 *   name: 'hello',
 *   start(sdk) {
 *     sdk.registerTool({ name: 'hello_say', description: 'Say hello', parameters: { type: 'object', properties: {} }, handler: () => 'hello' });
 *   },
 * });
 * ```
 */
import type { PluginDefinition, PluginSDK, RestrictedPluginSDK } from '../spec/index.js';

export type {
  PluginDefinition,
  PluginSDK,
  RestrictedPluginSDK,
  PluginLogger,
  ConfigKeyDef,
  SchemaLike,
  HttpRoute,
  InputTicket,
  InputOptions,
  TurnOutcome,
  LlmAPI,
  ServiceMap,
  ToolDef,
  ToolInvocation,
  ToolOutput,
  Disposer,
  StageName,
  StageContext,
  StageHandler,
  StageScope,
  TurnInput,
  AgentEvents,
  AgentEventName,
  LlmChainEvent,
  OutputMessage,
  OutputHandler,
  OutputChannelOptions,
  MemoryAPI,
  KnowledgeAPI,
  SocialAPI,
  SocialReadAPI,
  Triple,
  GraphEntity,
  GraphRelation,
  SettingsAPI,
  ConfigValue,
  ConfigKeyInfo,
  SessionsAPI,
  SessionInfo,
  SessionEvent,
  SessionEventKind,
  ChatMessage,
  ChatRequest,
  ChatResponse,
  StreamPart,
  ToolCall,
  PromptSlot,
  PromptSlotProvider,
  PromptQuery,
  PluginInfo,
  PluginAdminService,
  RouteTableService,
  Person,
  Speaker,
  Conversation,
  NotifyService,
} from '../spec/index.js';
export { Cap, STAGES, HomeAgentError, ValidationError, NotFoundError, ConflictError, PayloadTooLargeError, PluginError } from '../spec/index.js';
/**
 * Utilities for plugin authors: replace a file atomically (temp file in the same folder, fsync,
 * rename, fsync of the folder), so a crash never leaves a torn file. New files are 0600.
 */
export { writeFileAtomic, writeJsonAtomic, redactPaths } from '../fs/index.js';
/** Cosine similarity of two vectors (e.g. from `sdk.memory().embed`); 0 for different dimensions. */
export { cosine } from '../vector/index.js';
export type { AtomicWriteOptions, AtomicJsonOptions, AtomicData } from '../fs/index.js';

/** Declares a plugin with full types. Identity at run time. */
export function definePlugin<S extends PluginSDK | RestrictedPluginSDK = PluginSDK>(def: PluginDefinition<S>): PluginDefinition<S> {
  return def;
}
