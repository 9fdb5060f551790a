import type { OpenAiApiError } from './openai-error.js';
import type { Usage } from './replay-table.js';

/** What names every chunk of one completion. */
export interface CompletionIdent {
  id: string;
  created: number;
  model: string;
}

/**
 * The SSE body of a streamed chat completion as OpenAI clients read it: the role chunk first,
 * `chat.completion.chunk` events, keep-alive comments while the turn is silent (tools running;
 * clients skip them), an error event for a failure mid-stream (the `openai` client throws it),
 * then `data: [DONE]`. Writes after the client went away are dropped.
 */
export class ChunkStream {
  readonly body: ReadableStream<Uint8Array>;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private closed = false;
  private keepAlive: ReturnType<typeof setInterval> | undefined;
  private readonly enc = new TextEncoder();

  constructor(
    private readonly ident: CompletionIdent,
    opts: { keepAliveMs: number; onCancel?: () => void },
  ) {
    this.body = new ReadableStream<Uint8Array>({
      start: (c) => {
        this.controller = c;
        this.chunk({ role: 'assistant', content: '' });
        this.keepAlive = setInterval(() => this.write(': keep-alive\n\n'), opts.keepAliveMs);
        this.keepAlive.unref?.();
      },
      cancel: () => {
        this.closed = true;
        clearInterval(this.keepAlive);
        opts.onCancel?.();
      },
    });
  }

  chunk(delta: Record<string, unknown>, finish: string | null = null): void {
    this.event({ ...this.head(), choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  }

  /** The usage chunk (`stream_options.include_usage`): no choices. */
  usage(usage: Usage): void {
    this.event({ ...this.head(), choices: [], usage });
  }

  error(err: OpenAiApiError): void {
    this.event({ error: err.body() });
  }

  /** `[DONE]`, and the stream closes. */
  end(): void {
    this.write('data: [DONE]\n\n');
    clearInterval(this.keepAlive);
    if (!this.closed) {
      this.closed = true;
      this.controller.close();
    }
  }

  response(headers: Record<string, string>): Response {
    return new Response(this.body, { status: 200, headers: { ...headers, 'content-type': 'text/event-stream; charset=utf-8', connection: 'keep-alive', 'x-accel-buffering': 'no' } });
  }

  private head() {
    return { id: this.ident.id, object: 'chat.completion.chunk', created: this.ident.created, model: this.ident.model, system_fingerprint: null };
  }

  private event(data: unknown): void {
    this.write(`data: ${JSON.stringify(data)}\n\n`);
  }

  private write(line: string): void {
    if (this.closed) return;
    try {
      this.controller.enqueue(this.enc.encode(line));
    } catch {
      this.closed = true;
    }
  }
}
