import fs from 'node:fs';
import { parseObject } from './jsonl-file.js';

/** Bytes read at a time when a page of a log is read from its file. */
const CHUNK = 64 * 1024;

/** A line's parsed object and where the line starts. */
export interface LogLine {
  record: Record<string, unknown>;
  offset: number;
}

/**
 * Reads complete lines of a JSONL file forward from `from` (a line start) up to `end` (a line
 * start or the size the caller knows is complete); `visit` returns false to stop. Lines that do
 * not parse are skipped (the store warned about them when it opened the log).
 */
export async function readLinesForward(file: string, from: number, end: number, visit: (line: LogLine) => boolean): Promise<void> {
  const fh = await fs.promises.open(file, 'r');
  try {
    let pos = from;
    let carry = Buffer.alloc(0);
    let carryAt = from;
    while (pos < end) {
      const len = Math.min(CHUNK, end - pos);
      const buf = Buffer.alloc(len);
      const { bytesRead } = await fh.read(buf, 0, len, pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      const data = carry.length ? Buffer.concat([carry, buf.subarray(0, bytesRead)]) : buf.subarray(0, bytesRead);
      let start = 0;
      for (;;) {
        const nl = data.indexOf(0x0a, start);
        if (nl === -1) break;
        const record = parseObject(data.toString('utf8', start, nl));
        if (record && !visit({ record, offset: carryAt + start })) return;
        start = nl + 1;
      }
      carry = Buffer.from(data.subarray(start));
      carryAt += start;
    }
    // `end` is a line boundary, so a rest without newline is the torn tail the store cut off.
  } finally {
    await fh.close();
  }
}

/**
 * Reads complete lines of a JSONL file backwards, newest first, from `end` (a line start or the
 * complete size) down to the file's start; `visit` returns false to stop. Only the chunks it
 * needs are read, so the last page of a long log costs what the page is long.
 */
export async function readLinesBackward(file: string, end: number, visit: (line: LogLine) => boolean): Promise<void> {
  const fh = await fs.promises.open(file, 'r');
  try {
    let pos = end;
    // Bytes after the last newline seen so far (the start of a line whose beginning is further back).
    let tail = Buffer.alloc(0);
    while (pos > 0) {
      const from = Math.max(0, pos - CHUNK);
      const buf = Buffer.alloc(pos - from);
      await fh.read(buf, 0, buf.length, from);
      pos = from;
      const data = tail.length ? Buffer.concat([buf, tail]) : buf;
      // Lines end at newlines; walk them from the last.
      let lineEnd = data.length;
      if (data[lineEnd - 1] === 0x0a) lineEnd--;
      for (;;) {
        const nl = data.lastIndexOf(0x0a, lineEnd - 1);
        if (nl === -1) break;
        const record = parseObject(data.toString('utf8', nl + 1, lineEnd));
        if (record && !visit({ record, offset: from + nl + 1 })) return;
        lineEnd = nl;
      }
      tail = Buffer.from(data.subarray(0, lineEnd));
      if (pos === 0 && tail.length) {
        const record = parseObject(tail.toString('utf8'));
        if (record) visit({ record, offset: 0 });
      }
    }
  } finally {
    await fh.close();
  }
}
