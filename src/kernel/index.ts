/** The agent kernel (C-1…C-8, C-10, C-11): orchestration only, no user-facing IO. */
export { Agent, SimpleContextWindow, CONSOLIDATION, NOTICES_SESSION } from './agent.js';
export type { AgentOptions } from './agent.js';
export { EventBus } from './event-bus.js';
export { StageHost } from './stage-host.js';
export type { StageFailure, ToolRunResult, ToolScope } from './stage-host.js';
export { SystemPromptBuilder, DEFAULT_PERSONA, SLOT_TITLES, renderTimeline } from './system-prompt.js';
export { ToolAggregator, type ToolSourceOptions } from './tool-aggregator.js';
export { OutputChannels, splitMessage, typesFor } from './output-channels.js';
export { INTERRUPT_PREFIX } from './interrupts.js';
export { cfg } from './ports.js';
export type { LlmPort, SessionPort, TextLogPort, ProviderAdminPort, PluginAdminPort } from './ports.js';
