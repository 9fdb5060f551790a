import { readFileSync, statSync } from 'node:fs';
import { HomeAgentError, KnowledgeFileError, MAX_KNOWLEDGE_FILE_BYTES } from '../spec/index.js';
import type { KnowledgeFileText } from '../media/index.js';

/**
 * The text of the file `waiter knowledge put` names (`-`: standard input), read on this machine by
 * the knowledge base's own reader (src/media): Markdown and text decoded, a PDF's text layer, HTML
 * as readable text. Refusals are {@link KnowledgeFileError}s naming the file as it was typed; a
 * file that cannot be opened is a `FILE_NOT_READ` error saying so. The reader (pdf.js, Readability) loads only here,
 * in a worker thread; HTML within `htmlTimeoutMs` (the daemon's `core.media.html_timeout_ms`; default 15 s), a PDF
 * within `pdfTimeoutMs` (`core.media.pdf_timeout_ms`; default 60 s).
 */
export async function readKnowledgeFile(file: string, opts: { htmlTimeoutMs?: number; pdfTimeoutMs?: number } = {}): Promise<KnowledgeFileText> {
  const name = file === '-' ? 'the input' : file;
  let bytes: Buffer;
  try {
    // Said before reading a file bigger than any the knowledge base takes (a video, a disk image).
    const st = file !== '-' ? statSync(file) : undefined;
    if (st?.isDirectory()) throw new HomeAgentError('FILE_NOT_READ', `${name} is a folder: add its files one at a time, each under its own name — e.g. for f in ${name.replace(/\/+$/, '')}/*.md; do waiter knowledge put "$(basename "$f" .md)" "$f"; done`);
    if (st && st.size > MAX_KNOWLEDGE_FILE_BYTES) throw KnowledgeFileError.fileTooLarge(name);
    bytes = readFileSync(file === '-' ? 0 : file);
  } catch (e) {
    if (e instanceof KnowledgeFileError || (e as { code?: string }).code === 'FILE_NOT_READ') throw e;
    throw new HomeAgentError('FILE_NOT_READ', `cannot read ${name}: ${(e as Error).message}`, { cause: e });
  }
  const { HtmlReader, PdfReader, knowledgeFileText } = await import('../media/index.js');
  // HTML and PDF are read in a worker within the daemon's time limits (core.media.html_timeout_ms,
  // core.media.pdf_timeout_ms), as an upload is.
  const html = new HtmlReader({ timeoutMs: opts.htmlTimeoutMs, maxWorkers: 1 });
  const pdf = new PdfReader({ timeoutMs: opts.pdfTimeoutMs, maxWorkers: 1 });
  try {
    return await knowledgeFileText(bytes, { name }, { html, pdf });
  } finally {
    await Promise.all([html.stop(), pdf.stop()]);
  }
}

/** What `waiter knowledge put` prints: the entry's name, what the file was read as, its size in characters and its first line — not the whole text. */
export function knowledgePutSummary(name: string, read: KnowledgeFileText): { name: string; read: string; characters: number; firstLine: string } {
  const first = read.text.split('\n', 1)[0].trim();
  const chars = [...first];
  return {
    name,
    read: read.kind === 'pdf' ? `PDF, ${read.pages ?? 0} page${read.pages === 1 ? '' : 's'}` : read.kind === 'html' ? 'HTML (as readable text)' : 'text',
    characters: [...read.text].length,
    firstLine: chars.length > 80 ? `${chars.slice(0, 79).join('')}…` : first,
  };
}
