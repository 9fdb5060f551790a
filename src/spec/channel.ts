/** Output channel capability flags (P-6). */
export const Cap = { Text: 1, File: 2, Image: 4, Audio: 8, Structured: 16 } as const;
export type CapName = keyof typeof Cap;

/** One message sent through an output channel. */
export interface OutputMessage {
  sessionId: string;
  turnId?: string;
  /** The text, or a path/URL/base64 for other types. */
  payload: string;
  type: 'text' | 'file' | 'image' | 'audio' | 'structured';
  /**
   * Routing metadata. Set by the kernel: `status` on a turn's final reply; `proactive: true` (and
   * `source`) on a message nobody in this channel asked for — a timer's result, a notice — which a
   * chat channel delivers to its owner's chat when `sessionId` is not one of its own chats.
   */
  meta: Record<string, unknown>;
}

export interface OutputChannelOptions {
  /** Longest single message; longer text is split (P-6). */
  maxMessageLength?: number;
  /** Text returned by `output_send__{name}_help`. */
  help?: string;
  /**
   * The channel reaches its chats without being asked (a chat app: Telegram, QQ). A proactive
   * reply (timer, notice) whose session belongs to such a channel is delivered there; otherwise it
   * goes to the owner's default channel (`core.notify.channel`).
   */
  push?: boolean;
}

export type OutputHandler = (msg: OutputMessage) => void | Promise<void>;

export interface OutputChannel {
  name: string;
  caps: number;
  description: string;
  handler: OutputHandler;
  options: OutputChannelOptions;
  plugin: string;
}
