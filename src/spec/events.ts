import type { ToolCall, Usage, FinishReason } from './provider.js';
import type { TurnInput } from './stage.js';
import type { InjectedSource } from './memory.js';
import type { MemoryChangedEvent } from './memory-changes.js';

/** Published after every LLM round (C-7). */
export interface LlmChainEvent {
  turnId: string;
  sessionId: string;
  round: number;
  provider: string;
  model: string;
  text: string;
  reasoning: string;
  toolCalls: ToolCall[];
  usage: Usage;
  finishReason: FinishReason;
  latencyMs: number;
  consolidation: boolean;
  /**
   * What the kernel injected into this round: messages (memory library block, interrupts …) and,
   * in a turn's first round, the recall blocks of the system prompt (source `recall`, with their
   * slot, heading and sources), so a live view can show why each was recalled.
   */
  injected: { source: string; text: string; slot?: string; title?: string; sources?: InjectedSource[] }[];
  at: number;
}

/** Every event of the typed bus, by name. */
export interface AgentEvents {
  agent_llm_chain: LlmChainEvent;
  turn_start: { turnId: string; sessionId: string; input: TurnInput; at: number };
  turn_delta: { turnId: string; sessionId: string; round: number; kind: 'text' | 'reasoning'; text: string };
  tool_start: { turnId: string; sessionId: string; round: number; call: ToolCall; plugin?: string };
  tool_end: { turnId: string; sessionId: string; round: number; call: ToolCall; result: string; error?: string; rejected?: string; durationMs: number };
  stage_event: { turnId: string; sessionId: string; stage: string; note: string };
  stage_error: { turnId: string; stage: string; plugin: string; message: string; stack?: string };
  turn_end: {
    turnId: string;
    sessionId: string;
    text: string;
    status: 'ok' | 'error' | 'aborted' | 'short-circuit';
    error?: { code: string; message: string };
    rounds: number;
    at: number;
  };
  /** `turnId`: the running turn an interrupt joins (`abort+queue`); a forget of that turn drops it (decision 0430). */
  interrupt: { sessionId?: string; source: string; text: string; delivery: 'abort+queue' | 'queued' | 'new-turn'; at: number; turnId?: string };
  /**
   * A setting was set or reset. Only its key: every plugin may subscribe, and a value (an MCP
   * server's headers, a plugin's own settings) is read where its reader may read it.
   */
  config_changed: { key: string; value?: unknown };
  plugin_state: { plugin: string; state: string; error?: string };
  /** A `.hmap` package was uploaded and waits for the person's confirmation. */
  plugin_pending: { name: string; version: string; permissions: string[]; replaces?: string };
  session_event: { sessionId: string; seq: number; kind: string };
  /** Memory changed outside or inside a turn (decision 0260): kind, who, opaque ids; coalesced, never content. */
  memory_changed: MemoryChangedEvent;
  [custom: `custom:${string}`]: unknown;
}

export type AgentEventName = keyof AgentEvents;
