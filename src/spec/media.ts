import type { MessageAttachment } from './provider.js';

/** What an attachment is, as far as reading it goes (C-11). */
export type AttachmentKind = 'text' | 'pdf' | 'image' | 'audio' | 'other';

/** An attachment kept in the data folder (`media/<date>/<name>`). */
export interface StoredAttachment {
  name: string;
  mimeType: string;
  bytes: number;
  kind: AttachmentKind;
  /** Where it is kept, relative to the data folder. */
  path: string;
}

/** What the model gets of a message's attachments. */
export interface PreparedAttachments {
  /** Blocks appended to the person's message: each file's text within the budget, or a note. */
  text: string;
  /** Images, for vision-capable models. */
  images: MessageAttachment[];
}

/**
 * Attachments sent to the agent (C-11): kept in the data folder when the message is recorded,
 * then read for the model — text, Markdown and code as text, PDF through its text layer, audio
 * transcribed when an LLM source offers speech to text — within a character budget.
 */
export interface AttachmentPort {
  store(attachments: MessageAttachment[], ctx: { sessionId: string; turnId: string }): Promise<StoredAttachment[]>;
  prepare(attachments: MessageAttachment[], stored: StoredAttachment[], ctx: { signal?: AbortSignal }): Promise<PreparedAttachments>;
}

/** Speech to text of one audio file. */
export interface Transcription {
  text: string;
  /** The LLM source and model that transcribed it. */
  source: string;
  model: string;
}
