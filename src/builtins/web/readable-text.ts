import { HTML_UNREADABLE, MAX_READABLE_HTML_BYTES, isHomeAgentError, type MediaService } from '../../spec/index.js';
import { WebError } from './web-error.js';

/** A page as the model reads it. */
export interface ReadablePage {
  title: string;
  text: string;
  /** `article` when the reader view found the main content, `page` for the whole body, `text` for non-HTML. */
  mode: 'article' | 'page' | 'text';
  /** Only this many bytes of an HTML page went to the reader (the most it takes). */
  readBytes?: number;
}

const TEXT_TYPES = /^(text\/(plain|markdown|x-markdown|csv|xml)|application\/(json|xml|ld\+json|rss\+xml|atom\+xml)|[a-z]+\/[a-z0-9.+-]+\+json)$/;
const HTML_TYPES = /^(text\/html|application\/xhtml\+xml)$/;

/** The charset a `Content-Type` header names, if any. */
function headerCharset(contentType: string): string | undefined {
  return /charset=["']?([\w.:-]+)/i.exec(contentType)?.[1];
}

/** A text body's charset: the Content-Type's, else a `<meta charset>` near the top, else UTF-8. */
function decodeTextBody(body: Buffer, contentType: string): string {
  const charset = headerCharset(contentType) ?? /<meta[^>]+charset=["']?([\w.:-]+)/i.exec(body.subarray(0, 4096).toString('latin1'))?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

/**
 * What the model is told when the reader gave a page up (`HTML_UNREADABLE`, by its reason): not in
 * time — the reader's time limit, which a page can be built to exceed — or not at all.
 */
function readerFailure(e: unknown, url: string): unknown {
  if (!isHomeAgentError(e) || e.code !== HTML_UNREADABLE) return e;
  const where = url.slice(0, 300);
  const details = { url: where, reason: e.details.reason };
  switch (e.details.reason) {
    case 'timeout':
      return new WebError('WEB_PAGE_UNREADABLE', `${where} could not be read in time: turning its HTML into text took longer than ${Number(e.details.timeoutMs) / 1000} s and was stopped; try another page or source`, details, e);
    case 'out-of-memory':
      return new WebError('WEB_PAGE_UNREADABLE', `${where} could not be read: its HTML needs more memory than the reader has`, details, e);
    case 'cancelled':
      return new WebError('WEB_PAGE_UNREADABLE', `reading ${where} was cancelled`, details, e);
    default:
      return new WebError('WEB_PAGE_UNREADABLE', `${where} could not be read: ${e.message}`, details, e);
  }
}

/**
 * A fetched body as readable text: HTML through the daemon's one HTML reader (`host.media`:
 * Readability on linkedom, in a worker thread within a time limit — the main article when it
 * finds one, else the whole body without scripts and styles); text types as they are. Anything
 * else (images, PDFs, archives) is refused. A page the reader gives up is a `WEB_PAGE_UNREADABLE`.
 */
export async function toReadable(body: Buffer, contentType: string, url: string, media: MediaService | undefined, signal?: AbortSignal): Promise<ReadablePage> {
  const type = contentType.split(';')[0].trim().toLowerCase();
  const sniffHtml = !type && /^\s*(<!doctype html|<html|<head|<body|<p|<div)/i.test(body.subarray(0, 512).toString('latin1'));
  if (HTML_TYPES.test(type) || sniffHtml) {
    if (!media) throw new WebError('WEB_READER_UNAVAILABLE', 'this host offers no HTML reader (host.media), so web_fetch cannot read HTML pages here');
    // The reader refuses more than it takes; a page downloaded past that is read as far as it goes.
    const cut = body.length > MAX_READABLE_HTML_BYTES;
    try {
      const page = await media.readableHtml(cut ? body.subarray(0, MAX_READABLE_HTML_BYTES) : body, { charset: headerCharset(contentType), baseUrl: url, signal });
      return cut ? { ...page, readBytes: MAX_READABLE_HTML_BYTES } : page;
    } catch (e) {
      throw readerFailure(e, url);
    }
  }
  if (TEXT_TYPES.test(type) || (!type && !body.subarray(0, 1024).includes(0))) return { title: '', text: decodeTextBody(body, contentType).trim(), mode: 'text' };
  throw new WebError('WEB_UNSUPPORTED_CONTENT', `${type || 'binary content'} cannot be read as text (web_fetch reads HTML and text pages)`, { contentType: type });
}
