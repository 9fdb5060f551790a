/**
 * The normalized LLM contract (L-1). Every vendor API is mapped onto these shapes by a Lua
 * adapter; nothing above the providers layer sees a vendor format.
 */

/** JSON Schema object, as produced by `z.toJSONSchema`. */
export type JsonSchema = Record<string, unknown>;

/** One tool call requested by the model. `arguments` is the raw JSON text the model produced. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** An image or file attached to a message (base64, no data: prefix). */
export interface MessageAttachment {
  mimeType: string;
  data: string;
  name?: string;
}

/** A message of the conversation sent to the model. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** assistant: tool calls it made. */
  toolCalls?: ToolCall[];
  /** tool: the call this message answers. */
  toolCallId?: string;
  /** tool: the tool's name (some APIs need it). */
  name?: string;
  /** assistant: reasoning text the model returned (DeepSeek reasoner, Anthropic thinking …). */
  reasoning?: string;
  attachments?: MessageAttachment[];
  /**
   * Who put the message there when it was not the user or the model (e.g. `memory-manager`,
   * `interrupt`). Adapters ignore it; the kernel reports it in `agent_llm_chain.injected`.
   */
  source?: string;
}

/** A tool the model may call. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: JsonSchema;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  temperature?: number;
  maxTokens?: number;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export type FinishReason = 'stop' | 'tool-calls' | 'length' | 'content-filter' | 'error' | 'other';

export interface ChatResponse {
  text: string;
  reasoning: string;
  toolCalls: ToolCall[];
  usage: Usage;
  finishReason: FinishReason;
  model?: string;
}

/**
 * One part of a streamed response. An error mid-stream is a part, not a throw.
 * `tool-call` parts carry complete calls (adapters assemble argument deltas).
 */
export type StreamPart =
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  | { type: 'tool-call'; toolCall: ToolCall }
  | { type: 'finish'; usage: Usage; finishReason: FinishReason }
  | { type: 'error'; error: { code: string; message: string; status?: number } };

/** An LLM source: two calls and its metadata. Both calls honour `signal`. */
export interface Provider {
  readonly name: string;
  readonly model: string;
  chat(request: ChatRequest, signal?: AbortSignal): Promise<ChatResponse>;
  chatStream(request: ChatRequest, signal?: AbortSignal): AsyncIterable<StreamPart>;
}

/** What the provider manager reports about one source. */
export interface ProviderStatus {
  name: string;
  /** Display name ("DeepSeek", or what the person called their own source). */
  label?: string;
  /** True for a source the person added (it can be removed); false for the 8 seeded ones. */
  custom?: boolean;
  /** Models the person declared for a custom source (the model picker also asks the API). */
  models?: string[];
  /** Whether an API key is set (the key itself is never shown). */
  hasKey?: boolean;
  adapter: string;
  model: string;
  baseUrl: string;
  enabled: boolean;
  configured: boolean;
  state: 'ready' | 'disabled-auth' | 'cooling-down' | 'unconfigured';
  consecutiveFailures: number;
  lastError?: string;
  coolDownUntil?: number;
}
