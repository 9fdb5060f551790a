/** One event as it is sent over SSE: `id:` + `data: {"event", "payload"}`. */
export interface SseEvent {
  id: number;
  event: string;
  payload: unknown;
}

interface Client {
  send(chunk: string): void;
  close(): void;
}

const MAX_STRING = 64 * 1024;

/**
 * Makes a bus payload safe and small for the browser: strings over 64 KiB are clipped and
 * attachment bytes (`data` of an attachment) are replaced by their size.
 */
export function sanitizePayload(value: unknown, depth = 0): unknown {
  if (depth > 12) return '[…]';
  if (typeof value === 'string') return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}… [${value.length - MAX_STRING} more chars]` : value;
  if (Array.isArray(value)) return value.map((v) => sanitizePayload(v, depth + 1));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (k === 'attachments' && Array.isArray(v)) {
        out[k] = v.map((a) => {
          const att = (a ?? {}) as Record<string, unknown>;
          return { name: att.name, mimeType: att.mimeType, bytes: typeof att.data === 'string' ? Math.round((att.data.length * 3) / 4) : att.bytes };
        });
      } else if (typeof v === 'function' || typeof v === 'symbol' || typeof v === 'bigint') {
        continue;
      } else out[k] = sanitizePayload(v, depth + 1);
    }
    return out;
  }
  return value;
}

/** Formats one SSE frame. */
export function formatFrame(ev: SseEvent): string {
  return `id: ${ev.id}\ndata: ${JSON.stringify({ event: ev.event, payload: ev.payload })}\n\n`;
}

/**
 * Fans out bus events to SSE clients. Keeps the last `bufferSize` events so a client that
 * reconnects with `Last-Event-ID` gets what it missed; sends a comment heartbeat so proxies and
 * the browser notice a dead connection.
 */
export class SseHub {
  private readonly clients = new Set<Client>();
  private readonly buffer: SseEvent[] = [];
  private nextId = 1;
  private timer: ReturnType<typeof setInterval> | undefined;
  /** Distinguishes daemon runs, so a client can tell a restart from a reconnect. */
  readonly bootId = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

  constructor(private readonly opts: { heartbeatMs: number; bufferSize?: number }) {}

  /** Starts the heartbeat. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.broadcast(`: ping ${Date.now()}\n\n`), this.opts.heartbeatMs);
    this.timer.unref?.();
  }

  /** Closes every client and stops the heartbeat. Safe twice. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    for (const c of [...this.clients]) c.close();
    this.clients.clear();
  }

  get clientCount(): number {
    return this.clients.size;
  }

  /** Publishes an event to every client (and the replay buffer). */
  publish(event: string, payload: unknown): SseEvent {
    const ev: SseEvent = { id: this.nextId++, event, payload: sanitizePayload(payload) };
    this.buffer.push(ev);
    const max = this.opts.bufferSize ?? 500;
    if (this.buffer.length > max) this.buffer.splice(0, this.buffer.length - max);
    this.broadcast(formatFrame(ev));
    return ev;
  }

  /**
   * Drops buffered events `match` picks (a forget: what a reconnecting client is sent again must
   * not bring a forgotten turn back, decision 0430); returns how many.
   */
  drop(match: (ev: SseEvent) => boolean): number {
    const before = this.buffer.length;
    const keep = this.buffer.filter((ev) => !match(ev));
    this.buffer.splice(0, this.buffer.length, ...keep);
    return before - keep.length;
  }

  private broadcast(chunk: string): void {
    for (const c of [...this.clients]) {
      try {
        c.send(chunk);
      } catch {
        this.clients.delete(c);
      }
    }
  }

  /**
   * A streaming `text/event-stream` response. `lastEventId` replays buffered events after it
   * (only when it belongs to this run: ids above our newest mean the daemon restarted).
   */
  response(lastEventId: string | null, signal?: AbortSignal): Response {
    const enc = new TextEncoder();
    let client: Client | undefined;
    const stream = new ReadableStream<Uint8Array>({
      start: (controller) => {
        let closed = false;
        client = {
          send: (chunk) => {
            if (!closed) controller.enqueue(enc.encode(chunk));
          },
          close: () => {
            if (closed) return;
            closed = true;
            this.clients.delete(client!);
            try {
              controller.close();
            } catch {}
          },
        };
        client.send(`retry: 2000\n: connected\n\n`);
        client.send(formatFrame({ id: 0, event: 'hello', payload: { bootId: this.bootId, at: Date.now() } }).replace(/^id: 0\n/, ''));
        const last = Number(lastEventId);
        if (lastEventId !== null && Number.isInteger(last) && last > 0 && last < this.nextId) {
          for (const ev of this.buffer) if (ev.id > last) client.send(formatFrame(ev));
        }
        this.clients.add(client);
        signal?.addEventListener('abort', () => client?.close(), { once: true });
      },
      cancel: () => {
        client?.close();
      },
    });
    return new Response(stream, {
      headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' },
    });
  }
}
