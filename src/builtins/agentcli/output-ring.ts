/**
 * A bounded text buffer of terminal output with absolute positions, so a reader can ask for
 * "everything since position N" and learn how much was dropped because the ring overflowed.
 */
export class OutputRing {
  private buf = '';
  /** Absolute position of `buf[0]`. */
  private start = 0;

  constructor(private readonly capacity: number) {}

  /** Total characters ever written. */
  get end(): number {
    return this.start + this.buf.length;
  }

  append(text: string): void {
    this.buf += text;
    if (this.buf.length > this.capacity) {
      const cut = this.buf.length - this.capacity;
      this.buf = this.buf.slice(cut);
      this.start += cut;
    }
  }

  /** Text written since `pos` (clamped to what is still held) and how much of it was dropped. */
  since(pos: number): { text: string; next: number; dropped: number } {
    const from = Math.max(pos, this.start);
    return { text: this.buf.slice(from - this.start), next: this.end, dropped: from - pos };
  }

  /** The last `n` characters. */
  tail(n: number): string {
    return this.buf.slice(-n);
  }
}

// CSI / OSC / single-character escape sequences, and stray control characters except \n \t.
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;

/** Removes terminal escape sequences and turns CRLF into LF, for the model. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, '').replace(/\r\n?/g, '\n');
}
