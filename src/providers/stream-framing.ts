/** One framed stream payload: the SSE `data` (or one NDJSON line) and the SSE event name. */
export interface StreamEvent {
  data: string;
  event?: string;
}

/**
 * Incremental SSE parser (WHATWG event-stream rules: `data:` lines joined with `\n`, `event:`
 * names, `:` comments, blank line dispatches; CRLF tolerated).
 */
export class SseParser {
  private buf = '';
  private data: string[] = [];
  private event: string | undefined;

  push(text: string): StreamEvent[] {
    this.buf += text;
    const out: StreamEvent[] = [];
    let nl: number;
    while ((nl = this.buf.indexOf('\n')) >= 0) {
      let line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      if (line.endsWith('\r')) line = line.slice(0, -1);
      this.line(line, out);
    }
    return out;
  }

  /** Flushes a final event that lacked its blank line. */
  end(): StreamEvent[] {
    const out: StreamEvent[] = [];
    if (this.buf) this.line(this.buf, out);
    this.buf = '';
    this.line('', out);
    return out;
  }

  private line(line: string, out: StreamEvent[]): void {
    if (line === '') {
      if (this.data.length) out.push({ data: this.data.join('\n'), event: this.event });
      this.data = [];
      this.event = undefined;
      return;
    }
    if (line.startsWith(':')) return;
    const i = line.indexOf(':');
    const field = i < 0 ? line : line.slice(0, i);
    let value = i < 0 ? '' : line.slice(i + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
  }
}

/** Incremental newline-delimited JSON framing (Ollama). */
export class NdjsonParser {
  private buf = '';

  push(text: string): StreamEvent[] {
    this.buf += text;
    const out: StreamEvent[] = [];
    let nl: number;
    while ((nl = this.buf.indexOf('\n')) >= 0) {
      const line = this.buf.slice(0, nl).trim();
      this.buf = this.buf.slice(nl + 1);
      if (line) out.push({ data: line });
    }
    return out;
  }

  end(): StreamEvent[] {
    const line = this.buf.trim();
    this.buf = '';
    return line ? [{ data: line }] : [];
  }
}

/** Decodes a payload as JSON when it is JSON, else returns the string (e.g. `[DONE]`). */
export function decodePayload(data: string): unknown {
  const t = data.trim();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      return JSON.parse(t) as unknown;
    } catch {
      return data;
    }
  }
  return data;
}
