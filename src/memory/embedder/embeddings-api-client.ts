import { ProviderError } from '../../spec/errors/index.js';

/** Which wire format the server speaks. */
export type EmbeddingsApiFlavor = 'openai' | 'ollama';

const BATCH = 64;

/**
 * Client of an embeddings HTTP API (T-1): OpenAI-compatible `POST {base}/v1/embeddings`
 * (`{model, input}` → `data[].embedding`) or Ollama `POST {base}/api/embed`
 * (`{model, input}` → `embeddings[][]`). The flavour is detected once: OpenAI first, Ollama on 404.
 */
export class EmbeddingsApiClient {
  private flavor: EmbeddingsApiFlavor | undefined;

  constructor(
    private readonly opts: { baseUrl: string; model: string; apiKey?: string; fetch?: typeof fetch; timeoutMs?: number },
  ) {}

  /** Embeds texts in batches of 64; throws ProviderError on HTTP or shape errors. */
  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += BATCH) out.push(...(await this.batch(texts.slice(i, i + BATCH))));
    return out;
  }

  private url(flavor: EmbeddingsApiFlavor): string {
    const base = this.opts.baseUrl.replace(/\/+$/, '');
    if (flavor === 'ollama') return `${base.replace(/\/api$/, '')}/api/embed`;
    return /\/v\d+$/.test(base) ? `${base}/embeddings` : `${base}/v1/embeddings`;
  }

  private async batch(input: string[]): Promise<Float32Array[]> {
    if (input.length === 0) return [];
    const tryOrder: EmbeddingsApiFlavor[] = this.flavor ? [this.flavor] : ['openai', 'ollama'];
    let lastErr: unknown;
    for (const flavor of tryOrder) {
      const f = this.opts.fetch ?? fetch;
      let res: Response;
      try {
        res = await f(this.url(flavor), {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(this.opts.apiKey ? { authorization: `Bearer ${this.opts.apiKey}` } : {}),
          },
          body: JSON.stringify({ model: this.opts.model, input }),
          signal: AbortSignal.timeout(this.opts.timeoutMs ?? 30_000),
        });
      } catch (e) {
        const timeout = (e as Error).name === 'TimeoutError';
        throw new ProviderError('embeddings', timeout ? 'timeout' : 'network', `embeddings API unreachable at ${this.opts.baseUrl}: ${(e as Error).message}`, { cause: e });
      }
      if (res.status === 404 && !this.flavor) {
        lastErr = new ProviderError('embeddings', 'http', `embeddings API: 404 at ${this.url(flavor)}`, { status: 404 });
        await res.body?.cancel();
        continue;
      }
      if (!res.ok) {
        const text = await res.text().catch(() => '');
        const kind = res.status === 401 || res.status === 403 ? 'auth' : 'http';
        throw new ProviderError('embeddings', kind, `embeddings API: HTTP ${res.status}`, { status: res.status, body: text });
      }
      const body = (await res.json().catch(() => undefined)) as unknown;
      const vectors = parseVectors(body, flavor);
      if (!vectors || vectors.length !== input.length) {
        throw new ProviderError('embeddings', 'bad-response', `embeddings API: unexpected response shape from ${this.url(flavor)}`);
      }
      this.flavor = flavor;
      return vectors.map((v) => Float32Array.from(v));
    }
    throw lastErr instanceof Error ? lastErr : new ProviderError('embeddings', 'http', 'embeddings API: no endpoint answered');
  }
}

function parseVectors(body: unknown, flavor: EmbeddingsApiFlavor): number[][] | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as { data?: unknown; embeddings?: unknown };
  let rows: unknown[] | undefined;
  if (flavor === 'openai' && Array.isArray(b.data)) {
    const data = [...(b.data as { index?: number; embedding?: unknown }[])];
    data.sort((x, y) => (x.index ?? 0) - (y.index ?? 0));
    rows = data.map((d) => d.embedding);
  } else if (Array.isArray(b.embeddings)) rows = b.embeddings as unknown[];
  if (!rows) return undefined;
  for (const r of rows) if (!Array.isArray(r) || r.some((x) => typeof x !== 'number')) return undefined;
  return rows as number[][];
}
