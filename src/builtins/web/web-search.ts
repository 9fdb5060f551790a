import { WebError } from './web-error.js';

/** Search back-ends the owner can configure. */
export const SEARCH_PROVIDERS = ['searxng', 'brave', 'tavily'] as const;
export type SearchProvider = (typeof SEARCH_PROVIDERS)[number];

/** Default endpoints (SearXNG has none: it is the owner's own instance). */
export const DEFAULT_ENDPOINTS: Record<SearchProvider, string> = {
  searxng: '',
  brave: 'https://api.search.brave.com/res/v1/web/search',
  tavily: 'https://api.tavily.com/search',
};

/** One result. */
export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

/** The owner's search configuration. */
export interface SearchConfig {
  provider: SearchProvider;
  /** Full endpoint URL: SearXNG's base (`http://nas.local:8888`) or the API URL. */
  endpoint: string;
  apiKey: string;
  timeoutMs: number;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function results(list: unknown, snippetKey: string, max: number): SearchResult[] {
  if (!Array.isArray(list)) throw new WebError('WEB_SEARCH_FAILED', 'the search service answered in an unexpected shape (no result list)');
  return list
    .map((r: Record<string, unknown>) => ({ title: str(r?.title).trim(), url: str(r?.url), snippet: str(r?.[snippetKey]).replace(/<[^>]+>/g, '').trim() }))
    .filter((r) => /^https?:\/\//.test(r.url))
    .slice(0, max);
}

/**
 * Asks the configured search service (SearXNG's JSON API, Brave Search API or Tavily) and returns
 * title, URL and snippet per result. The endpoint is the owner's privileged setting, so it is
 * reached even on the home network (a SearXNG instance on a NAS); redirects are not followed.
 */
export async function webSearch(query: string, max: number, c: SearchConfig, signal?: AbortSignal): Promise<SearchResult[]> {
  const endpoint = c.endpoint || DEFAULT_ENDPOINTS[c.provider];
  if (!endpoint) throw new WebError('WEB_SEARCH_NOT_CONFIGURED', `set plugin.web.search_endpoint to your ${c.provider} instance`);
  if ((c.provider === 'brave' || c.provider === 'tavily') && !c.apiKey) throw new WebError('WEB_SEARCH_NOT_CONFIGURED', `set plugin.web.search_api_key (your ${c.provider} API key)`);
  let url: URL;
  try {
    url = new URL(c.provider === 'searxng' ? `${endpoint.replace(/\/+$/, '')}/search` : endpoint);
  } catch {
    throw new WebError('WEB_SEARCH_NOT_CONFIGURED', `plugin.web.search_endpoint is not a URL`);
  }
  const init: RequestInit = { redirect: 'manual', signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(c.timeoutMs)]) : AbortSignal.timeout(c.timeoutMs), headers: { accept: 'application/json' } };
  if (c.provider === 'searxng') {
    url.searchParams.set('q', query);
    url.searchParams.set('format', 'json');
    if (c.apiKey) (init.headers as Record<string, string>).authorization = `Bearer ${c.apiKey}`;
  } else if (c.provider === 'brave') {
    url.searchParams.set('q', query);
    url.searchParams.set('count', String(Math.min(max, 20)));
    (init.headers as Record<string, string>)['x-subscription-token'] = c.apiKey;
  } else {
    init.method = 'POST';
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
    (init.headers as Record<string, string>).authorization = `Bearer ${c.apiKey}`;
    init.body = JSON.stringify({ query, max_results: Math.min(max, 20) });
  }
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch (e) {
    const why = (e as Error).name === 'TimeoutError' ? `no answer within ${c.timeoutMs} ms` : ((e as { cause?: { code?: string } }).cause?.code ?? (e as Error).message);
    throw new WebError('WEB_SEARCH_FAILED', `the ${c.provider} search service at ${url.host} is unreachable: ${why}`, { provider: c.provider });
  }
  if (res.status === 401 || res.status === 403) {
    await res.body?.cancel();
    throw new WebError('WEB_SEARCH_FAILED', `the ${c.provider} search service refused the request (${res.status}): check plugin.web.search_api_key${c.provider === 'searxng' ? ' and that the instance allows the JSON format' : ''}`, { provider: c.provider, status: res.status });
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new WebError('WEB_SEARCH_FAILED', `the ${c.provider} search service answered HTTP ${res.status}`, { provider: c.provider, status: res.status });
  }
  let body: Record<string, unknown>;
  try {
    body = (await res.json()) as Record<string, unknown>;
  } catch {
    throw new WebError('WEB_SEARCH_FAILED', `the ${c.provider} search service did not answer JSON${c.provider === 'searxng' ? ' (enable the json format in its settings.yml: search.formats)' : ''}`, { provider: c.provider });
  }
  if (c.provider === 'searxng') return results(body.results, 'content', max);
  if (c.provider === 'brave') return results((body.web as { results?: unknown } | undefined)?.results ?? [], 'description', max);
  return results(body.results, 'content', max);
}
