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
  /** Gives the read up: the reader is stopped and the call rejects with reason `cancelled`. */
  signal?: AbortSignal;
}

/**
 * The most bytes of HTML the reader takes (25 MiB, the knowledge base's file limit): a bigger
 * document is refused before it reaches the reader (`too-large`); `web_fetch`, which may download
 * more, reads the first this many bytes. What a page costs grows with its markup, not its bytes:
 * the reader's time limit and heap bound the rest.
 */
export const MAX_READABLE_HTML_BYTES = 25 * 1_048_576;

/** The code of every failure of {@link MediaService.readableHtml}; `details.reason` says which. */
export const HTML_UNREADABLE = 'HTML_UNREADABLE';

/**
 * Why an HTML document could not be read: it took longer than the reader's time limit (`timeout`),
 * needed more memory than the reader's heap (`out-of-memory`), the reader stopped otherwise
 * (`crashed`), it is over {@link MAX_READABLE_HTML_BYTES} (`too-large`), the caller's signal gave it
 * up (`cancelled`), the reader had too many pages waiting or this one waited longer than the time
 * limit (`busy`), or the reader threw (`failed`).
 */
export type HtmlReadFailure = 'timeout' | 'out-of-memory' | 'crashed' | 'too-large' | 'cancelled' | 'busy' | 'failed';

/**
 * `host.media`: the daemon's document readers for built-in plugins, which import only the SDK
 * and the contracts — the same code `src/media` uses for attachments and knowledge files.
 */
export interface MediaService {
  /**
   * An HTML document's readable text: Mozilla's Readability (the Firefox reader view) on a
   * linkedom document, its pick when it passes `options.article`, else the whole body; scripts,
   * styles, embedded objects and form controls never count.
   *
   * The daemon reads in a worker thread with its own heap and a time limit
   * (`core.media.html_timeout_ms`), never on the thread that serves chats and the WebUI: markup
   * made to stall Readability costs that worker, which is ended. A failure rejects with a
   * HomeAgentError coded {@link HTML_UNREADABLE}, `details.reason` an {@link HtmlReadFailure}.
   */
  readableHtml(bytes: Uint8Array, options?: ReadableHtmlOptions): Promise<ReadableHtml>;
}

declare module './plugin.js' {
  interface ServiceMap {
    'host.media': MediaService;
  }
}
