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
  handler: (args: Record<string, unknown>, call: ToolInvocation) => Promise<ToolOutput> | ToolOutput;
}

/** A source of tool definitions, asked again every cycle (C-5). */
export type ToolSource = () => ToolDef[];

/** Disposes a registration. Safe to call twice. */
export type Disposer = () => void;
