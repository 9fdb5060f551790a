import { PayloadTooLargeError } from '../../spec/index.js';

/**
 * Splits a byte stream into newline-delimited frames with a size cap: a frame over `maxBytes`
 * raises PayloadTooLargeError (the caller closes the connection; nothing else is affected).
 */
export class FrameReader {
  private buf = '';

  constructor(private readonly maxBytes: number) {}

  push(chunk: string): string[] {
    this.buf += chunk;
    const frames: string[] = [];
    let i: number;
    while ((i = this.buf.indexOf('\n')) >= 0) {
      const line = this.buf.slice(0, i);
      this.buf = this.buf.slice(i + 1);
      if (Buffer.byteLength(line) > this.maxBytes) throw new PayloadTooLargeError(this.maxBytes, 'socket frame');
      if (line.trim()) frames.push(line);
    }
    if (Buffer.byteLength(this.buf) > this.maxBytes) {
      this.buf = '';
      throw new PayloadTooLargeError(this.maxBytes, 'socket frame');
    }
    return frames;
  }
}
