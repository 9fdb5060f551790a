import type { ChatMessage, ToolCall } from './provider.js';
import type { Conversation, Speaker } from './speaker.js';

/** The seven stages (C-4), in the order a turn passes them. */
export const STAGES = ['on_input', 'pre_action', 'post_action', 'before_toolcall', 'after_toolcall', 'before_output', 'after_output'] as const;
export type StageName = (typeof STAGES)[number];

/** What each stage may do — the typed table of seed 000 (7 个阶段钩子). */
export const STAGE_SEMANTICS: Record<StageName, string> = {
  on_input: 'message reached the agent, nothing processed: block, rate-limit, reply directly (set response)',
  pre_action: 'context ready, before the LLM call: inject messages (push to messages)',
  post_action: 'LLM returned text + tool calls: filter text, drop or redirect tool calls',
  before_toolcall: 'before one tool runs: audit, reject (set rejected), rewrite args',
  after_toolcall: 'after one tool ran: rewrite or redact the result',
  before_output: 'final text ready, before sending: rewrite text',
  after_output: 'sent: read-only, statistics and logs',
};

/** The input that started a turn. */
export interface TurnInput {
  sessionId: string;
  /** Plugin/source that injected it: `webui`, `cli`, `timer`, `_consolidation_` … */
  source: string;
  /** Output channel to answer on (defaults to the source). */
  channel: string;
  text: string;
  attachments?: { mimeType: string; name?: string; data: string }[];
  /** Who triggered it: a user, or the system (consolidation, timers). */
  trigger: 'user' | 'system';
  meta?: Record<string, unknown>;
  /** Who said it (chat channels); absent = the owner (WebUI, CLI). */
  speaker?: Speaker;
  /** Where it was said (chat channels); absent = the owner's private session. */
  conversation?: Conversation;
}

/**
 * The one context object every handler of a stage shares (C-3). Handlers run concurrently on it;
 * setting `response` short-circuits the turn to `after_output`.
 */
export interface StageContext {
  readonly stage: StageName;
  readonly input: TurnInput;
  readonly turnId: string;
  readonly round: number;
  /** Messages of the current LLM conversation (pre_action may push). */
  messages: ChatMessage[];
  /** post_action: the LLM's text of this round. before_output: the final text. */
  text?: string;
  /** post_action: the tool calls the LLM asked for (handlers may filter/redirect). */
  toolCalls?: ToolCall[];
  /** before_toolcall/after_toolcall: the call in question. */
  toolCall?: ToolCall;
  /** before_toolcall: parsed args (may be rewritten). */
  args?: Record<string, unknown>;
  /** before_toolcall: set to a reason to reject the call. */
  rejected?: string;
  /** after_toolcall: the result text (may be rewritten). */
  result?: string;
  /** Set to short-circuit with this reply. */
  response?: string;
  /** Free-form per-turn scratch space shared by handlers. */
  state: Record<string, unknown>;
}

export type StageHandler = (ctx: StageContext) => void | Promise<void>;

/** `global`: every call; `own`: only tool stages for the registering plugin's own tools. */
export type StageScope = 'global' | 'own';
