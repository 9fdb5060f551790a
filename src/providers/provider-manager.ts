import { readFileSync } from 'node:fs';
import { HomeAgentError, NoProviderError, NotFoundError, ProviderError, ValidationError, isHomeAgentError } from '../spec/index.js';
import type { ChatRequest, ChatResponse, ConfigValue, HeldAdapterInfo, HeldAdapterSource, ProviderStatus, TakenAdapter, StreamPart, ToolCall, Transcription, Usage, FinishReason } from '../spec/index.js';
import { transcribeOpenAiCompatible } from './transcriber.js';
import { AdapterRegistry } from './adapter-registry.js';
import { HeldAdapters } from './held-adapters.js';
import { LuaAdapter } from './lua-adapter.js';
import { LuaAdaptedProvider, type ProviderSource } from './lua-adapted-provider.js';
import { CUSTOM_SOURCES_KEY, SEEDED_SOURCES, normalizeBaseUrl, sourceKey, type SeededSource } from './provider-config.js';
import { SourceCatalog, type CatalogConfig } from './source-catalog.js';
import { redact } from './redact.js';

/** Logger the manager writes to (pino-compatible subset). */
export interface ProviderLog {
  info(msg: string, data?: Record<string, unknown>): void;
  warn(msg: string, data?: Record<string, unknown>): void;
  error(msg: string, data?: Record<string, unknown>): void;
}

export interface ProviderManagerOptions {
  /** Config; with `register`/`reset` (the registry) the person can add their own sources too. */
  config: CatalogConfig;
  /** Built-in adapters folder first, then `<home>/adapters` for the user's `.lua` files. */
  adapterDirs: string[];
  log?: ProviderLog;
  /** Clock for cool-downs (tests inject one). */
  now?: () => number;
  fetch?: typeof fetch;
  /** Env for API-key fallbacks (`GOOGLE_API_KEY` …); defaults to `process.env`. */
  env?: Record<string, string | undefined>;
  /** Probe a local Ollama at start (default true). */
  probeOllama?: boolean;
  /**
   * Leave the start probe to {@link ProviderManager.probeLocalSources} (the daemon runs it once
   * its socket answers: the first `fetch` loads Node's HTTP client, ~50 ms of a cold start).
   */
  deferProbe?: boolean;
  /** Time budget of one adapter script call (default 2000 ms). */
  adapterTimeoutMs?: number;
  /**
   * Veto of URLs that adapter scripts fetch themselves (`http_get`/`http_post`): the daemon
   * refuses its own HTTP ports, so a script cannot drive the local API (SPEC §9).
   */
  scriptUrlAllowed?: (url: URL) => boolean;
  /**
   * The person's adapters folder (`<home>/adapters`), whose `imported/` holds the adapters an
   * import brought (decision 0620: they are listed and taken here). Absent: none are held.
   */
  userAdapterDir?: string;
}

/** Options of one {@link ProviderManager.run}. */
export interface RunOptions {
  signal?: AbortSignal;
  onPart?: (part: StreamPart, provider: string) => void;
  /** Stream (default) or ask for one complete answer. */
  stream?: boolean;
}

/** What {@link ProviderManager.run} returns. */
export type RunResult = ChatResponse & { provider: string; model: string; latencyMs: number };

interface SourceState {
  authDisabled: boolean;
  failures: number;
  coolDownUntil?: number;
  lastError?: string;
  /** Ollama-style sources: the last probe's answer and when it ran. */
  reachable?: boolean;
  probedAt?: number;
}

interface ResolvedSource extends ProviderSource {
  enabled: boolean;
  /** It can be asked: a key, or a local server that answered. */
  configured: boolean;
  /** It can answer a chat: configured, with a model (one added without it would send `"model": ""`). */
  chatReady: boolean;
}

const SEEDED_NAMES = SEEDED_SOURCES.map((s) => s.name);
const REPROBE_MS = 30_000;

/** A base URL as shown: any user:password part removed (secrets are masked everywhere, G-2). */
function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    if (!u.username && !u.password) return url;
    u.username = '';
    u.password = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}

/** The message a user without any LLM source sees (SPEC §0: never a stack trace), in English or Chinese. */
export function noProviderMessage(lang: 'en' | 'zh' = 'en'): string {
  if (lang === 'zh')
    return [
      '还没有配置任何 LLM 来源，所以助手暂时无法回答（记忆、知识库和设置照常可用）。',
      '可以用下面任一种方式配置：',
      '  • 在环境变量里设置 API key 后重新启动 homed：DEEPSEEK_API_KEY、OPENAI_API_KEY 或 ANTHROPIC_API_KEY',
      '    （也可以用 GEMINI_API_KEY、通义千问的 DASHSCOPE_API_KEY、智谱 GLM 的 ZHIPUAI_API_KEY、MOONSHOT_API_KEY）；',
      '  • 运行本地的 Ollama（http://127.0.0.1:11434，或设置 OLLAMA_HOST），并拉取一个模型；',
      `  • 或者保存一个 key，立即生效：waiter config set core.llm.sources.<名称>.api_key <key>   （名称：${SEEDED_NAMES.join('、')}）`,
      '    ——也可以在 WebUI 的“设置 → LLM 来源”里添加；',
      '  • 或者添加任意 OpenAI / Anthropic 兼容的服务：waiter providers add <名称> --base-url <地址> --key-stdin --model <模型>',
    ].join('\n');
  return [
    'No LLM provider is configured, so the agent cannot answer yet (memory, knowledge and settings still work).',
    'Configure one of these:',
    '  • set an API key in the environment and start homed again: DEEPSEEK_API_KEY, OPENAI_API_KEY or ANTHROPIC_API_KEY',
    '    (also GEMINI_API_KEY, DASHSCOPE_API_KEY for Qwen, ZHIPUAI_API_KEY for GLM, MOONSHOT_API_KEY);',
    '  • run a local Ollama (http://127.0.0.1:11434, or set OLLAMA_HOST) with a pulled model;',
    `  • or store a key, which works at once: waiter config set core.llm.sources.<name>.api_key <key>   (names: ${SEEDED_NAMES.join(', ')})`,
    '    — or in the WebUI under Settings → LLM providers;',
    '  • or add any OpenAI- or Anthropic-compatible endpoint: waiter providers add <name> --base-url <url> --key-stdin --model <model>',
  ].join('\n');
}

/**
 * The LLM sources with C-6 fallback. Sources come from config (`core.llm.*`, seeded with 8 by
 * {@link providerConfigDefaults}) and are tried in `core.llm.order`. A 401/403 disables a source
 * until its config changes; other failures count, and `failure_threshold` consecutive ones put it
 * in a `cooldown_ms` cool-down. A stream may fall back only before its first part was emitted.
 * Config changes apply at once; user adapters dropped into the user adapters folder are found on
 * the next request or {@link adapters} call.
 */
export class ProviderManager {
  private readonly config: ProviderManagerOptions['config'];
  private readonly catalog: SourceCatalog;
  private readonly registry: AdapterRegistry;
  private readonly log: ProviderLog | undefined;
  private readonly now: () => number;
  private readonly doFetch: typeof fetch;
  private readonly env: Record<string, string | undefined>;
  private readonly states = new Map<string, SourceState>();
  private readonly providers = new Map<string, { sig: string; provider: LuaAdaptedProvider }>();
  private readonly adapterCache = new Map<string, { path: string; mtimeMs: number; adapter: LuaAdapter }>();
  private readonly retired: LuaAdapter[] = [];
  private unsubscribe: (() => void) | undefined;
  private started = false;

  constructor(private readonly opts: ProviderManagerOptions) {
    this.config = opts.config;
    this.catalog = new SourceCatalog(opts.config);
    this.registry = new AdapterRegistry(opts.adapterDirs);
    this.log = opts.log;
    this.now = opts.now ?? Date.now;
    this.doFetch = opts.fetch ?? fetch;
    this.env = opts.env ?? process.env;
  }

  /** Subscribes to config changes and probes local (Ollama) sources. Idempotent. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.catalog.sync();
    const offLlm = this.config.onChange((key) => this.onConfigChange(key), 'core.llm.');
    // A changed proxy (decision 0670) is a new way out: sources that failed through the old one are tried again at once.
    const offNetwork = this.config.onChange(() => {
      for (const st of this.states.values()) {
        st.failures = 0;
        st.coolDownUntil = undefined;
      }
    }, 'core.network.');
    this.unsubscribe = () => {
      offLlm();
      offNetwork();
    };
    if (this.opts.probeOllama !== false && !this.opts.deferProbe) await this.probeLocal(true);
  }

  /** Probes local (Ollama) sources now; resolves when done. Never throws. */
  async probeLocalSources(): Promise<void> {
    if (this.opts.probeOllama === false) return;
    await this.probeLocal(true).catch(() => false);
  }

  /** Unsubscribes and frees every adapter VM. Idempotent. */
  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.started = false;
    for (const { adapter } of this.adapterCache.values()) adapter.close();
    for (const a of this.retired) a.close();
    this.adapterCache.clear();
    this.retired.length = 0;
    this.providers.clear();
    this.catalog.close();
  }

  /** Source names in fallback order (`core.llm.order`, then any source it leaves out). */
  order(): string[] {
    const all = this.catalog.names();
    const raw = this.get<ConfigValue>('core.llm.order');
    const listed = Array.isArray(raw) ? raw.filter((n): n is string => typeof n === 'string' && all.includes(n)) : [];
    const uniq = [...new Set(listed)];
    return [...uniq, ...all.filter((n) => !uniq.includes(n))];
  }

  /** Persists a new fallback order in `core.llm.order`. Unknown names → ValidationError. */
  async setOrder(names: string[]): Promise<void> {
    const all = this.catalog.names();
    const unknown = names.filter((n) => !all.includes(n));
    if (unknown.length) throw new ValidationError(`unknown LLM source(s): ${unknown.join(', ')}; known: ${all.join(', ')}`, { key: 'core.llm.order' });
    if (!this.config.set) throw new ValidationError('this config cannot be written', { key: 'core.llm.order' });
    await this.config.set('core.llm.order', [...new Set(names)]);
  }

  /** The held adapters (decision 0620): what an import put in `adapters/imported/`, where nothing runs it. */
  heldAdapters(): HeldAdapterInfo[] {
    return this.held()?.list() ?? [];
  }

  /** One held adapter with its code (NotFoundError when there is none). */
  heldAdapter(name: string): HeldAdapterSource {
    const h = this.held();
    if (!h) throw new NotFoundError('held adapter', name);
    return h.get(name);
  }

  /**
   * The person takes a held adapter into use (decision 0620): the bytes they were shown (`sha256`)
   * move into `adapters/`, where the registry finds them on its next scan; replacing an adapter
   * here needs `replace`. Only the CLI socket and the WebUI's guarded routes call this.
   */
  async takeHeldAdapter(name: string, o: { sha256: unknown; replace?: boolean }): Promise<TakenAdapter> {
    const h = this.held();
    if (!h) throw new NotFoundError('held adapter', name);
    const taken = h.take(name, o);
    this.log?.info(`adapter ${name} taken into use from adapters/imported/${taken.replaced ? ` (it replaces ${taken.replaced === 'yours' ? `yours, kept at ${taken.keptAt}` : 'the shipped one'})` : ''}`);
    return taken;
  }

  /** The person discards a held adapter they were shown (`sha256`); only the CLI socket and the WebUI's guarded routes call this. */
  async discardHeldAdapter(name: string, o: { sha256: unknown }): Promise<{ name: string; discarded: true }> {
    const h = this.held();
    if (!h) throw new NotFoundError('held adapter', name);
    const out = h.discard(name, o);
    this.log?.info(`held adapter ${name} discarded from adapters/imported/`);
    return out;
  }

  private held(): HeldAdapters | undefined {
    const dir = this.opts.userAdapterDir;
    if (!dir) return undefined;
    return new HeldAdapters(dir, this.opts.adapterDirs[0] ?? dir, () => this.status().map((s) => ({ name: s.name, adapter: s.adapter, enabled: s.enabled })));
  }

  /** Adapter names available now (built-in + user folder, rescanned on every call). */
  adapters(): string[] {
    return this.registry.names();
  }

  /** True when at least one source is enabled, configured and not disabled by an auth failure. */
  available(): boolean {
    return this.catalog.names().some((n) => {
      const s = this.resolve(n);
      return s.enabled && s.chatReady && !this.state(n).authDisabled;
    });
  }

  status(): ProviderStatus[] {
    const now = this.now();
    return this.order().map((n) => {
      const s = this.resolve(n);
      const st = this.state(n);
      const cooling = st.coolDownUntil !== undefined && now < st.coolDownUntil;
      const def = this.catalog.get(n)!;
      return {
        name: n,
        label: def.label,
        custom: def.custom,
        models: def.models,
        hasKey: s.apiKey !== '',
        adapter: s.adapter,
        model: s.model,
        baseUrl: shownUrl(s.baseUrl),
        enabled: s.enabled,
        configured: s.chatReady,
        state: !s.chatReady ? 'unconfigured' : st.authDisabled ? 'disabled-auth' : cooling ? 'cooling-down' : 'ready',
        consecutiveFailures: st.failures,
        ...(st.lastError ? { lastError: st.lastError } : {}),
        ...(cooling ? { coolDownUntil: st.coolDownUntil } : {}),
      };
    });
  }

  /**
   * Runs one LLM call with fallback. Streams by default (parts go to `onPart` as they arrive);
   * returns the aggregate. No source configured → NoProviderError `NO_PROVIDER_CONFIGURED`;
   * every source failed or is unavailable → NoProviderError `ALL_PROVIDERS_FAILED` with the
   * attempts; the caller's abort → ProviderError kind `aborted` (no fallback).
   */
  async run(req: Omit<ChatRequest, 'model'> & { model?: string }, opts: RunOptions = {}): Promise<RunResult> {
    let attempts = await this.tryAll(req, opts);
    if (attempts === undefined) {
      // Nothing configured: a local Ollama may have come up since the last probe.
      if (this.opts.probeOllama !== false && (await this.probeLocal(false))) attempts = await this.tryAll(req, opts);
      if (attempts === undefined) throw new NoProviderError(noProviderMessage(), [], true, noProviderMessage('zh'));
    }
    if ('result' in attempts) return attempts.result;
    // An attempt's error often names its source already ("deepseek: network error …"): said once.
    const line = (a: { provider: string; error: string }) => `  • ${a.error.startsWith(`${a.provider}: `) ? a.error : `${a.provider}: ${a.error}`}`;
    throw new NoProviderError(`All LLM sources failed:\n${attempts.list.map(line).join('\n')}`, attempts.list, false);
  }

  /**
   * Sends a tiny request to one source, bypassing fallback; success clears its failure state.
   * A built-in hosted source without a key answers `code: 'PROVIDER_NO_KEY'` without a request.
   */
  async testSource(name: string): Promise<{ ok: boolean; latencyMs: number; error?: string; code?: string }> {
    if (!this.catalog.get(name)) throw new NotFoundError('LLM source', name);
    const src = this.resolve(name);
    const noKey = this.missingKey(src);
    if (noKey) return { ok: false, latencyMs: 0, code: noKey.code, error: noKey.message };
    if (!src.model) return { ok: false, latencyMs: 0, code: 'PROVIDER_NO_MODEL', error: `${name} has no model: pick one in the WebUI (Settings → LLM providers lists what the server offers) or with \`waiter providers update ${name} --model <name>\`` };
    const t0 = performance.now();
    try {
      const provider = await this.providerFor(src);
      await provider.chat({ model: src.model, messages: [{ role: 'user', content: 'Reply with: ok' }], maxTokens: 16 }, AbortSignal.timeout(20_000));
      this.states.set(name, { ...this.state(name), authDisabled: false, failures: 0, coolDownUntil: undefined, lastError: undefined, reachable: true });
      return { ok: true, latencyMs: Math.round(performance.now() - t0) };
    } catch (e) {
      return { ok: false, latencyMs: Math.round(performance.now() - t0), error: this.redact(e instanceof Error ? e.message : String(e)) };
    }
  }

  /**
   * Adds an LLM source (an OpenAI- or Anthropic-compatible endpoint, or any adapter) and puts it
   * last in the fallback order. Bad input → ValidationError; a taken name → ConflictError.
   */
  async addSource(input: unknown): Promise<ProviderStatus> {
    const name = await this.catalog.add(input, (a) => this.registry.get(a) !== undefined);
    this.log?.info(`LLM source ${name} added`, { provider: name });
    return this.status().find((s) => s.name === name)!;
  }

  /** Changes a source's settings (base URL, key, model, adapter, enabled; label and models of custom ones). */
  async updateSource(name: string, patch: unknown): Promise<ProviderStatus> {
    await this.catalog.update(name, patch, (a) => this.registry.get(a) !== undefined);
    return this.status().find((s) => s.name === name)!;
  }

  /** Removes a source the person added: its settings and key are deleted. Seeded ones → ValidationError. */
  async removeSource(name: string): Promise<void> {
    await this.catalog.remove(name);
    const raw = this.get<ConfigValue>('core.llm.order');
    if (Array.isArray(raw) && raw.includes(name) && this.config.set) await this.config.set('core.llm.order', raw.filter((n) => n !== name));
    this.states.delete(name);
    this.providers.delete(name);
    this.log?.info(`LLM source ${name} removed`, { provider: name });
  }

  /**
   * The models the source's API offers (`/v1/models` of OpenAI-compatible APIs, `/v1/models` of
   * Anthropic, `/api/tags` of Ollama …, through the adapter), plus the ones the person declared.
   * Unknown source → NotFoundError; a built-in hosted source without a key → HomeAgentError
   * `PROVIDER_NO_KEY` (no request is made); API errors are ProviderErrors with secrets redacted.
   */
  async listModels(name: string): Promise<{ models: string[]; declared: string[] }> {
    const def = this.catalog.get(name);
    if (!def) throw new NotFoundError('LLM source', name);
    const src = this.resolve(name);
    const noKey = this.missingKey(src);
    if (noKey) throw noKey;
    const provider = await this.providerFor(src);
    const models = await provider.listModels(AbortSignal.timeout(20_000));
    return { models, declared: def.models };
  }

  /**
   * Speech to text (C-11): through `core.media.transcription.source` when set, else the first
   * ready source in the fallback order that offers it — the OpenAI API, or any source whose
   * `options.transcription_model` names a model (an OpenAI-compatible `/audio/transcriptions`).
   * None → HomeAgentError `NO_TRANSCRIBER`; the call's failures are ProviderErrors.
   */
  async transcribe(audio: { data: Uint8Array; name: string; mimeType: string }, signal?: AbortSignal): Promise<Transcription> {
    const pick = this.transcriptionSource();
    if (!pick) throw new HomeAgentError('NO_TRANSCRIBER', 'no configured LLM source offers speech to text (set core.media.transcription.source to an OpenAI-compatible source)');
    const language = this.get<ConfigValue>('core.media.transcription.language');
    const text = await transcribeOpenAiCompatible({
      source: pick.src.name,
      baseUrl: pick.src.baseUrl,
      apiKey: pick.src.apiKey,
      model: pick.model,
      language: typeof language === 'string' && language ? language : undefined,
      audio,
      fetch: this.doFetch,
      signal,
      timeoutMs: this.num('core.llm.timeout_ms', 120_000),
      redact: (t) => this.redact(t),
    });
    return { text, source: pick.src.name, model: pick.model };
  }

  /** The source and model that transcribe audio, if any. */
  private transcriptionSource(): { src: ResolvedSource; model: string } | undefined {
    const str = (k: string): string => {
      const v = this.get<ConfigValue>(k);
      return typeof v === 'string' ? v.trim() : '';
    };
    const explicit = str('core.media.transcription.source');
    const model = str('core.media.transcription.model');
    const usable = (src: ResolvedSource) => src.enabled && src.configured && !this.state(src.name).authDisabled && src.adapter !== 'ollama';
    if (explicit) {
      if (!this.catalog.get(explicit)) {
        this.log?.warn(`core.media.transcription.source names an unknown LLM source "${explicit}"`);
        return undefined;
      }
      const src = this.resolve(explicit);
      if (!usable(src)) return undefined;
      const own = typeof src.options?.transcription_model === 'string' ? src.options.transcription_model : '';
      return { src, model: model || own || 'whisper-1' };
    }
    for (const name of this.order()) {
      const src = this.resolve(name);
      if (!usable(src)) continue;
      const own = typeof src.options?.transcription_model === 'string' ? src.options.transcription_model : '';
      if (own) return { src, model: model || own };
      if (src.adapter === 'openai') return { src, model: model || 'whisper-1' };
    }
    return undefined;
  }

  // ------------------------------------------------------------------ internals

  /** undefined: no source was eligible and none is configured. */
  private async tryAll(req: Omit<ChatRequest, 'model'> & { model?: string }, opts: RunOptions): Promise<{ result: RunResult } | { list: { provider: string; error: string }[] } | undefined> {
    const list: { provider: string; error: string }[] = [];
    const now = this.now();
    for (const name of this.order()) {
      const src = this.resolve(name);
      if (!src.enabled || !src.chatReady) continue;
      const st = this.state(name);
      if (st.authDisabled) {
        list.push({ provider: name, error: `disabled after an authentication failure (fix its key): ${st.lastError ?? ''}` });
        continue;
      }
      if (st.coolDownUntil !== undefined && now < st.coolDownUntil) {
        list.push({ provider: name, error: `cooling down for ${Math.ceil((st.coolDownUntil - now) / 1000)} s after ${st.failures} failures: ${st.lastError ?? ''}` });
        continue;
      }
      const ctx = { emitted: false };
      try {
        const result = await this.attempt(src, req, opts, ctx);
        st.failures = 0;
        st.coolDownUntil = undefined;
        st.lastError = undefined;
        return { result };
      } catch (e) {
        const pe = this.toProviderError(name, e);
        if (pe.kind === 'aborted' || opts.signal?.aborted) throw pe.kind === 'aborted' ? pe : new ProviderError(name, 'aborted', `${name}: request aborted`, { cause: e });
        this.recordFailure(name, pe);
        list.push({ provider: name, error: pe.message });
        if (ctx.emitted) throw pe;
      }
    }
    return list.length ? { list } : undefined;
  }

  private async attempt(src: ResolvedSource, req: Omit<ChatRequest, 'model'> & { model?: string }, opts: RunOptions, ctx: { emitted: boolean }): Promise<RunResult> {
    const provider = await this.providerFor(src);
    const model = req.model || src.model;
    const full: ChatRequest = { ...req, model };
    const t0 = performance.now();
    const emit = (p: StreamPart): void => {
      ctx.emitted = true;
      opts.onPart?.(p, src.name);
    };
    if (opts.stream === false) {
      const r = await provider.chat(full, opts.signal);
      if (opts.onPart) {
        if (r.reasoning) emit({ type: 'reasoning-delta', text: r.reasoning });
        if (r.text) emit({ type: 'text-delta', text: r.text });
        for (const toolCall of r.toolCalls) emit({ type: 'tool-call', toolCall });
        emit({ type: 'finish', usage: r.usage, finishReason: r.finishReason });
      }
      return { ...r, model, provider: src.name, latencyMs: Math.round(performance.now() - t0) };
    }
    let text = '';
    let reasoning = '';
    const toolCalls: ToolCall[] = [];
    let usage: Usage = { inputTokens: 0, outputTokens: 0 };
    let finishReason: FinishReason = 'stop';
    for await (const part of provider.chatStream(full, opts.signal)) {
      emit(part);
      switch (part.type) {
        case 'text-delta':
          text += part.text;
          break;
        case 'reasoning-delta':
          reasoning += part.text;
          break;
        case 'tool-call':
          toolCalls.push(part.toolCall);
          break;
        case 'finish':
          usage = part.usage;
          finishReason = part.finishReason;
          break;
        case 'error': {
          const kinds = ['auth', 'http', 'network', 'timeout', 'aborted', 'adapter', 'bad-response'] as const;
          const kind = kinds.find((k) => k === part.error.code) ?? 'http';
          throw new ProviderError(src.name, kind, part.error.message, { status: part.error.status });
        }
      }
    }
    return { text, reasoning, toolCalls, usage, finishReason, model, provider: src.name, latencyMs: Math.round(performance.now() - t0) };
  }

  private toProviderError(name: string, e: unknown): ProviderError {
    if (e instanceof ProviderError) return e;
    const msg = this.redact(e instanceof Error ? e.message : String(e));
    if (e instanceof Error && e.name === 'AbortError') return new ProviderError(name, 'aborted', `${name}: request aborted`);
    return new ProviderError(name, isHomeAgentError(e) ? 'adapter' : 'network', `${name}: ${msg}`);
  }

  private recordFailure(name: string, e: ProviderError): void {
    const st = this.state(name);
    st.lastError = e.message;
    if (e.kind === 'auth') {
      st.authDisabled = true;
      this.log?.warn(`LLM source ${name} disabled until its config changes: ${e.message}`, { provider: name, status: e.status });
      return;
    }
    // A refusal of this one request (400 bad request, 413 too large, 422 unprocessable: an image to a
    // model without vision, a context too long) says nothing about the source: it still falls back
    // to the next one, but does not count towards the cooldown — three bad requests from one API
    // client would otherwise put the source out of service for every channel. A request too
    // large for the adapter's Lua VM (kind adapter, 413) is such a refusal too.
    if ((e.kind === 'http' && (e.status === 400 || e.status === 413 || e.status === 422)) || (e.kind === 'adapter' && e.status === 413)) {
      this.log?.warn(`LLM source ${name} refused the request (${e.status}): ${e.message}`, { provider: name, kind: e.kind, status: e.status });
      return;
    }
    st.failures++;
    const threshold = this.num('core.llm.failure_threshold', 3);
    if (st.failures >= threshold) {
      st.coolDownUntil = this.now() + this.num('core.llm.cooldown_ms', 60_000);
      this.log?.warn(`LLM source ${name} cools down after ${st.failures} consecutive failures: ${e.message}`, { provider: name, kind: e.kind });
    } else {
      this.log?.warn(`LLM source ${name} failed (${e.kind}): ${e.message}`, { provider: name, kind: e.kind, status: e.status });
    }
  }

  private onConfigChange(key: string): void {
    if (key === CUSTOM_SOURCES_KEY) {
      this.catalog.sync();
      return;
    }
    const m = /^core\.llm\.sources\.([^.]+)\./.exec(key);
    if (m) {
      const name = m[1];
      const prev = this.states.get(name);
      this.states.set(name, { authDisabled: false, failures: 0 });
      this.providers.delete(name);
      if (prev?.reachable !== undefined && this.opts.probeOllama !== false) void this.probeLocal(true);
      return;
    }
    if (/^core\.llm\.(timeout_ms|idle_timeout_ms)$/.test(key)) this.providers.clear();
  }

  private state(name: string): SourceState {
    let st = this.states.get(name);
    if (!st) {
      st = { authDisabled: false, failures: 0 };
      this.states.set(name, st);
    }
    return st;
  }

  private get<T extends ConfigValue>(key: string): T | undefined {
    try {
      return this.config.get<T>(key);
    } catch {
      return undefined;
    }
  }

  private num(key: string, fallback: number): number {
    const v = this.get<number>(key);
    return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
  }

  private isLocal(adapter: string): boolean {
    return adapter === 'ollama';
  }

  /**
   * A built-in hosted source (OpenAI, DeepSeek …) without an API key cannot answer: asking it
   * anyway only yields a network or 401 error that hides the real cause, so the test and the model
   * list say so without a request. Local sources (Ollama) need no key; sources the person added,
   * and built-in ones whose base URL the person set, may be keyless servers of their own (LM
   * Studio, vLLM) and are asked as they are.
   */
  private missingKey(src: ResolvedSource): HomeAgentError | undefined {
    if (src.apiKey || this.isLocal(src.adapter) || this.catalog.get(src.name)?.custom) return undefined;
    // The setting reads as its env variable or default when the person set none: only another URL is theirs.
    const seeded = this.catalog.get(src.name);
    const setUrl = this.get<ConfigValue>(sourceKey(src.name, 'base_url'));
    const norm = (u: string | undefined) => (u ? normalizeBaseUrl(u) : '');
    if (typeof setUrl === 'string' && setUrl.trim() && norm(setUrl) !== norm(seeded?.baseUrl) && norm(setUrl) !== norm(seeded?.baseUrlEnv ? this.env[seeded.baseUrlEnv] : undefined)) return undefined;
    return new HomeAgentError('PROVIDER_NO_KEY', `${src.name} has no API key: add one in the WebUI (Settings → LLM providers) or with \`waiter providers update ${src.name} --key-stdin\``, { details: { provider: src.name } });
  }

  private resolve(name: string): ResolvedSource {
    const seeded: SeededSource = this.catalog.get(name) ?? { name, label: name, adapter: 'openai-compatible', baseUrl: '', model: '', keyEnv: [] };
    const str = (field: 'adapter' | 'base_url' | 'model' | 'api_key'): string => {
      const v = this.get<ConfigValue>(sourceKey(name, field));
      return typeof v === 'string' ? v : '';
    };
    const adapter = str('adapter') || seeded.adapter;
    const baseUrl = normalizeBaseUrl(str('base_url') || (seeded.baseUrlEnv && this.env[seeded.baseUrlEnv]) || seeded.baseUrl);
    let apiKey = str('api_key');
    if (!apiKey) for (const v of seeded.keyEnv) if (this.env[v]) { apiKey = this.env[v]!; break; }
    const enabledRaw = this.get<ConfigValue>(sourceKey(name, 'enabled'));
    const options = this.get<ConfigValue>(sourceKey(name, 'options'));
    const enabled = enabledRaw !== false;
    const model = str('model') || seeded.model;
    const configured = apiKey !== '' || (this.isLocal(adapter) && this.state(name).reachable === true);
    const opts = options && typeof options === 'object' && !Array.isArray(options) ? (options as Record<string, unknown>) : {};
    return {
      name,
      adapter,
      baseUrl,
      model,
      apiKey,
      apiVersion: typeof opts.api_version === 'string' ? opts.api_version : undefined,
      options: opts,
      enabled,
      configured,
      // No model (a source added without one): every chat would carry `"model": ""`, which servers
      // refuse — not ready for chat until one is set (a transcription-only source still transcribes).
      chatReady: configured && model !== '',
    };
  }

  private secrets(): string[] {
    return this.catalog.names().map((n) => {
      const v = this.get<ConfigValue>(sourceKey(n, 'api_key'));
      return typeof v === 'string' ? v : '';
    }).concat(SEEDED_SOURCES.flatMap((s) => s.keyEnv.map((k) => this.env[k] ?? '')));
  }

  private redact(text: string): string {
    return redact(text, this.secrets());
  }

  /** Probes local sources (`GET /api/tags`); returns true when one became reachable. */
  private async probeLocal(force: boolean): Promise<boolean> {
    let found = false;
    await Promise.all(
      this.catalog.names().map(async (name) => {
        const src = this.resolve(name);
        if (!this.isLocal(src.adapter) || !src.enabled || src.apiKey) return;
        const st = this.state(name);
        if (!force && st.probedAt !== undefined && this.now() - st.probedAt < REPROBE_MS) return;
        st.probedAt = this.now();
        const before = st.reachable;
        try {
          const res = await this.doFetch(`${src.baseUrl}/api/tags`, { signal: AbortSignal.timeout(1500) });
          await res.body?.cancel().catch(() => {});
          st.reachable = res.ok;
        } catch {
          st.reachable = false;
        }
        if (st.reachable && !before) {
          found = true;
          this.log?.info(`local LLM source ${name} is reachable at ${src.baseUrl}`, { provider: name });
        }
      }),
    );
    return found;
  }

  private async adapterFor(sourceName: string, name: string): Promise<LuaAdapter> {
    const file = this.registry.get(name);
    if (!file) throw new ProviderError(sourceName, 'adapter', `${sourceName}: no Lua adapter named "${name}" (available: ${this.registry.names().join(', ')})`);
    const cached = this.adapterCache.get(name);
    if (cached && cached.path === file.path && cached.mtimeMs === file.mtimeMs) return cached.adapter;
    if (cached) this.retired.push(cached.adapter); // in-flight requests may still use it; freed at stop()
    let source: string;
    try {
      source = readFileSync(file.path, 'utf8');
    } catch (e) {
      throw new ProviderError(sourceName, 'adapter', `${sourceName}: cannot read adapter ${file.path}: ${(e as Error).message}`);
    }
    const adapter = new LuaAdapter({
      name,
      source,
      resolveSource: (n) => this.registry.source(n),
      fetch: this.doFetch,
      allowUrl: this.opts.scriptUrlAllowed,
      timeoutMs: this.opts.adapterTimeoutMs,
      log: (level, msg) => {
        const line = `adapter ${name}.lua: ${this.redact(msg)}`;
        if (level === 'error') this.log?.error(line);
        else if (level === 'warn') this.log?.warn(line);
        else this.log?.info(line);
      },
    });
    this.adapterCache.set(name, { path: file.path, mtimeMs: file.mtimeMs, adapter });
    this.providers.clear();
    return adapter;
  }

  private async providerFor(src: ResolvedSource): Promise<LuaAdaptedProvider> {
    const adapter = await this.adapterFor(src.name, src.adapter);
    const timeoutMs = this.num('core.llm.timeout_ms', 120_000);
    const idleTimeoutMs = this.num('core.llm.idle_timeout_ms', 60_000);
    const sig = JSON.stringify([src.adapter, src.baseUrl, src.model, src.apiKey, src.options, timeoutMs, idleTimeoutMs]);
    const cached = this.providers.get(src.name);
    if (cached && cached.sig === sig) return cached.provider;
    const provider = new LuaAdaptedProvider({ source: src, adapter, fetch: this.doFetch, timeoutMs, idleTimeoutMs, secrets: () => this.secrets() });
    this.providers.set(src.name, { sig, provider });
    return provider;
  }
}
