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

/** The readable text of an HTML page or file, as {@link MediaService.readableHtml} gives it. */
export interface ReadableHtml {
  /** The reader view's title, else the page's `<title>`, on one line; `''` when there is none. */
  title: string;
  /**
   * Light Markdown: headings as `#`, paragraphs apart, list items as `- `, table rows as
   * `| a | b |`, preformatted blocks fenced as written, http(s) links as `[text](url)`.
   */
  text: string;
  /** `article` when the reader view's pick was kept, `page` for the whole body. */
  mode: 'article' | 'page';
}

/** Where a page came from and when its main article is enough. */
export interface ReadableHtmlOptions {
  /**
   * The charset its transport declared (an HTTP `Content-Type`'s): it wins over the page's own
   * `<meta charset>`; a byte-order mark wins over both.
   */
  charset?: string;
  /** The page's URL: relative links resolve against it. Without one (a local file) only absolute http(s) links are kept. */
  baseUrl?: string;
  /**
   * When the reader view's pick is taken instead of the whole page: it has at least `minChars`
   * characters (default 80) and at least `minShare` of the page's letters (default 0).
   */
  article?: { minChars?: number; minShare?: number };
}

/**
 * `host.media`: the daemon's document readers for built-in plugins, which import only the SDK
 * and the contracts — the same code `src/media` uses for attachments and knowledge files.
 */
export interface MediaService {
  /**
   * An HTML document's readable text: Mozilla's Readability (the Firefox reader view) on a
   * linkedom document, its pick when it passes `options.article`, else the whole body; scripts,
   * styles, embedded objects and form controls never count.
   */
  readableHtml(bytes: Uint8Array, options?: ReadableHtmlOptions): Promise<ReadableHtml>;
}

declare module './plugin.js' {
  interface ServiceMap {
    'host.media': MediaService;
  }
}
