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
  meta: Record<string, unknown>;
}

export interface OutputChannelOptions {
  /** Longest single message; longer text is split (P-6). */
  maxMessageLength?: number;
  /** Text returned by `output_send__{name}_help`. */
  help?: string;
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
