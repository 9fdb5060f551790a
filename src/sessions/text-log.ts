import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { HomeAgentError, ValidationError } from '../spec/index.js';
import { syncDir, writeFileAtomic } from '../fs/index.js';
import { appendDurable, scanJsonl, type JsonlLogger } from './jsonl-file.js';

/** One line of the raw conversation log (seed "Text Memory"). */
export interface TextLogRecord {
  at: number;
  role: 'user' | 'assistant' | 'system' | 'tool';
  text: string;
  sessionId?: string;
  turnId?: string;
  channel?: string;
  /** Who produced the input (user, timer, plugin …). */
  source?: string;
  data?: Record<string, unknown>;
}

export interface TextLogOptions {
  /** The current log file, usually `<home>/logs/text.jsonl`; rotated files sit beside it. */
  file: string;
  /** Rotate before an append would take the file past this size (default 16 MiB). */
  rotateBytes?: number;
  /** Rotated files kept (`text.1.jsonl` newest … `text.<keep>.jsonl` oldest; default 10). */
  keepFiles?: number;
  now?: () => number;
  logger?: JsonlLogger;
}

const RecordSchema = z.object({
  at: z.number().finite().nonnegative().optional(),
  role: z.enum(['user', 'assistant', 'system', 'tool']),
  text: z.string(),
  sessionId: z.string().max(200).optional(),
  turnId: z.string().max(300).optional(),
  channel: z.string().max(64).optional(),
  source: z.string().max(200).optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});

const LimitsSchema = z.object({ rotateBytes: z.number().int().min(1).optional(), keepFiles: z.number().int().min(1).max(10_000).optional() });

const consoleLogger: JsonlLogger = { warn: (msg, data) => console.warn(`[text-log] ${msg}`, data ?? '') };

/**
 * The raw conversation log (seed 000 "Text Memory": 原始对话 JSONL 日志，轮转策略): every
 * user and assistant message as one JSONL line, durable on resolve, rotated by size into
 * `text.1.jsonl` … `text.<keep>.jsonl` (the oldest beyond `keep` is deleted).
 */
export class TextLog {
  private readonly now: () => number;
  private readonly logger: JsonlLogger;
  private rotateBytes: number;
  private keepFiles: number;
  private size = 0;
  private chain: Promise<unknown> = Promise.resolve();
  private isOpen = false;
  private readonly dir: string;
  private readonly stem: string;
  private readonly ext: string;

  constructor(private readonly opts: TextLogOptions) {
    this.now = opts.now ?? Date.now;
    this.logger = opts.logger ?? consoleLogger;
    const limits = LimitsSchema.parse({ rotateBytes: opts.rotateBytes, keepFiles: opts.keepFiles });
    this.rotateBytes = limits.rotateBytes ?? 16 * 1024 * 1024;
    this.keepFiles = limits.keepFiles ?? 10;
    this.dir = path.dirname(opts.file);
    this.ext = path.extname(opts.file) || '.jsonl';
    this.stem = path.basename(opts.file, path.extname(opts.file));
  }

  /** Creates the folder and repairs a torn last line of the current file. Idempotent. */
  async open(): Promise<void> {
    if (this.isOpen) return;
    await fs.promises.mkdir(this.dir, { recursive: true });
    this.size = (await scanJsonl(this.opts.file, this.logger, { repair: true })).size;
    this.isOpen = true;
  }

  /** Waits for pending appends. Idempotent. */
  async close(): Promise<void> {
    if (!this.isOpen) return;
    this.isOpen = false;
    await this.chain.catch(() => undefined);
  }

  /** Changes the rotation limits (e.g. from `core.textlog.*` change events). */
  setLimits(limits: { rotateBytes?: number; keepFiles?: number }): void {
    const r = LimitsSchema.safeParse(limits);
    if (!r.success) throw new ValidationError(`invalid text log limits: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`, { key: 'limits' });
    if (r.data.rotateBytes !== undefined) this.rotateBytes = r.data.rotateBytes;
    if (r.data.keepFiles !== undefined) this.keepFiles = r.data.keepFiles;
  }

  /**
   * Appends one record (`at` defaults to now; unknown fields are dropped); durable when the
   * promise resolves. Bad records → ValidationError.
   */
  append(record: Omit<TextLogRecord, 'at'> & { at?: number }): Promise<void> {
    if (!this.isOpen) return Promise.reject(new HomeAgentError('TEXT_LOG_CLOSED', 'the text log is not open'));
    const r = RecordSchema.safeParse(record);
    if (!r.success) {
      return Promise.reject(new ValidationError(`invalid text log record: ${r.error.issues.map((i) => `${i.path.join('.') || 'record'}: ${i.message}`).join('; ')}`, { key: 'record' }));
    }
    let line: string;
    try {
      line = `${JSON.stringify({ ...r.data, at: r.data.at ?? this.now() })}\n`;
    } catch {
      return Promise.reject(new ValidationError('invalid text log record: data is not JSON-serializable', { key: 'record.data' }));
    }
    const run = this.chain.then(async () => {
      const bytes = Buffer.byteLength(line);
      if (this.size > 0 && this.size + bytes > this.rotateBytes) await this.rotate();
      await appendDurable(this.opts.file, line, this.size);
      this.size += bytes;
    });
    this.chain = run.catch(() => undefined);
    return run;
  }

  /**
   * The newest `limit` records (default 100) across the current and rotated files, oldest
   * first, optionally only those of one session.
   */
  async read(opts: { limit?: number; sessionId?: string } = {}): Promise<TextLogRecord[]> {
    const limit = opts.limit ?? 100;
    if (!Number.isInteger(limit) || limit < 1) throw new ValidationError('invalid text log read: limit must be a positive integer', { key: 'limit' });
    await this.chain.catch(() => undefined);
    const chunks: TextLogRecord[][] = [];
    let count = 0;
    for (const file of await this.files()) {
      let records = (await scanJsonl(file, this.logger)).records as unknown as TextLogRecord[];
      if (opts.sessionId !== undefined) records = records.filter((r) => r.sessionId === opts.sessionId);
      const take = records.slice(Math.max(0, records.length - (limit - count)));
      chunks.unshift(take);
      count += take.length;
      if (count >= limit) break;
    }
    return chunks.flat();
  }

  /**
   * Forget (K-2): rewrites every log file (current and rotated) atomically without the records
   * `match` selects. Appends wait for it. Returns how many records were removed.
   */
  redact(match: (r: { turnId?: string; text: string }) => boolean): Promise<number> {
    const run = this.chain.then(async () => {
      let n = 0;
      for (const file of await this.files()) {
        const { records } = await scanJsonl(file, this.logger);
        const keep = records.filter((r) => !match({ turnId: typeof r.turnId === 'string' ? r.turnId : undefined, text: typeof r.text === 'string' ? r.text : '' }));
        if (keep.length === records.length) continue;
        n += records.length - keep.length;
        const body = keep.map((r) => `${JSON.stringify(r)}\n`).join('');
        await writeFileAtomic(file, body);
        if (file === this.opts.file) this.size = Buffer.byteLength(body);
      }
      return n;
    });
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Existing log files, newest first: the current file, then `<stem>.1<ext>`, `<stem>.2<ext>` … */
  async files(): Promise<string[]> {
    const rotated = await this.rotatedFiles();
    const out = fs.existsSync(this.opts.file) ? [this.opts.file] : [];
    return out.concat(rotated.map((r) => r.file));
  }

  private rotatedPath(n: number): string {
    return path.join(this.dir, `${this.stem}.${n}${this.ext}`);
  }

  private async rotatedFiles(): Promise<{ n: number; file: string }[]> {
    const re = new RegExp(`^${escapeRe(this.stem)}\\.(\\d+)${escapeRe(this.ext)}$`);
    let names: string[];
    try {
      names = await fs.promises.readdir(this.dir);
    } catch {
      return [];
    }
    return names
      .map((name) => ({ m: re.exec(name), name }))
      .filter((x): x is { m: RegExpExecArray; name: string } => x.m !== null && Number(x.m[1]) >= 1)
      .map((x) => ({ n: Number(x.m[1]), file: path.join(this.dir, x.name) }))
      .sort((a, b) => a.n - b.n);
  }

  /** current → .1, .1 → .2 …; files past `keepFiles` are deleted. */
  private async rotate(): Promise<void> {
    const rotated = await this.rotatedFiles();
    for (const { n, file } of [...rotated].reverse()) {
      if (n >= this.keepFiles) await fs.promises.rm(file, { force: true });
      else await fs.promises.rename(file, this.rotatedPath(n + 1));
    }
    await fs.promises.rename(this.opts.file, this.rotatedPath(1));
    await syncDir(this.dir);
    this.size = 0;
  }
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
