import { extname } from 'node:path';
import { HTML_UNREADABLE, isHomeAgentError, KnowledgeFileError, MAX_KNOWLEDGE_BYTES, MAX_KNOWLEDGE_FILE_BYTES, type HtmlReadFailure, type MediaService } from '../spec/index.js';
import { attachmentKind, looksLikeText } from './attachment-kind.js';
import { decodeText } from './text-decode.js';
import { extractPdfText } from './pdf-text.js';
import { PdfReadError, type PdfReadFailure } from './pdf-read-error.js';
import type { PdfReader } from './pdf-reader.js';
import { readableHtml } from './html-reader.js';

/** How a file was read: as text (Markdown, plain text, code), a PDF's text layer, or HTML made readable. */
export type KnowledgeFileKind = 'text' | 'pdf' | 'html';

/** The text of a file for the knowledge base, and what it was read as. */
export interface KnowledgeFileText {
  kind: KnowledgeFileKind;
  text: string;
  /** Pages of a PDF. */
  pages?: number;
}

/** The file as it came: its name (for its kind and for messages) and, over HTTP, its media type. */
export interface KnowledgeFileSource {
  /** The name the person knows it by (`体检报告.pdf`, `./notes/a.md`): said in every refusal. */
  name: string;
  mimeType?: string;
}

/** How a file is read: by default through this process's shared readers (`readableHtml`, 15 s a page; `extractPdfText`, 60 s a PDF). */
export interface KnowledgeFileOptions {
  /** The HTML reader: the daemon's follows `core.media.html_timeout_ms`. */
  html?: MediaService;
  /** The PDF reader: the daemon's follows `core.media.pdf_timeout_ms`. */
  pdf?: Pick<PdfReader, 'read'>;
}

/** What the knowledge base reads, as said in a refusal and offered by the WebUI's file picker. */
export const KNOWLEDGE_FILE_EXTENSIONS = ['.md', '.txt', '.pdf', '.html', '.htm'] as const;

const HTML_EXT = new Set(['html', 'htm', 'xhtml']);
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
/** Kept as written even when they hold HTML: a note about HTML is still a note. */
const TEXT_NOT_HTML = new Set(['md', 'markdown', 'txt', 'text']);
/**
 * A file someone keeps is often a whole document rather than an article inside a page of menus:
 * the reader view's pick is taken only when it holds most of the page's text (70 %), otherwise the
 * whole body is kept — a smaller entry is not worth losing a section the reader view took for clutter.
 */
const WHOLE_DOCUMENT = { minChars: 1, minShare: 0.7 };
const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;
const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;

/** Why a file was not read, for the failures both readers share (the worker pool's, decision 0630). */
function poolWhy(reason: string, details: Record<string, unknown>, setting: string): string | undefined {
  switch (reason) {
    case 'timeout':
      return `reading it took longer than ${seconds(Number(details.timeoutMs))} (${setting})`;
    case 'out-of-memory':
      return 'it needs more memory than the reader has';
    case 'cancelled':
      return 'reading it was cancelled';
    case 'busy':
      return 'the reader was busy with other files; try again in a moment';
    default:
      return undefined;
  }
}

/** Why an HTML file was not read, in the words of a refusal. */
function htmlWhy(reason: HtmlReadFailure, details: Record<string, unknown>): string {
  return poolWhy(reason, details, 'core.media.html_timeout_ms') ?? 'the reader failed on it';
}

/** Why a PDF was not read, in the words of a refusal. */
function pdfWhy(reason: PdfReadFailure, details: Record<string, unknown>): string {
  if (reason === 'password') return 'it is password-protected';
  if (reason === 'invalid') return 'it is damaged or not a PDF';
  return poolWhy(reason, details, 'core.media.pdf_timeout_ms') ?? 'pdf.js failed on it';
}

/** True when bytes are not text: a NUL in the first 8 KiB (UTF-16 with its BOM is text). */
function binary(bytes: Uint8Array): boolean {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) return false;
  return bytes.subarray(0, 8192).includes(0);
}

/** The file opens like an HTML document. */
function looksLikeHtml(bytes: Uint8Array): boolean {
  return /^(\uFEFF|\xEF\xBB\xBF)?\s*(<!doctype html|<html[\s>])/i.test(Buffer.from(bytes.subarray(0, 512)).toString('latin1'));
}

/** What a file is, from its first bytes, its media type and its name; undefined when it is not one the knowledge base reads. */
function kindOf(bytes: Uint8Array, file: KnowledgeFileSource): KnowledgeFileKind | undefined {
  // The bytes win over the name: a PDF saved as .txt is still a PDF.
  if (Buffer.from(bytes.subarray(0, 8)).toString('latin1').startsWith('%PDF-')) return 'pdf';
  const mime = (file.mimeType ?? '').toLowerCase().split(';')[0].trim();
  const ext = extname(file.name.toLowerCase().split(/[\\/]/).pop() ?? '').slice(1);
  // An upload typed application/octet-stream is judged by its name (and bytes), as attachments are.
  const byName = attachmentKind(mime === 'application/octet-stream' ? '' : mime, file.name);
  if (byName === 'pdf') return 'pdf';
  if (HTML_EXT.has(ext) || HTML_TYPES.has(mime)) return binary(bytes) ? undefined : 'html';
  // A text type or extension says text, and the bytes must agree: an image renamed .txt is refused.
  if (byName === 'text') return binary(bytes) ? undefined : !TEXT_NOT_HTML.has(ext) && looksLikeHtml(bytes) ? 'html' : 'text';
  // No name or type that says: text only when the bytes plainly are (valid UTF-8, no NUL).
  if (byName === 'other' && looksLikeText(bytes)) return looksLikeHtml(bytes) ? 'html' : 'text';
  return undefined;
}

/**
 * The text of a file for the knowledge base — one reader for `waiter knowledge put` (on the
 * person's machine) and the WebUI's upload (in the daemon): Markdown, plain text and code decoded
 * (UTF-8, UTF-16 with a BOM, GB18030), a PDF's text layer through pdf.js in a worker, HTML as
 * readable text without scripts or styles. Anything else is a {@link KnowledgeFileError}, as is a
 * file without text (a scanned PDF) or one whose text is over {@link MAX_KNOWLEDGE_BYTES}, and a PDF
 * or HTML page the reader could not read in time: nothing is cut or stored half.
 *
 * @example
 * const { text } = await knowledgeFileText(readFileSync('体检报告.pdf'), { name: '体检报告.pdf' });
 */
export async function knowledgeFileText(bytes: Uint8Array, file: KnowledgeFileSource, opts: KnowledgeFileOptions = {}): Promise<KnowledgeFileText> {
  const name = file.name;
  if (bytes.length > MAX_KNOWLEDGE_FILE_BYTES) {
    throw KnowledgeFileError.fileTooLarge(name);
  }
  const kind = kindOf(bytes, file);
  if (!kind) {
    throw new KnowledgeFileError('KNOWLEDGE_FILE_UNSUPPORTED', `${name} is not a file the knowledge base can read: add Markdown, plain text, PDF or HTML (${KNOWLEDGE_FILE_EXTENSIONS.join(', ')})`, { file: name, accepted: [...KNOWLEDGE_FILE_EXTENSIONS] });
  }
  let text: string;
  let pages: number | undefined;
  if (kind === 'pdf') {
    try {
      // Every page, until the text is known to be too long: a knowledge entry is never a cut text.
      const read = { maxPages: 100_000, maxChars: MAX_KNOWLEDGE_BYTES + 1 };
      const pdf = await (opts.pdf ? opts.pdf.read(bytes, read) : extractPdfText(bytes, read));
      text = pdf.text;
      pages = pdf.pages;
    } catch (e) {
      if (!(e instanceof PdfReadError)) throw e;
      throw new KnowledgeFileError('KNOWLEDGE_FILE_UNREADABLE', `${name} could not be read as a PDF: ${pdfWhy(e.reason, e.details)}`, { file: name, kind: 'pdf', reason: e.reason, cause: e.message }, e);
    }
  } else if (kind === 'html') {
    const read = { article: WHOLE_DOCUMENT };
    const page = await (opts.html ? opts.html.readableHtml(bytes, read) : readableHtml(bytes, read)).catch((e: unknown) => {
      if (!isHomeAgentError(e) || e.code !== HTML_UNREADABLE) throw e;
      const reason = e.details.reason as HtmlReadFailure;
      throw new KnowledgeFileError('KNOWLEDGE_FILE_UNREADABLE', `${name} could not be read as HTML: ${htmlWhy(reason, e.details)}`, { file: name, kind: 'html', reason, cause: e.message }, e);
    });
    // The title is the document's name in a browser's tab: keep it as the heading unless the text opens with it.
    text = page.title && !page.text.slice(0, page.title.length + 20).includes(page.title) ? `# ${page.title}\n\n${page.text}` : page.text;
  } else {
    text = decodeText(bytes);
  }
  text = text.replace(/^\uFEFF/, '').replace(/[ \t]+$/gm, '').replace(/^\n+|\s+$/g, '');
  if (!text.trim()) {
    const why = kind === 'pdf' ? `${name} has no text to read: its pages are pictures only (a scan); nothing was stored` : `${name} has no text; nothing was stored`;
    throw new KnowledgeFileError('KNOWLEDGE_FILE_EMPTY', why, { file: name, kind, ...(pages !== undefined ? { pages } : {}) });
  }
  const size = Buffer.byteLength(text, 'utf8');
  if (size > MAX_KNOWLEDGE_BYTES) {
    throw new KnowledgeFileError('KNOWLEDGE_FILE_TOO_LARGE', `${kind === 'text' ? '' : 'the text of '}${name} is ${mb(size)}; a knowledge entry holds at most ${MAX_KNOWLEDGE_BYTES / 1_048_576} MB`, { file: name, bytes: size, limitBytes: MAX_KNOWLEDGE_BYTES });
  }
  return { kind, text, ...(pages !== undefined ? { pages } : {}) };
}
