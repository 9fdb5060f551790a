import { ProviderError, LuaScriptError, isHomeAgentError } from '../spec/index.js';
import type { ChatRequest, ChatResponse, FinishReason, Provider, StreamPart, Usage } from '../spec/index.js';
import type { AdapterConfig, AdapterHttpRequest, AdapterPart, LuaAdapter } from './lua-adapter.js';
import { NdjsonParser, SseParser, decodePayload, type StreamEvent } from './stream-framing.js';
import { redact } from './redact.js';

/** A configured LLM source (one row of `core.llm.sources.<name>.*`). */
export interface ProviderSource {
  name: string;
  adapter: string;
  baseUrl: string;
  model: string;
  apiKey: string;
  apiVersion?: string;
  /** Adapter-specific extras, passed to the script as `cfg.options`. */
  options?: Record<string, unknown>;
}

export interface LuaAdaptedProviderOptions {
  source: ProviderSource;
  adapter: LuaAdapter;
  fetch?: typeof fetch;
  /** Whole request, headers to last byte. Default 120 s. */
  timeoutMs?: number;
  /** Longest silence between two stream chunks. Default 60 s (capped by timeoutMs). */
  idleTimeoutMs?: number;
  /** More strings to keep out of error messages (the source's own key is always redacted). */
  secrets?: () => string[];
}

type StopReason = 'timeout' | 'idle' | 'aborted';

/** Request-scoped abort plumbing: caller signal + total timeout + idle timeout → one controller. */
class RequestControl {
  readonly ctl = new AbortController();
  why: StopReason | undefined;
  private total: NodeJS.Timeout;
  private idle: NodeJS.Timeout | undefined;
  private readonly onAbort = (): void => this.stop('aborted');

  constructor(
    private readonly signal: AbortSignal | undefined,
    timeoutMs: number,
    private readonly idleMs: number,
  ) {
    this.total = setTimeout(() => this.stop('timeout'), timeoutMs);
    if (signal?.aborted) this.stop('aborted');
    signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  stop(why: StopReason): void {
    if (this.ctl.signal.aborted) return;
    this.why = why;
    this.ctl.abort(new Error(why));
  }

  /** (Re)arms the idle timer; call on every chunk. */
  touch(): void {
    clearTimeout(this.idle);
    this.idle = setTimeout(() => this.stop('idle'), this.idleMs);
  }

  dispose(): void {
    clearTimeout(this.total);
    clearTimeout(this.idle);
    this.signal?.removeEventListener('abort', this.onAbort);
    if (!this.ctl.signal.aborted) this.ctl.abort(new Error('done'));
  }
}

/**
 * The one Provider implementation (L-1, L-2): serializes the normalized request, lets the Lua
 * adapter build the vendor request, performs it with `fetch` (cancellable, with a total and an
 * idle timeout), and maps the vendor response or stream back through the adapter.
 *
 * Failures are `ProviderError`s: `auth` (401/403), `http` (other statuses), `network`,
 * `timeout`, `aborted` (the caller's signal), `adapter` (the script failed or returned garbage)
 * and `bad-response` (the body is not JSON, an HTML page, or a stream of which the adapter
 * understood nothing: no part and no `finish` — quoting the body's start). A stream that fails
 * after its first part ends with an `error` part instead of a throw; an abort always throws.
 */
/** How soon after sending a broken connection is the stale keep-alive race (retried once) rather than a break while the server worked. */
const RECONNECT_WINDOW_MS = 1000;

export class LuaAdaptedProvider implements Provider {
  readonly name: string;
  readonly model: string;
  private readonly doFetch: typeof fetch;
  private readonly timeoutMs: number;
  private readonly idleTimeoutMs: number;

  constructor(private readonly opts: LuaAdaptedProviderOptions) {
    this.name = opts.source.name;
    this.model = opts.source.model;
    this.doFetch = opts.fetch ?? fetch;
    this.timeoutMs = opts.timeoutMs ?? 120_000;
    this.idleTimeoutMs = Math.min(opts.idleTimeoutMs ?? 60_000, this.timeoutMs);
  }

  private cfg(): AdapterConfig {
    const s = this.opts.source;
    return { name: s.name, base_url: s.baseUrl, model: s.model, api_key: s.apiKey, api_version: s.apiVersion, options: s.options ?? {} };
  }

  private redact(text: string): string {
    return redact(text, [this.opts.source.apiKey, ...(this.opts.secrets?.() ?? [])]);
  }

  private adapterError(e: unknown): ProviderError {
    if (e instanceof ProviderError) return e;
    const msg = e instanceof Error ? e.message : String(e);
    const code = e instanceof LuaScriptError ? ` (${e.code})` : '';
    return new ProviderError(this.name, 'adapter', this.redact(`${this.name}: adapter ${this.opts.adapter.script} failed${code}: ${msg}`));
  }

  private async adapt<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      throw this.adapterError(e);
    }
  }

  private transportError(e: unknown, rc: RequestControl): ProviderError {
    if (e instanceof ProviderError) return e;
    if (rc.why === 'aborted') return new ProviderError(this.name, 'aborted', `${this.name}: request aborted`, { cause: e });
    if (rc.why === 'timeout') return new ProviderError(this.name, 'timeout', `${this.name}: no complete answer within ${this.timeoutMs} ms`);
    if (rc.why === 'idle') return new ProviderError(this.name, 'timeout', `${this.name}: stream stalled for ${this.idleTimeoutMs} ms`);
    // A HomeAgentError (the outbound proxy's: it names the proxy) says everything in its message.
    const cause = e instanceof Error && !isHomeAgentError(e) && e.cause instanceof Error ? `: ${e.cause.message}` : '';
    const msg = e instanceof Error ? e.message : String(e);
    return new ProviderError(this.name, 'network', this.redact(`${this.name}: network error: ${msg}${cause}`));
  }

  /**
   * `fetch`, tried once more when the connection broke before any answer arrived (reset, "other
   * side closed"): servers (Node's, uvicorn, llama.cpp) close idle keep-alive sockets after ~5 s,
   * and a request written on such a socket as it closes never reached a handler — a second try
   * opens a fresh connection. Once a response has begun nothing is retried here, nor a break
   * that came later than {@link RECONNECT_WINDOW_MS} after sending: a connection reset while the
   * server worked (a proxy cutting a long generation, a server that crashed on the request) may
   * have been answered — a second try would be a second generation, paid twice, or the same crash.
   */
  private async fetchWithReconnect(url: string, init: RequestInit, rc: RequestControl): Promise<Response> {
    const sent = Date.now();
    try {
      return await this.doFetch(url, init);
    } catch (e) {
      if (rc.ctl.signal.aborted || !isBrokenConnection(e) || Date.now() - sent > RECONNECT_WINDOW_MS) throw this.transportError(e, rc);
    }
    try {
      return await this.doFetch(url, init);
    } catch (e) {
      throw this.transportError(e, rc);
    }
  }

  private async send(req: ChatRequest, stream: boolean, rc: RequestControl): Promise<{ res: Response; streamFormat: 'sse' | 'ndjson' | undefined }> {
    const model = req.model || this.model;
    let httpReq: AdapterHttpRequest;
    try {
      httpReq = await this.opts.adapter.buildRequest({ ...req, model }, this.cfg(), stream);
    } catch (e) {
      const pe = this.adapterError(e);
      // The VM ran out of memory holding this request (a huge history): the request is too large,
      // which says nothing about the source — status 413 like a server's "payload too large", so
      // it falls back without counting towards the source's cool-down.
      if (e instanceof LuaScriptError && e.code === 'LUA_MEMORY') throw new ProviderError(this.name, 'adapter', `${pe.message} (the request is too large for the adapter)`, { status: 413 });
      throw pe;
    }
    const res = await this.fetchWithReconnect(httpReq.url, { method: httpReq.method, headers: httpReq.headers, body: httpReq.body, signal: rc.ctl.signal }, rc);
    if (!res.ok) {
      let text = '';
      try {
        text = (await res.text()).slice(0, 4000);
      } catch (e) {
        throw this.transportError(e, rc);
      }
      const status = res.status;
      const detail = this.redact(errorMessageOf(text) || res.statusText || 'no details');
      throw new ProviderError(this.name, status === 401 || status === 403 ? 'auth' : 'http', `${this.name}: HTTP ${status}: ${detail}`, { status, body: this.redact(text) });
    }
    return { res, streamFormat: httpReq.streamFormat };
  }

  /**
   * The API's model ids, through the adapter's `models_request` / `transform_models` (for the
   * model picker). Errors are ProviderErrors like a chat's; an adapter that cannot list models
   * → kind `adapter`. Bounded by 15 s (or the request timeout when shorter).
   */
  async listModels(signal?: AbortSignal): Promise<string[]> {
    const rc = new RequestControl(signal, Math.min(15_000, this.timeoutMs), this.idleTimeoutMs);
    try {
      const httpReq = await this.adapt(() => this.opts.adapter.buildModelsRequest(this.cfg()));
      const res = await this.fetchWithReconnect(httpReq.url, { method: httpReq.method, headers: httpReq.headers, signal: rc.ctl.signal }, rc);
      let text: string;
      try {
        text = (await res.text()).slice(0, 5 * 1024 * 1024);
      } catch (e) {
        throw this.transportError(e, rc);
      }
      if (!res.ok) {
        const detail = this.redact(errorMessageOf(text) || res.statusText || 'no details');
        throw new ProviderError(this.name, res.status === 401 || res.status === 403 ? 'auth' : 'http', `${this.name}: HTTP ${res.status} listing models: ${detail}`, { status: res.status });
      }
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new ProviderError(this.name, 'bad-response', this.redact(`${this.name}: the model list is not JSON: ${text.slice(0, 120)}`), { status: res.status });
      }
      return await this.adapt(() => this.opts.adapter.parseModels(body, this.cfg()));
    } finally {
      rc.dispose();
    }
  }

  /** One complete answer. */
  async chat(request: ChatRequest, signal?: AbortSignal): Promise<ChatResponse> {
    const rc = new RequestControl(signal, this.timeoutMs, this.idleTimeoutMs);
    try {
      if (rc.why === 'aborted') throw this.transportError(new Error('aborted'), rc);
      const { res } = await this.send(request, false, rc);
      let text: string;
      try {
        text = await res.text();
      } catch (e) {
        throw this.transportError(e, rc);
      }
      return await this.parseWhole(text, res.status, request);
    } finally {
      rc.dispose();
    }
  }

  /** A complete JSON answer → the adapter's `transform_response`; what it cannot map quotes the body. */
  private async parseWhole(text: string, status: number, request: ChatRequest): Promise<ChatResponse> {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new ProviderError(this.name, 'bad-response', this.redact(`${this.name}: response is not JSON: ${quoteBody(text)}`), { status });
    }
    let out: ChatResponse;
    try {
      out = await this.opts.adapter.parseResponse(body, this.cfg());
    } catch (e) {
      const pe = this.adapterError(e);
      throw new ProviderError(this.name, pe.kind, this.redact(`${pe.message}; body: ${quoteBody(text)}`), { status });
    }
    return { ...out, model: request.model || this.model };
  }

  /** The answer as parts; exactly one `finish` part ends a successful stream. */
  async *chatStream(request: ChatRequest, signal?: AbortSignal): AsyncIterable<StreamPart> {
    const adapter = this.opts.adapter;
    await this.adapt(() => adapter.start());
    if (!adapter.hasStream) {
      const r = await this.chat(request, signal);
      if (r.reasoning) yield { type: 'reasoning-delta', text: r.reasoning };
      if (r.text) yield { type: 'text-delta', text: r.text };
      for (const toolCall of r.toolCalls) yield { type: 'tool-call', toolCall };
      yield { type: 'finish', usage: r.usage, finishReason: r.finishReason };
      return;
    }
    const rc = new RequestControl(signal, this.timeoutMs, this.idleTimeoutMs);
    let streamId: string | undefined;
    let ended = false;
    try {
      if (rc.why === 'aborted') throw this.transportError(new Error('aborted'), rc);
      const { res, streamFormat } = await this.send(request, true, rc);
      const ct = res.headers.get('content-type') ?? '';
      // A 200 that is not a stream: an HTML page (a gateway's login, a captive portal) is an
      // error; a JSON document (a server that ignored `stream: true`, or a 200 error body) is
      // read as one complete answer, so the adapter maps it or says why it cannot.
      const mime = ct.split(';')[0].trim().toLowerCase();
      if (mime === 'text/html' || (!streamFormat && (mime === 'application/json' || mime.endsWith('+json')))) {
        let text: string;
        try {
          text = await res.text();
        } catch (e) {
          throw this.transportError(e, rc);
        }
        if (mime === 'text/html') throw new ProviderError(this.name, 'bad-response', this.redact(`${this.name}: response is not a stream (content-type ${mime}): ${quoteBody(text)}`), { status: res.status });
        const r = await this.parseWhole(text, res.status, request);
        if (r.reasoning) yield { type: 'reasoning-delta', text: r.reasoning };
        if (r.text) yield { type: 'text-delta', text: r.text };
        for (const toolCall of r.toolCalls) yield { type: 'tool-call', toolCall };
        yield { type: 'finish', usage: r.usage, finishReason: r.finishReason };
        return;
      }
      const parser = (streamFormat ?? (ct.includes('ndjson') ? 'ndjson' : 'sse')) === 'ndjson' ? new NdjsonParser() : new SseParser();
      streamId = adapter.openStream();
      const id = streamId;
      let emitted = false;
      // The adapter said the answer ended (a finish part): with nothing emitted, a legitimately
      // empty completion; without it and without any part, nothing of the body was understood.
      let finished = false;
      let head = '';
      let toolCalls = 0;
      let usage: Usage | undefined;
      let finishReason: FinishReason | undefined;
      const handle = function* (this: LuaAdaptedProvider, parts: AdapterPart[]): Generator<StreamPart, 'stop' | undefined> {
        for (const p of parts) {
          if (p.type === 'finish') {
            finished = true;
            if (p.usage && (p.usage.inputTokens || p.usage.outputTokens)) usage = p.usage;
            if (p.finishReason) finishReason = p.finishReason;
            continue;
          }
          if (p.type === 'error') {
            const message = this.redact(`${this.name}: ${p.error.message}`);
            if (!emitted) throw new ProviderError(this.name, 'http', message);
            yield { type: 'error', error: { ...p.error, message } };
            return 'stop';
          }
          if (p.type === 'tool-call') toolCalls++;
          emitted = true;
          yield p;
        }
        return undefined;
      };
      const reader = res.body?.getReader();
      const decoder = new TextDecoder();
      const feed = async (events: StreamEvent[]): Promise<AdapterPart[]> => {
        const all: AdapterPart[] = [];
        for (const ev of events) all.push(...(await this.adapt(() => adapter.streamChunk(id, decodePayload(ev.data), ev.event))));
        return all;
      };
      try {
        rc.touch();
        while (reader) {
          let chunk: ReadableStreamReadResult<Uint8Array>;
          try {
            chunk = await reader.read();
          } catch (e) {
            throw this.transportError(e, rc);
          }
          rc.touch();
          if (chunk.done) break;
          const text = decoder.decode(chunk.value, { stream: true });
          if (head.length < QUOTE_CHARS) head += text.slice(0, QUOTE_CHARS);
          const parts = await feed(parser.push(text));
          if ((yield* handle.call(this, parts)) === 'stop') return;
        }
        const tail = await feed(parser.push(decoder.decode()).concat(parser.end()));
        ended = true;
        tail.push(...(await this.adapt(() => adapter.endStream(id))));
        if ((yield* handle.call(this, tail)) === 'stop') return;
        if (!emitted && !finished) {
          const what = head.trim() ? quoteBody(head) : '(empty body)';
          throw new ProviderError(this.name, 'bad-response', this.redact(`${this.name}: no answer could be read from the stream (content-type ${mime || 'none'}): ${what}`), { status: res.status });
        }
      } catch (e) {
        const pe = e instanceof ProviderError ? e : this.transportError(e, rc);
        if (pe.kind === 'aborted' || !emitted) throw pe;
        yield { type: 'error', error: { code: pe.kind, message: pe.message, ...(pe.status ? { status: pe.status } : {}) } };
        return;
      }
      yield { type: 'finish', usage: usage ?? { inputTokens: 0, outputTokens: 0 }, finishReason: finishReason ?? (toolCalls ? 'tool-calls' : 'stop') };
    } finally {
      if (streamId && !ended) adapter.dropStream(streamId);
      rc.dispose();
    }
  }
}

const QUOTE_CHARS = 120;

/** Error codes of a connection that broke under a request before its answer began. */
const BROKEN_CONNECTION = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/** A fetch failure whose cause chain carries a broken-connection code (undici wraps it in `cause`). */
function isBrokenConnection(e: unknown): boolean {
  for (let c: unknown = e, depth = 0; c && typeof c === 'object' && depth < 5; c = (c as { cause?: unknown }).cause, depth++) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === 'string' && BROKEN_CONNECTION.has(code)) return true;
  }
  return false;
}

/** The start of a body for an error message, on one line. */
function quoteBody(text: string): string {
  const t = text.trim();
  if (!t) return '(empty body)';
  const flat = t.slice(0, QUOTE_CHARS).replace(/\s+/g, ' ');
  return t.length > QUOTE_CHARS ? `${flat}…` : flat;
}

/** Pulls a human message out of a vendor error body (OpenAI, Anthropic, Gemini, Ollama shapes). */
export function errorMessageOf(text: string): string {
  try {
    const j = JSON.parse(text) as { error?: unknown; message?: unknown };
    const e = j.error;
    if (typeof e === 'string') return e;
    if (e && typeof e === 'object' && typeof (e as { message?: unknown }).message === 'string') return (e as { message: string }).message;
    if (typeof j.message === 'string') return j.message;
  } catch {}
  return text.trim().slice(0, 200);
}
