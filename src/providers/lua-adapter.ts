import { z } from 'zod';
import { LuaScriptError } from '../spec/index.js';
import type { ChatRequest, ChatResponse, FinishReason, StreamPart, ToolCall, Usage } from '../spec/index.js';
import { LuaSandbox, registerHttpFunctions, type LuaLogLevel } from './lua/index.js';
import { ADAPTER_PRELUDE } from './adapter-prelude.js';

/** The `cfg` table an adapter receives (snake_case; `options` holds adapter-specific extras). */
export interface AdapterConfig {
  name: string;
  base_url: string;
  model: string;
  api_key: string;
  api_version?: string;
  options: Record<string, unknown>;
}

/** An HTTP request built by `transform_request` + `headers`. */
export interface AdapterHttpRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  streamFormat: 'sse' | 'ndjson' | undefined;
}

export interface LuaAdapterOptions {
  /** Adapter name (file name without `.lua`). */
  name: string;
  source: string;
  /** Looks up another adapter's source for `import_adapter(name)`. */
  resolveSource?: (name: string) => string | undefined;
  log?: (level: LuaLogLevel, message: string) => void;
  timeoutMs?: number;
  memoryBytes?: number;
  fetch?: typeof fetch;
  /** Veto of a URL the script's `http_get`/`http_post` asks for (the daemon refuses its own ports). */
  allowUrl?: (url: URL) => boolean;
}

const FINISH: readonly FinishReason[] = ['stop', 'tool-calls', 'length', 'content-filter', 'error', 'other'];

/** An empty Lua table arrives as `{}`: treat it as an empty list. */
const list = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0 ? [] : v), z.array(item));
const argsSchema = z.union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())]).optional();
const usageSchema = z.object({ input_tokens: z.number().optional(), output_tokens: z.number().optional() }).partial().optional().nullable();
const toolCallSchema = z.object({ id: z.string().optional().nullable(), name: z.string().min(1), arguments: argsSchema });
const requestSchema = z.object({
  url: z.string().url(),
  method: z.string().optional(),
  body: z.unknown().optional(),
  stream_format: z.enum(['sse', 'ndjson']).optional(),
});
const headersSchema = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));
const responseSchema = z.object({
  text: z.string().optional().nullable(),
  reasoning: z.string().optional().nullable(),
  tool_calls: list(toolCallSchema).optional().nullable(),
  usage: usageSchema,
  finish_reason: z.string().optional().nullable(),
});
const partSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text-delta'), text: z.string() }),
  z.object({ type: z.literal('reasoning-delta'), text: z.string() }),
  z.object({ type: z.literal('tool-call'), id: z.string().optional().nullable(), name: z.string().min(1), arguments: argsSchema }),
  z.object({ type: z.literal('finish'), finish_reason: z.string().optional().nullable(), usage: usageSchema }),
  z.object({ type: z.literal('error'), message: z.string().optional(), code: z.string().optional() }),
]);
const partsSchema = list(partSchema);

let callCounter = 0;
/** A tool-call id for APIs that give none (Gemini, Ollama). */
export function newToolCallId(): string {
  return `call_${Date.now().toString(36)}_${(++callCounter).toString(36)}`;
}

function toArgs(a: unknown): string {
  if (typeof a === 'string') return a === '' ? '{}' : a;
  if (a === undefined || a === null) return '{}';
  return JSON.stringify(a);
}

function toUsage(u: z.infer<typeof usageSchema>): Usage {
  return { inputTokens: u?.input_tokens ?? 0, outputTokens: u?.output_tokens ?? 0 };
}

export function toFinish(s: string | null | undefined): FinishReason | undefined {
  if (!s) return undefined;
  return (FINISH as readonly string[]).includes(s) ? (s as FinishReason) : 'other';
}

/** A finish part as the adapter reported it (the provider merges them into one). */
export type AdapterPart = Exclude<StreamPart, { type: 'finish' }> | { type: 'finish'; usage?: Usage; finishReason?: FinishReason };

/**
 * One loaded adapter script in its own sandbox. Turns the normalized request into the vendor's
 * HTTP request and vendor bodies / stream chunks back into normalized values; every value the
 * script returns is validated, and anything unexpected becomes a `LuaScriptError` (kind
 * `bad-return`) naming the script.
 */
export class LuaAdapter {
  readonly name: string;
  readonly script: string;
  private sandbox: LuaSandbox;
  private readonly source: string;
  private started: Promise<void> | undefined;
  private failedAt = 0;
  private streams = 0;
  hasStream = false;
  hasHeaders = false;
  /** The script can list the API's models (`models_request` + `transform_models`). */
  hasModels = false;

  constructor(private readonly opts: LuaAdapterOptions) {
    this.name = opts.name;
    this.script = `${opts.name}.lua`;
    this.source = opts.source;
    this.sandbox = this.makeSandbox();
  }

  private makeSandbox(): LuaSandbox {
    const opts = this.opts;
    const sandbox = new LuaSandbox({ name: this.script, timeoutMs: opts.timeoutMs ?? 2000, memoryBytes: opts.memoryBytes ?? 32 * 1024 * 1024, log: opts.log });
    registerHttpFunctions(sandbox, { fetch: opts.fetch, allow: opts.allowUrl, timeoutMs: Math.min(15_000, Math.max(100, (opts.timeoutMs ?? 2000) - 100)) });
    // Cycles are harmless: import_adapter caches an environment before running its chunk.
    sandbox.registerFunction('__adapter_source', (name: unknown) => (typeof name === 'string' ? (opts.resolveSource?.(name) ?? null) : null));
    return sandbox;
  }

  /**
   * Loads the prelude and the script; checks the required functions. Idempotent. A failed start
   * is remembered for 10 s (so a broken script does not cost a time-out on every request), then
   * retried in a fresh sandbox (a load may also fail transiently under heavy load).
   */
  start(): Promise<void> {
    if (this.started && this.failedAt && Date.now() - this.failedAt > 10_000) {
      this.sandbox.close();
      this.sandbox = this.makeSandbox();
      this.started = undefined;
      this.failedAt = 0;
    }
    this.started ??= (async () => {
      await this.sandbox.load(ADAPTER_PRELUDE, 'adapter-prelude');
      await this.sandbox.load(this.source, this.script);
      for (const fn of ['transform_request', 'transform_response']) {
        if (!this.sandbox.has(fn)) throw new LuaScriptError(this.script, `adapter does not define ${fn}(…)`, 'load');
      }
      this.hasStream = this.sandbox.has('transform_stream_chunk');
      this.hasHeaders = this.sandbox.has('headers');
      this.hasModels = this.sandbox.has('models_request') && this.sandbox.has('transform_models');
    })().catch((e: unknown) => {
      this.failedAt = Date.now();
      throw e;
    });
    return this.started;
  }

  /** Builds the HTTP request for a normalized chat request. */
  async buildRequest(req: ChatRequest, cfg: AdapterConfig, stream: boolean): Promise<AdapterHttpRequest> {
    await this.start();
    // One VM entry runs transform_request and then headers(cfg, req) on the same converted
    // request table (it is converted once, not twice).
    const both = (await this.sandbox.call('__adapter_build', toLuaRequest(req, stream), cfg)) as { request?: unknown; headers?: unknown } | null;
    const raw = both?.request ?? null;
    const r = requestSchema.safeParse(raw);
    if (!r.success) throw this.bad('transform_request', raw, 'a table { url = "https://…", method?, body }');
    let headers: Record<string, string> = {};
    if (this.hasHeaders) {
      const h = both?.headers ?? null;
      const hp = headersSchema.safeParse(Array.isArray(h) && h.length === 0 ? {} : (h ?? {}));
      if (!hp.success) throw this.bad('headers', h, 'a table of header names to strings');
      headers = Object.fromEntries(Object.entries(hp.data).map(([k, v]) => [k, String(v)]));
    }
    const body = r.data.body === undefined || r.data.body === null ? undefined : typeof r.data.body === 'string' ? r.data.body : JSON.stringify(r.data.body);
    return { url: r.data.url, method: (r.data.method ?? 'POST').toUpperCase(), headers, body, streamFormat: r.data.stream_format };
  }

  /**
   * The HTTP request that lists the API's models (`models_request(cfg)` and `headers(cfg, {})`).
   * An adapter without `models_request` → LuaScriptError (kind `load`).
   */
  async buildModelsRequest(cfg: AdapterConfig): Promise<AdapterHttpRequest> {
    await this.start();
    if (!this.hasModels) throw new LuaScriptError(this.script, 'adapter cannot list models (it defines no models_request / transform_models)', 'load');
    const raw = await this.sandbox.call('models_request', cfg);
    const r = requestSchema.safeParse(raw);
    if (!r.success) throw this.bad('models_request', raw, 'a table { url = "https://…", method? }');
    let headers: Record<string, string> = {};
    if (this.hasHeaders) {
      const h = await this.sandbox.call('headers', cfg, { messages: [], stream: false });
      const hp = headersSchema.safeParse(Array.isArray(h) && h.length === 0 ? {} : (h ?? {}));
      if (!hp.success) throw this.bad('headers', h, 'a table of header names to strings');
      headers = Object.fromEntries(Object.entries(hp.data).map(([k, v]) => [k, String(v)]));
    }
    delete headers['content-type'];
    return { url: r.data.url, method: (r.data.method ?? 'GET').toUpperCase(), headers, body: undefined, streamFormat: undefined };
  }

  /** Maps the model-list body to model ids (sorted, unique). */
  async parseModels(body: unknown, cfg: AdapterConfig): Promise<string[]> {
    await this.start();
    const raw = await this.sandbox.call('transform_models', body, cfg);
    const r = list(z.string()).safeParse(raw ?? []);
    if (!r.success) throw this.bad('transform_models', raw, 'a list of model names');
    return [...new Set(r.data)].sort();
  }

  /** Maps a complete (non-streamed) vendor response body. */
  async parseResponse(body: unknown, cfg: AdapterConfig): Promise<ChatResponse> {
    await this.start();
    const raw = await this.sandbox.call('transform_response', body, cfg);
    const r = responseSchema.safeParse(raw);
    if (!r.success) throw this.bad('transform_response', raw, 'a table { text, reasoning, tool_calls, usage, finish_reason }');
    const toolCalls: ToolCall[] = (r.data.tool_calls ?? []).map((c) => ({ id: c.id || newToolCallId(), name: c.name, arguments: toArgs(c.arguments) }));
    return {
      text: r.data.text ?? '',
      reasoning: r.data.reasoning ?? '',
      toolCalls,
      usage: toUsage(r.data.usage),
      finishReason: toFinish(r.data.finish_reason) ?? (toolCalls.length ? 'tool-calls' : 'stop'),
    };
  }

  /** Opens a per-request stream state; pass the id to {@link streamChunk} / {@link endStream}. */
  openStream(): string {
    return `s${++this.streams}`;
  }

  /** Maps one stream payload (decoded JSON, or the raw string when it is not JSON). */
  async streamChunk(id: string, chunk: unknown, event: string | undefined): Promise<AdapterPart[]> {
    return this.parts('transform_stream_chunk', await this.sandbox.call('__adapter_stream_chunk', id, chunk, event ?? null));
  }

  /** Ends a stream (calls `transform_stream_end` when defined) and frees its state. */
  async endStream(id: string): Promise<AdapterPart[]> {
    return this.parts('transform_stream_end', await this.sandbox.call('__adapter_stream_end', id));
  }

  /** Frees a stream's state without calling the script (abort). */
  dropStream(id: string): void {
    this.sandbox.call('__adapter_stream_drop', id).catch(() => {});
  }

  close(): void {
    this.sandbox.close();
  }

  private parts(fn: string, raw: unknown): AdapterPart[] {
    const fast = textParts(raw);
    if (fast) return fast;
    const r = partsSchema.safeParse(raw ?? []);
    if (!r.success) throw this.bad(fn, raw, 'a list of parts { type = "text-delta" | "reasoning-delta" | "tool-call" | "finish" | "error", … }');
    return r.data.map((p): AdapterPart => {
      switch (p.type) {
        case 'text-delta':
        case 'reasoning-delta':
          return { type: p.type, text: p.text };
        case 'tool-call':
          return { type: 'tool-call', toolCall: { id: p.id || newToolCallId(), name: p.name, arguments: toArgs(p.arguments) } };
        case 'finish':
          return { type: 'finish', usage: p.usage ? toUsage(p.usage) : undefined, finishReason: toFinish(p.finish_reason) };
        case 'error':
          return { type: 'error', error: { code: p.code ?? 'upstream', message: p.message ?? 'stream error' } };
      }
    });
  }

  private bad(fn: string, got: unknown, expected: string): LuaScriptError {
    let shown: string;
    try {
      shown = JSON.stringify(got)?.slice(0, 200) ?? String(got);
    } catch {
      shown = String(got);
    }
    return new LuaScriptError(this.script, `${fn} returned ${shown ?? 'nil'}; expected ${expected}`, 'bad-return');
  }
}

/**
 * The common stream result — a list of text/reasoning deltas (or nothing) — mapped without
 * zod; undefined for anything else, which then goes through the full schema.
 */
function textParts(raw: unknown): AdapterPart[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  const out: AdapterPart[] = [];
  for (const p of raw as { type?: unknown; text?: unknown }[]) {
    if (p === null || typeof p !== 'object' || (p.type !== 'text-delta' && p.type !== 'reasoning-delta') || typeof p.text !== 'string') return undefined;
    out.push({ type: p.type, text: p.text });
  }
  return out;
}

/** The normalized request as the Lua table adapters receive (snake_case). */
export function toLuaRequest(req: ChatRequest, stream: boolean): Record<string, unknown> {
  return {
    model: req.model,
    stream,
    temperature: req.temperature,
    max_tokens: req.maxTokens,
    tools: req.tools?.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
    messages: req.messages.map((m) => ({
      role: m.role,
      content: m.content ?? '',
      tool_calls: m.toolCalls?.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
      tool_call_id: m.toolCallId,
      name: m.name,
      reasoning: m.reasoning,
      attachments: m.attachments?.map((a) => ({ mime_type: a.mimeType, data: a.data, name: a.name })),
    })),
  };
}
