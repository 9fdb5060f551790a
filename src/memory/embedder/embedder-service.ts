import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { Transform } from 'node:stream';
import { rename, rm } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { ConfigReader, ConfigValue } from '../../spec/config.js';
import { EmbeddingsApiClient } from './embeddings-api-client.js';
import { StaticVectors } from './static-vectors.js';
import { extractKeywords, lexicalTokens } from './tokenizer.js';

/** Minimal logger the embedder writes to. */
export interface EmbedderLog {
  info(m: string): void;
  warn(m: string): void;
}

/** A vector file download in progress. */
export interface DownloadProgress {
  file: string;
  url: string;
  bytes: number;
  /** From Content-Length, when the server sent one. */
  total?: number;
  startedAt: number;
}

/** Where the seed's "download by name" fetches a missing vector file from (T-1). */
export const KNOWN_VECTOR_SOURCES: { match: string; url: string }[] = [
  { match: 'numberbatch', url: 'https://conceptnet.s3.amazonaws.com/downloads/2019/numberbatch/numberbatch-19.08.txt.gz' },
  { match: 'cc.zh.', url: 'https://dl.fbaipublicfiles.com/fasttext/vectors-crawl/cc.zh.300.vec.gz' },
  { match: 'cc.en.', url: 'https://dl.fbaipublicfiles.com/fasttext/vectors-crawl/cc.en.300.vec.gz' },
];

const CONFIG_KEYS = ['core.memory.embedding_model_path', 'core.memory.embedding_download_url', 'core.memory.embedding_api.base_url', 'core.memory.embedding_api.model', 'core.memory.embedding_api.api_key', 'core.memory.embedding_api'];

type Backend = { kind: 'lexical' } | { kind: 'static'; vectors: StaticVectors } | { kind: 'api'; client: EmbeddingsApiClient; model: string; dim: number };

/**
 * The one embedding service shared by every memory tier (T-1): context, documents, graph entities,
 * knowledge and the memory library all embed through it, so their vectors live in one space.
 *
 * Lexical tokens are always available. A dense model is optional: static word vectors from
 * `core.memory.embedding_model_path` (comma-separated files) or an embeddings API
 * (`core.memory.embedding_api.*`, which wins when its base_url is set). Models load in the
 * background after `start()`; until then (or when loading fails) `dense` is false and callers rank
 * lexically. Every change of model is announced through `onModelChange` so indexes re-embed.
 */
export class EmbedderService {
  private backend: Backend = { kind: 'lexical' };
  private readonly listeners = new Set<(modelId: string) => void>();
  private loading: Promise<void> = Promise.resolve();
  private generation = 0;
  private unsubscribe: (() => void) | undefined;
  private started = false;
  private lastApiWarn = 0;
  private readonly tokenCache = new Map<string, string[]>();
  private readonly log: EmbedderLog;

  /** The vector file being downloaded, with its progress (undefined when none). */
  private dl: DownloadProgress | undefined;

  /**
   * `downloadStallMs`: a download is given up when no byte arrives for this long (default 30 s);
   * there is no limit on the whole transfer (fastText files are gigabytes).
   */
  constructor(private readonly opts: { config: ConfigReader; log?: EmbedderLog; fetch?: typeof fetch; dataDir?: string; downloadStallMs?: number }) {
    this.log = opts.log ?? { info: () => {}, warn: () => {} };
  }

  /** Subscribes to config changes and begins loading the configured model in the background. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.unsubscribe = this.opts.config.onChange((key) => {
      if (CONFIG_KEYS.some((k) => key === k || key.startsWith(`${k}.`))) void this.reload();
    }, 'core.memory.');
    void this.reload();
  }

  /** Resolves when the model load in progress (if any) has finished or fallen back. */
  ready(): Promise<void> {
    return this.loading;
  }

  /** Idempotent. */
  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.started = false;
    this.generation++;
  }

  /**
   * Lexical tokens: jieba (cut_for_search) for Chinese, lowercase + stop-words + Porter stem for
   * English. Recent texts are cached: the same turn is tokenised by the context, then by the
   * document store when it is archived.
   */
  tokenize(text: string): string[] {
    if (text.length > 4096) return lexicalTokens(text);
    const hit = this.tokenCache.get(text);
    if (hit) return hit.slice();
    const toks = lexicalTokens(text);
    if (this.tokenCache.size >= 2048) this.tokenCache.delete(this.tokenCache.keys().next().value as string);
    this.tokenCache.set(text, toks);
    return toks.slice();
  }

  /** Drops cached tokens of texts that contain any of `needles` (forget, K-2: nothing of it stays in memory). */
  forgetTexts(needles: readonly string[]): void {
    const ns = needles.filter((n) => n.length > 0);
    if (!ns.length) return;
    for (const t of [...this.tokenCache.keys()]) if (ns.some((n) => t.includes(n) || n.includes(t))) this.tokenCache.delete(t);
  }

  /** Salient keywords (jieba TF-IDF extract for Chinese, content words for English). */
  keywords(text: string, k = 8): string[] {
    return extractKeywords(text, k);
  }

  /** True when a dense model (static vectors or embeddings API) is loaded. */
  get dense(): boolean {
    return this.backend.kind !== 'lexical';
  }

  /** Dimension of the dense space, 0 when lexical. */
  get dim(): number {
    const b = this.backend;
    return b.kind === 'static' ? b.vectors.dim : b.kind === 'api' ? b.dim : 0;
  }

  /** 'lexical' | 'static:<name>#<dim>' | 'api:<model>#<dim>' — recorded by every index. */
  modelId(): string {
    const b = this.backend;
    if (b.kind === 'static') return `static:${b.vectors.name}#${b.vectors.dim}`;
    if (b.kind === 'api') return `api:${b.model}#${b.dim}`;
    return 'lexical';
  }

  /**
   * Dense vectors in the one shared space, or nulls when no dense model (or when a text has no
   * known word / the API failed — failures are logged, never thrown, so retrieval goes on lexically).
   */
  async embed(texts: string[]): Promise<(Float32Array | null)[]> {
    const b = this.backend;
    if (b.kind === 'static') return texts.map((t) => b.vectors.embed(t));
    if (b.kind === 'api') {
      try {
        const vs = await b.client.embed(texts.map((t) => (t.length > 8000 ? t.slice(0, 8000) : t || ' ')));
        if (this.backend !== b) return texts.map(() => null); // model changed meanwhile: old space
        return vs.map((v) => (v.length === b.dim ? normalise(v) : null));
      } catch (e) {
        const now = Date.now();
        if (now - this.lastApiWarn > 30_000) {
          this.lastApiWarn = now;
          this.log.warn(`embedder: embeddings API failed (${(e as Error).message}); ranking lexically for these texts`);
        }
        return texts.map(() => null);
      }
    }
    return texts.map(() => null);
  }

  /** Synchronous embedding, available for static vectors only (null otherwise). */
  embedSync(text: string): Float32Array | null {
    const b = this.backend;
    return b.kind === 'static' ? b.vectors.embed(text) : null;
  }

  /** Called with the new modelId after every model change (including fallback to lexical). */
  onModelChange(fn: (modelId: string) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Reloads the model from config now (also triggered by config changes). */
  reload(): Promise<void> {
    const gen = ++this.generation;
    const prev = this.loading;
    this.loading = prev.then(() => this.load(gen)).catch((e: unknown) => {
      this.log.warn(`embedder: model load failed: ${(e as Error).message}; using lexical ranking`);
      this.setBackend({ kind: 'lexical' }, gen);
    });
    return this.loading;
  }

  private async load(gen: number): Promise<void> {
    if (gen !== this.generation) return;
    const api = this.apiConfig();
    if (api.baseUrl) {
      const client = new EmbeddingsApiClient({ baseUrl: api.baseUrl, model: api.model, apiKey: api.apiKey, fetch: this.opts.fetch });
      try {
        const [probe] = await client.embed(['dimension probe']);
        if (!probe || probe.length === 0) throw new Error('empty vector');
        this.log.info(`embedder: embeddings API ${api.model} at ${api.baseUrl} (${probe.length} dimensions)`);
        this.setBackend({ kind: 'api', client, model: api.model, dim: probe.length }, gen);
        return;
      } catch (e) {
        this.log.warn(`embedder: embeddings API at ${api.baseUrl} unavailable (${(e as Error).message}); falling back to ${this.pathList().length ? 'static vectors' : 'lexical (BM25/TF-IDF) ranking'}`);
      }
    }
    const paths = this.pathList();
    if (paths.length === 0) {
      this.setBackend({ kind: 'lexical' }, gen);
      return;
    }
    const files: string[] = [];
    for (const p of paths) {
      const abs = isAbsolute(p) ? p : join(this.opts.dataDir ?? process.cwd(), p);
      if (existsSync(abs)) files.push(abs);
      else if (await this.download(abs)) files.push(abs);
    }
    if (files.length === 0) {
      this.log.warn('embedder: no vector file available; falling back to lexical (BM25/TF-IDF) ranking — service continues');
      this.setBackend({ kind: 'lexical' }, gen);
      return;
    }
    const maxWords = num(this.get('core.memory.embedding_max_words'), 200_000);
    const t0 = Date.now();
    const vectors = await StaticVectors.load(files, { maxWords, onWarn: (m) => this.log.warn(`embedder: ${m}`) });
    if (gen !== this.generation) return;
    this.log.info(`embedder: loaded ${vectors.size} word vectors (${vectors.dim} dimensions) from ${vectors.name} in ${Date.now() - t0} ms`);
    this.setBackend({ kind: 'static', vectors }, gen);
  }

  /** The download in progress, if any (file, URL, bytes so far, total when the server said). */
  downloadProgress(): DownloadProgress | undefined {
    return this.dl ? { ...this.dl } : undefined;
  }

  /**
   * Seed: a missing file whose name says numberbatch / cc.zh. / cc.en. is downloaded (default:
   * ConceptNet), or from `core.memory.embedding_download_url`. Progress is logged every 10 % (or
   * every 64 MiB without a length); a transfer that stalls for `downloadStallMs` is given up.
   */
  private async download(path: string): Promise<boolean> {
    const name = basename(path);
    const mirror = this.get('core.memory.embedding_download_url');
    const known = (KNOWN_VECTOR_SOURCES.find((s) => name.includes(s.match)) ?? KNOWN_VECTOR_SOURCES[0]).url;
    // A mirror ending in "/" is a folder holding the usual file names; otherwise it is the file.
    const url = typeof mirror === 'string' && mirror ? (mirror.endsWith('/') ? mirror + known.slice(known.lastIndexOf('/') + 1) : mirror) : known;
    const f = this.opts.fetch ?? fetch;
    const tmp = `${path}.download-${process.pid}`;
    const stallMs = this.opts.downloadStallMs ?? 30_000;
    const abort = new AbortController();
    let stall: ReturnType<typeof setTimeout> | undefined;
    const alive = () => {
      clearTimeout(stall);
      stall = setTimeout(() => abort.abort(new Error(`no data for ${Math.round(stallMs / 1000)} s`)), stallMs);
    };
    this.log.info(`embedder: ${name} not found; downloading ${url}`);
    try {
      alive();
      const res = await f(url, { signal: abort.signal });
      if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
      mkdirSync(dirname(path), { recursive: true });
      const total = Number(res.headers.get('content-length')) || undefined;
      const dl: DownloadProgress = { file: name, url, bytes: 0, total, startedAt: Date.now() };
      this.dl = dl;
      let nextReport = total ? total / 10 : 64 * 2 ** 20;
      const meter = new Transform({
        transform: (chunk: Buffer, _enc, done) => {
          alive();
          dl.bytes += chunk.length;
          if (dl.bytes >= nextReport) {
            nextReport += total ? total / 10 : 64 * 2 ** 20;
            const mib = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;
            const rate = dl.bytes / 2 ** 20 / Math.max(0.001, (Date.now() - dl.startedAt) / 1000);
            this.log.info(`embedder: downloading ${name}: ${total ? `${Math.round((dl.bytes / total) * 100)}% (${mib(dl.bytes)} of ${mib(total)})` : mib(dl.bytes)} at ${rate.toFixed(1)} MiB/s`);
          }
          done(null, chunk);
        },
      });
      const body = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream);
      // Packed when the URL's path ends in .gz or the server says gzip (a mirror may add a query).
      const packed = new URL(url).pathname.endsWith('.gz') || /gzip/i.test(res.headers.get('content-type') ?? '');
      const gunzip = packed && !path.endsWith('.gz');
      if (gunzip) await pipeline(body, meter, createGunzip(), createWriteStream(tmp), { signal: abort.signal });
      else await pipeline(body, meter, createWriteStream(tmp), { signal: abort.signal });
      await rename(tmp, path);
      this.log.info(`embedder: downloaded ${name} (${(dl.bytes / 2 ** 20).toFixed(1)} MiB in ${((Date.now() - dl.startedAt) / 1000).toFixed(1)} s)`);
      return true;
    } catch (e) {
      await rm(tmp, { force: true });
      const why = abort.signal.aborted && abort.signal.reason instanceof Error ? abort.signal.reason.message : (e as Error).message;
      this.log.warn(`embedder: download of ${url} failed (${why}); falling back to lexical (BM25/TF-IDF) ranking for ${name}`);
      return false;
    } finally {
      clearTimeout(stall);
      this.dl = undefined;
    }
  }

  private setBackend(b: Backend, gen: number): void {
    if (gen !== this.generation) return;
    const before = this.modelId();
    this.backend = b;
    const after = this.modelId();
    if (after !== before) for (const fn of this.listeners) fn(after);
  }

  private pathList(): string[] {
    const v = this.get('core.memory.embedding_model_path');
    return typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter(Boolean) : [];
  }

  private apiConfig(): { baseUrl: string; model: string; apiKey?: string } {
    const obj = this.get('core.memory.embedding_api');
    const o = typeof obj === 'object' && obj !== null && !Array.isArray(obj) ? (obj as Record<string, ConfigValue>) : {};
    const baseUrl = str(this.get('core.memory.embedding_api.base_url')) ?? str(o.base_url) ?? '';
    const model = str(this.get('core.memory.embedding_api.model')) ?? str(o.model) ?? 'text-embedding-3-small';
    const apiKey = str(this.get('core.memory.embedding_api.api_key')) ?? str(o.api_key);
    return { baseUrl, model, apiKey };
  }

  /** Unregistered keys read as undefined rather than throwing. */
  private get(key: string): ConfigValue | undefined {
    try {
      return this.opts.config.get(key);
    } catch {
      return undefined;
    }
  }
}

function str(v: ConfigValue | undefined): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

function num(v: ConfigValue | undefined, d: number): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : d;
}

function normalise(v: Float32Array): Float32Array | null {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i] * v[i];
  n = Math.sqrt(n);
  if (!(n > 0)) return null;
  for (let i = 0; i < v.length; i++) v[i] /= n;
  return v;
}
