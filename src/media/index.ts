/**
 * Attachments (C-11): kept in the data folder and read for the model — text, Markdown, code,
 * PDF, audio transcripts — within a budget. The kernel sees it as an `AttachmentPort`.
 * The same readers give the text of a file for the knowledge base (`knowledgeFileText`), and HTML
 * made readable (`readableHtml`) to `web_fetch` as the daemon's `host.media` service — in worker
 * threads with a time limit (`HtmlReader`), as PDFs are (`PdfReader`); both on `WorkerPool`.
 */
export { AttachmentReader, safeFileName, type AttachmentReaderOptions, type Transcriber } from './attachment-reader.js';
export { attachmentKind, looksLikeText } from './attachment-kind.js';
export { decodeText } from './text-decode.js';
export { extractPdfText } from './pdf-text.js';
export { PdfReader, DEFAULT_PDF_TIMEOUT_MS, type PdfReaderOptions, type PdfTextOptions } from './pdf-reader.js';
export type { PdfText } from './pdf-text-worker.js';
export { PdfReadError, type PdfReadFailure } from './pdf-read-error.js';
export { readableHtml, HtmlReader, DEFAULT_HTML_TIMEOUT_MS, type HtmlReaderOptions } from './html-reader.js';
export { HtmlReadError } from './html-read-error.js';
export { knowledgeFileText, KNOWLEDGE_FILE_EXTENSIONS, type KnowledgeFileKind, type KnowledgeFileSource, type KnowledgeFileText } from './knowledge-file-text.js';
