import { mkdirSync, rmSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { reserveUniquePath, writeFileAtomic } from '../fs/index.js';
import type { AttachmentPort, ConfigReader, MessageAttachment, PreparedAttachments, StoredAttachment, Transcription } from '../spec/index.js';
import { attachmentKind, looksLikeText } from './attachment-kind.js';
import { decodeText } from './text-decode.js';
import { extractPdfText } from './pdf-text.js';
import type { PdfReader } from './pdf-reader.js';

/** Speech to text; throws when no source offers it (code `NO_TRANSCRIBER`) or the call fails. */
export type Transcriber = (audio: { data: Uint8Array; name: string; mimeType: string }, signal?: AbortSignal) => Promise<Transcription>;

export interface AttachmentReaderOptions {
  /** The data folder: attachments are kept in `<home>/media/<yyyy-mm-dd>/`. */
  homeDir: string;
  config?: ConfigReader;
  log?: { info(msg: string, data?: Record<string, unknown>): void; warn(msg: string, data?: Record<string, unknown>): void };
  transcribe?: Transcriber;
  /** The PDF reader (default: the one this process shares, 60 s a PDF); the daemon's follows `core.media.pdf_timeout_ms`. */
  pdf?: Pick<PdfReader, 'read'>;
  now?: () => number;
}

const EXT: Record<string, string> = { 'image/png': '.png', 'image/jpeg': '.jpg', 'image/gif': '.gif', 'image/webp': '.webp', 'audio/mpeg': '.mp3', 'audio/wav': '.wav', 'audio/ogg': '.ogg', 'audio/webm': '.webm', 'audio/mp4': '.m4a', 'application/pdf': '.pdf', 'text/plain': '.txt', 'text/markdown': '.md' };

/** A file name safe in any folder: no path, no control or reserved characters, at most 120 characters. */
export function safeFileName(name: string | undefined, fallback: string): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const clean = base.replace(/[\u0000-\u001f\u007f<>:"|?*]/g, '_').replace(/^[.\s]+/, '').trim();
  const out = [...(clean || fallback)].slice(0, 120).join('');
  return out || fallback;
}

const num = (n: number) => n.toLocaleString('en-US');

interface Readout {
  index: number;
  stored: StoredAttachment;
  /** Header facts after the name (kind, size, pages …). */
  facts: string;
  /** Text for the model (file text, transcript), cut to the budget later. */
  text?: string;
  /** What the model is told instead of (or after) the text. */
  note?: string;
}

/**
 * Keeps attachments in the data folder and reads them for the model (C-11, issue 14): text,
 * Markdown and code files as text (UTF-8, UTF-16 or GB18030), PDF through pdf.js in a worker,
 * audio transcribed by an LLM source that offers speech to text (else the model is told it
 * could not be), images passed on for vision. All text shares one budget
 * (`core.media.text_budget_chars`), split fairly so a huge file does not crowd out a small one;
 * what is cut says so and where the whole file is.
 */
export class AttachmentReader implements AttachmentPort {
  private readonly now: () => number;

  constructor(private readonly opts: AttachmentReaderOptions) {
    this.now = opts.now ?? Date.now;
  }

  async store(attachments: MessageAttachment[], _ctx: { sessionId: string; turnId: string }): Promise<StoredAttachment[]> {
    const day = new Date(this.now()).toISOString().slice(0, 10);
    const dir = join(this.opts.homeDir, 'media', day);
    const out: StoredAttachment[] = [];
    for (const [i, a] of attachments.entries()) {
      const bytes = Buffer.from(a.data, 'base64');
      let kind = attachmentKind(a.mimeType, a.name);
      if (kind === 'other' && looksLikeText(bytes)) kind = 'text';
      let name = safeFileName(a.name, `attachment-${i + 1}`);
      if (!extname(name) && EXT[a.mimeType]) name += EXT[a.mimeType];
      let path = '';
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        const file = reserveUniquePath(dir, name);
        try {
          await writeFileAtomic(file, bytes);
        } catch (e) {
          rmSync(file, { force: true });
          throw e;
        }
        path = relative(this.opts.homeDir, file);
      } catch (e) {
        this.opts.log?.warn(`could not keep attachment ${name}: ${(e as Error).message}`);
      }
      out.push({ name, mimeType: a.mimeType, bytes: bytes.length, kind, path });
    }
    return out;
  }

  async prepare(attachments: MessageAttachment[], stored: StoredAttachment[], ctx: { signal?: AbortSignal } = {}): Promise<PreparedAttachments> {
    if (!attachments.length) return { text: '', images: [] };
    const kept = stored.length === attachments.length ? stored : await this.store(attachments, { sessionId: '', turnId: '' });
    const images: MessageAttachment[] = [];
    const reads: Readout[] = [];
    for (const [i, a] of attachments.entries()) {
      const s = kept[i];
      const r = await this.read(a, s, i, ctx.signal);
      if (s.kind === 'image') images.push(a);
      reads.push(r);
    }
    this.share(reads);
    const total = attachments.length;
    const blocks = reads.map((r) => {
      const where = r.stored.path ? `kept at ${r.stored.path}` : 'could not be kept in the data folder';
      const head = `[Attachment ${total > 1 ? `${r.index + 1}/${total}: ` : ''}${r.stored.name} — ${r.facts}; ${where}]`;
      const body = r.text !== undefined && r.text !== '' ? `\n----- begin ${r.stored.name} -----\n${r.text.replace(/\s+$/, '')}\n----- end ${r.stored.name} -----` : '';
      return head + body + (r.note ? `\n[${r.note}]` : '');
    });
    return { text: blocks.join('\n\n'), images };
  }

  private budget(): number {
    try {
      const v = this.opts.config?.get<number>('core.media.text_budget_chars');
      if (typeof v === 'number' && v >= 0) return v;
    } catch {}
    return 24_000;
  }

  private maxPdfPages(): number {
    try {
      const v = this.opts.config?.get<number>('core.media.max_pdf_pages');
      if (typeof v === 'number' && v >= 1) return v;
    } catch {}
    return 200;
  }

  private async read(a: MessageAttachment, s: StoredAttachment, index: number, signal?: AbortSignal): Promise<Readout> {
    const bytes = Buffer.from(a.data, 'base64');
    const size = bytes.length < 1024 ? `${bytes.length} bytes` : bytes.length < 1024 * 1024 ? `${(bytes.length / 1024).toFixed(1)} KiB` : `${(bytes.length / 1024 / 1024).toFixed(1)} MiB`;
    switch (s.kind) {
      case 'text': {
        const text = decodeText(bytes);
        return { index, stored: s, facts: `text (${s.mimeType}), ${num(text.length)} characters`, text };
      }
      case 'pdf': {
        try {
          // In a worker within the time limit; the turn's stop gives the read up.
          const read = { maxPages: this.maxPdfPages(), maxChars: Math.max(this.budget() * 2, 10_000), signal };
          const pdf = await (this.opts.pdf ? this.opts.pdf.read(bytes, read) : extractPdfText(bytes, read));
          const pages = `${pdf.pages} page${pdf.pages === 1 ? '' : 's'}${pdf.read < pdf.pages ? ` (the first ${pdf.read} read)` : ''}`;
          if (!pdf.text.trim()) return { index, stored: s, facts: `PDF, ${pages}, no text layer (a scan or images only)`, note: 'Its pages have no text to read; say so if the person asks about its content.' };
          return { index, stored: s, facts: `PDF, ${pages}, ${num(pdf.text.length)} characters of text`, text: pdf.text };
        } catch (e) {
          this.opts.log?.warn(`attachment ${s.name}: ${(e as Error).message}`);
          return { index, stored: s, facts: `PDF, ${size}`, note: `It could not be read: ${(e as Error).message}. Tell the person.` };
        }
      }
      case 'audio': {
        if (!this.opts.transcribe) return { index, stored: s, facts: `audio (${s.mimeType}), ${size}`, note: noTranscriber };
        try {
          const t = await this.opts.transcribe({ data: bytes, name: s.name, mimeType: s.mimeType }, signal);
          return { index, stored: s, facts: `audio (${s.mimeType}), ${size}, transcribed by ${t.source} (${t.model})`, text: t.text.trim() || '(no speech recognised)' };
        } catch (e) {
          if ((e as { code?: string }).code === 'NO_TRANSCRIBER') return { index, stored: s, facts: `audio (${s.mimeType}), ${size}`, note: noTranscriber };
          this.opts.log?.warn(`transcribing ${s.name} failed: ${(e as Error).message}`);
          return { index, stored: s, facts: `audio (${s.mimeType}), ${size}`, note: `It could not be transcribed: ${(e as Error).message}. Tell the person the recording was kept but not transcribed.` };
        }
      }
      case 'image':
        return { index, stored: s, facts: `image (${s.mimeType}), ${size}, attached for viewing` };
      default:
        return { index, stored: s, facts: `${s.mimeType}, ${size}`, note: 'Its content cannot be read here (not text, PDF, audio or an image).' };
    }
  }

  /** Cuts the texts to the budget, fairly: the shortest first, each to at most an even share of what is left. */
  private share(reads: Readout[]): void {
    const withText = reads.filter((r) => r.text !== undefined).sort((a, b) => a.text!.length - b.text!.length);
    let left = this.budget();
    for (const [i, r] of withText.entries()) {
      const share = Math.floor(left / (withText.length - i));
      const text = r.text!;
      if (text.length <= share) {
        left -= text.length;
        continue;
      }
      // Cut at a line break near the share when there is one, so a line is not split.
      let cut = text.slice(0, share);
      const nl = cut.lastIndexOf('\n');
      if (nl > share * 0.8) cut = cut.slice(0, nl);
      left -= cut.length;
      r.text = cut;
      const rest = text.length - cut.length;
      const more = `${num(rest)} more characters of ${r.stored.name} are not shown (the attachment budget, core.media.text_budget_chars, is ${num(this.budget())})`;
      r.note = r.stored.path ? `${more}; the whole file is kept at ${r.stored.path}.` : `${more}.`;
    }
  }
}

const noTranscriber =
  'It was not transcribed: no configured LLM source offers speech to text. Tell the person the recording was kept but could not be transcribed, and that an OpenAI-compatible source with a speech-to-text model (core.media.transcription.source / .model, e.g. the openai source with whisper-1) makes it work.';
