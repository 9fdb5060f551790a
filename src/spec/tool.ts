import type { JsonSchema } from './provider.js';
import type { Conversation, Speaker } from './speaker.js';

/** What a tool handler receives besides its arguments. */
export interface ToolInvocation {
  /** The session of the turn that called the tool. */
  sessionId: string;
  /** The turn id, `"<sessionId>#<seq>"`. */
  turnId: string;
  callId: string;
  signal: AbortSignal;
  /** Who said the turn's message, on a chat channel (absent: the owner). Lets a tool record it. */
  speaker?: Speaker;
  /** Where the turn's message was said (absent: the owner's own private place). */
  conversation?: Conversation;
  /**
   * False when the turn is not the owner's (a group member, someone else's private chat; decision
   * 0360): the kernel offers such a turn only tools whose `audience` is `anyone`. Absent: the owner.
   */
  owner?: boolean;
  /**
   * The conversations whose memory this turn may see (R-5, `turnAudience`); absent:
   * everything (the owner in their own places). A tool that returns remembered content keeps to it.
   */
  scope?: readonly string[];
}

/** The result of a tool. A string is shown to the model as is; objects are JSON-encoded. */
export type ToolOutput = string | Record<string, unknown> | unknown[];

/**
 * A tool definition (C-3). `noMemory`: output kept verbatim but never vectorized/distilled.
 * `cleaner`: filters the output before it reaches the memory computation layer only.
 */
export interface ToolDef {
  name: string;
  description: string;
  parameters: JsonSchema;
  noMemory?: boolean;
  cleaner?: (text: string) => string;
  /**
   * The tool's work is itself an LLM call (a sub-agent, describing an image): a user interrupt
   * aborts it the way it aborts the main loop's LLM request (C-2 a) — its signal fires, its result
   * says it was interrupted, and the interrupt text reaches the next round (C-2 b). Other tools
   * run to their end and the interrupt waits for the next LLM call.
   */
  interruptible?: boolean;
  /**
   * Who may have the tool called (decision 0360). `owner` (the default, also for every plugin tool
   * that does not say): only a turn of the owner — the WebUI, `waiter`, the API and MCP token
   * holders, the owner's own chat ids. `anyone`: also a turn of someone else (a group member, an
   * allowlisted person's private chat); such a tool must keep to the turn's `scope` and session.
   * A non-owner turn is not offered an owner tool, and a call to one is refused (FORBIDDEN).
   */
  audience?: 'owner' | 'anyone';
  handler: (args: Record<string, unknown>, call: ToolInvocation) => Promise<ToolOutput> | ToolOutput;
}

/** A source of tool definitions, asked again every cycle (C-5). */
export type ToolSource = () => ToolDef[];

/** Disposes a registration. Safe to call twice. */
export type Disposer = () => void;
