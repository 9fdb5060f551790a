import { ProviderError } from '../spec/index.js';
import { errorMessageOf } from './lua-adapted-provider.js';

/** One call of an OpenAI-compatible `POST {base_url}/audio/transcriptions`. */
export interface TranscriptionRequest {
  source: string;
  baseUrl: string;
  apiKey: string;
  model: string;
  language?: string;
  audio: { data: Uint8Array; name: string; mimeType: string };
  fetch: typeof fetch;
  signal?: AbortSignal;
  timeoutMs: number;
  /** Removes secrets from error text. */
  redact: (text: string) => string;
}

/**
 * Speech to text through an OpenAI-compatible endpoint (OpenAI, Groq, a local whisper server …):
 * a multipart form with the file and the model; `{ text }` comes back. Failures are
 * ProviderErrors (auth, http, network, timeout, bad-response) with secrets redacted.
 */
export async function transcribeOpenAiCompatible(r: TranscriptionRequest): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(r.audio.data)], { type: r.audio.mimeType || 'application/octet-stream' }), r.audio.name || 'audio');
  form.append('model', r.model);
  form.append('response_format', 'json');
  if (r.language) form.append('language', r.language);
  const url = `${r.baseUrl.replace(/\/+$/, '')}/audio/transcriptions`;
  const signal = r.signal ? AbortSignal.any([r.signal, AbortSignal.timeout(r.timeoutMs)]) : AbortSignal.timeout(r.timeoutMs);
  let res: Response;
  let text: string;
  try {
    res = await r.fetch(url, { method: 'POST', headers: r.apiKey ? { authorization: `Bearer ${r.apiKey}` } : {}, body: form, signal });
    text = await res.text();
  } catch (e) {
    const err = e as Error;
    if (err.name === 'TimeoutError') throw new ProviderError(r.source, 'timeout', `${r.source}: no transcription within ${r.timeoutMs} ms`);
    if (err.name === 'AbortError') throw new ProviderError(r.source, 'aborted', `${r.source}: transcription aborted`);
    throw new ProviderError(r.source, 'network', r.redact(`${r.source}: network error: ${err.message}${err.cause instanceof Error ? `: ${err.cause.message}` : ''}`));
  }
  if (!res.ok) {
    const detail = r.redact(errorMessageOf(text) || res.statusText || 'no details');
    throw new ProviderError(r.source, res.status === 401 || res.status === 403 ? 'auth' : 'http', `${r.source}: HTTP ${res.status} transcribing: ${detail}`, { status: res.status });
  }
  try {
    const body = JSON.parse(text) as { text?: unknown };
    if (typeof body.text === 'string') return body.text;
  } catch {
    // Some servers answer text/plain whatever response_format says.
    if (!(res.headers.get('content-type') ?? '').includes('json')) return text;
  }
  throw new ProviderError(r.source, 'bad-response', r.redact(`${r.source}: the transcription answer has no text: ${text.slice(0, 120)}`));
}
