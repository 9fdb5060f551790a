import type { ChatRequest, ChatResponse, LlmAPI, StreamPart } from '../../spec/index.js';
import { NoProviderError } from '../../spec/index.js';

/** One scripted answer: text and/or tool calls (arguments as an object or JSON text). */
export interface ScriptedReply {
  text?: string;
  toolCalls?: { name: string; arguments?: Record<string, unknown> | string; id?: string }[];
}

/**
 * A scripted LLM for plugin tests: each chat request takes the next queued reply (default: the
 * text "ok"). It satisfies both the kernel's LLM port (`run`) and the SDK's `LlmAPI` (`chat`), and
 * records every request.
 */
export class ScriptedLlm implements LlmAPI {
  readonly requests: Omit<ChatRequest, 'model'>[] = [];
  private readonly queue: ScriptedReply[] = [];
  private n = 0;

  constructor(
    replies: ScriptedReply[] = [],
    private readonly isAvailable = true,
  ) {
    this.queue.push(...replies);
  }

  enqueue(...replies: ScriptedReply[]): void {
    this.queue.push(...replies);
  }

  available(): boolean {
    return this.isAvailable;
  }

  async run(req: Omit<ChatRequest, 'model'> & { model?: string }, opts?: { signal?: AbortSignal; onPart?: (part: StreamPart, provider: string) => void }): Promise<ChatResponse & { provider: string; model: string; latencyMs: number }> {
    if (!this.isAvailable) throw new NoProviderError('no LLM configured in this test host');
    opts?.signal?.throwIfAborted();
    this.requests.push(structuredClone(req));
    const r = this.queue.shift() ?? { text: 'ok' };
    const toolCalls = (r.toolCalls ?? []).map((c) => ({ id: c.id ?? `call_${++this.n}`, name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}) }));
    if (r.text) opts?.onPart?.({ type: 'text-delta', text: r.text } as StreamPart, 'scripted');
    return { text: r.text ?? '', reasoning: '', toolCalls, usage: { inputTokens: 0, outputTokens: 0 }, finishReason: toolCalls.length ? 'tool-calls' : 'stop', provider: 'scripted', model: 'scripted', latencyMs: 0 };
  }

  async chat(req: Omit<ChatRequest, 'model'> & { model?: string }, opts?: { signal?: AbortSignal; onPart?: (p: StreamPart) => void }): Promise<ChatResponse & { provider: string }> {
    return this.run(req, { signal: opts?.signal, onPart: opts?.onPart && ((p) => opts.onPart!(p)) });
  }
}
