import fs from 'node:fs';
import path from 'node:path';
import { syncDir } from '../fs/index.js';

/** Where JSONL helpers report skipped or repaired lines. */
export interface JsonlLogger {
  warn(msg: string, data?: Record<string, unknown>): void;
  /** Data that needs the person's attention (a log moved aside); `warn` when absent. */
  error?(msg: string, data?: Record<string, unknown>): void;
}

export interface JsonlScan {
  /** Parsed objects of every valid line, in file order. */
  records: Record<string, unknown>[];
  /** File size after any repair. */
  size: number;
  /** Byte offset of each record's line (parallel to `records`). */
  offsets: number[];
  /** With `repair`: the torn last line, and whether it was cut off (not when nothing else was readable). */
  torn?: { bytes: Buffer; cut: boolean };
}

/**
 * Reads a JSONL file. Lines that are not JSON objects are skipped with a warning (and stay in the
 * file). With `repair`, a torn last line (no trailing newline, e.g. after a kill mid-write) is
 * completed when it parses, otherwise cut off so the next append starts on a clean line. What is
 * cut was never acknowledged (an append is acknowledged only after its fdatasync, newline
 * included), so nothing promised is lost; a file with no readable line is not cut at all — the
 * caller decides about it whole (the session store moves it aside).
 */
export async function scanJsonl(file: string, logger: JsonlLogger, opts: { repair?: boolean } = {}): Promise<JsonlScan> {
  let buf: Buffer;
  try {
    buf = await fs.promises.readFile(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], size: 0, offsets: [] };
    throw e;
  }
  const records: Record<string, unknown>[] = [];
  const offsets: number[] = [];
  let start = 0;
  let lineNo = 0;
  while (start < buf.length) {
    const nl = buf.indexOf(0x0a, start);
    const end = nl === -1 ? buf.length : nl;
    lineNo++;
    const text = buf.toString('utf8', start, end);
    const parsed = parseObject(text);
    if (nl === -1) {
      // torn tail
      if (parsed) {
        records.push(parsed);
        offsets.push(start);
      }
      if (opts.repair) {
        if (parsed) {
          await fs.promises.appendFile(file, '\n');
          logger.warn('completed a JSONL line without newline', { file: path.basename(file), line: lineNo });
          return { records, size: buf.length + 1, offsets };
        }
        const bytes = buf.subarray(start);
        if (!records.length) return { records, size: start, offsets, torn: { bytes, cut: false } };
        await fs.promises.truncate(file, start);
        logger.warn('cut off a torn last JSONL line', { file: path.basename(file), line: lineNo, bytes: bytes.length });
        return { records, size: start, offsets, torn: { bytes, cut: true } };
      }
      if (!parsed) logger.warn('skipped a torn last JSONL line', { file: path.basename(file), line: lineNo });
      break;
    }
    if (parsed) {
      records.push(parsed);
      offsets.push(start);
    } else if (text.trim() !== '') logger.warn('skipped a malformed JSONL line', { file: path.basename(file), line: lineNo });
    start = nl + 1;
  }
  return { records, size: buf.length, offsets };
}

/** Parses one JSONL line into an object; undefined for blank, malformed or non-object lines. */
export function parseObject(text: string): Record<string, unknown> | undefined {
  if (text.trim() === '') return undefined;
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Appends `data` and waits for `fdatasync`: durable when the promise resolves. On failure the
 * file is cut back to `sizeBefore` (when given) so no partial line remains.
 */
export async function appendDurable(file: string, data: string | Buffer, sizeBefore?: number): Promise<void> {
  const fh = await fs.promises.open(file, 'a', 0o600);
  try {
    await writeAll(fh, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    await fh.datasync();
  } catch (e) {
    if (sizeBefore !== undefined) await fh.truncate(sizeBefore).catch(() => undefined);
    throw e;
  } finally {
    await fh.close();
  }
}

/**
 * Writes all of `buf`. A write may take only part of it — on a full disk the kernel writes what fits
 * and Node resolves with the count, no error — so the rest is written again; a write that takes
 * nothing fails with ENOSPC, and the caller cuts the file back. Without this a torn line was
 * reported durable, and the next append was glued onto it.
 */
async function writeAll(fh: fs.promises.FileHandle, buf: Buffer): Promise<void> {
  let off = 0;
  while (off < buf.length) {
    const { bytesWritten } = await fh.write(buf, off, buf.length - off);
    if (bytesWritten <= 0) throw Object.assign(new Error(`ENOSPC: no space left on device, write (${buf.length - off} of ${buf.length} bytes not written)`), { code: 'ENOSPC' });
    off += bytesWritten;
  }
}

/** Creates a file with `data` (fails with EEXIST if it exists), fsyncs it and its folder; on failure no partial file stays. */
export async function createDurable(file: string, data: string): Promise<void> {
  const fh = await fs.promises.open(file, 'wx', 0o600);
  try {
    await writeAll(fh, Buffer.from(data, 'utf8'));
    await fh.sync();
  } catch (e) {
    await fh.close().catch(() => undefined);
    await fs.promises.unlink(file).catch(() => undefined);
    throw e;
  }
  await fh.close();
  await syncDir(path.dirname(file));
}

