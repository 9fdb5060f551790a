/** HTTP client of the SPA: token, JSON errors, the memory-manager envelope, list normalizing. */

import { errorInWords } from '../lib/error-words';

const TOKEN_KEY = 'ha.token';

/**
 * The access token (the daemon's per-install secret), kept in this origin's localStorage — which a
 * page of any other origin, another port on 127.0.0.1 included, cannot read. It arrives by the
 * sign-in link's `?token=` ({@link adoptLinkToken}) or pasted on the sign-in screen.
 */
export function token(): string {
  try {
    return localStorage.getItem(TOKEN_KEY) ?? '';
  } catch {
    return '';
  }
}

/**
 * Takes the sign-in link's `?token=` (and removes it from the address bar). Any page can send this
 * browser to `/?token=junk`, so a token already kept is replaced only once the daemon accepts the
 * new one: a wrong link must not sign the browser out. Resolves with what happened: `none` (no
 * link token, or the one already kept), `adopted` (kept now; without an earlier token it was not
 * checked yet), `refused` (the daemon refused it; the kept token stays).
 */
export async function adoptLinkToken(): Promise<'none' | 'adopted' | 'refused'> {
  let url: URL;
  try {
    url = new URL(window.location.href);
  } catch {
    return 'none';
  }
  if (!url.searchParams.has('token')) return 'none';
  const t = url.searchParams.get('token')?.trim() ?? '';
  const clearUrl = () => {
    url.searchParams.delete('token');
    window.history.replaceState(null, '', url.toString());
  };
  const kept = token();
  if (!t || t === kept) {
    clearUrl();
    return 'none';
  }
  if (kept) {
    // undefined: the daemon did not answer — the link stays in the address bar for a reload.
    const accepted = await fetch('/api/v1/status', { headers: { authorization: `Bearer ${t}` } }).then(
      (r) => r.ok,
      () => undefined,
    );
    if (accepted === undefined) return 'none';
    clearUrl();
    if (!accepted) return 'refused';
  } else clearUrl();
  setToken(t);
  return 'adopted';
}

/** Keeps a token the person pasted (same storage as the sign-in link). */
export function setToken(t: string): void {
  try {
    localStorage.setItem(TOKEN_KEY, t.trim());
  } catch {}
}

/** Forgets the stored token (it was refused). */
export function clearToken(): void {
  try {
    localStorage.removeItem(TOKEN_KEY);
  } catch {}
}

/** Fired on `window` when the daemon refuses the token: the app shows the sign-in screen. */
export const UNAUTHORIZED_EVENT = 'ha-unauthorized';

let errorLang: 'en' | 'zh' = 'en';
/** The language errors are said in from now on (the app sets it with its own). */
export function setErrorLanguage(lang: 'en' | 'zh'): void {
  errorLang = lang;
}

/**
 * An error answered by the daemon (or the network). `message` is said in the page's language
 * (lib/error-words.ts); `reason` is the daemon's own words, as it sent them.
 */
export class ApiError extends Error {
  readonly reason: string;
  constructor(
    message: string,
    readonly code: string,
    readonly status: number,
    readonly details?: Record<string, unknown>,
  ) {
    super(errorInWords({ code, message, details }, errorLang));
    this.reason = message;
    this.name = 'ApiError';
  }
}

/** Calls the daemon; resolves the parsed JSON body, throws ApiError on HTTP or `ok:false`. */
export async function api<T = Record<string, unknown>>(path: string, init: RequestInit & { json?: unknown } = {}): Promise<T> {
  const headers = new Headers(init.headers);
  const tk = token();
  if (tk) headers.set('authorization', `Bearer ${tk}`);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set('content-type', 'application/json');
    body = JSON.stringify(init.json);
  }
  let res: Response;
  try {
    res = await fetch(path, { ...init, headers, body });
  } catch (e) {
    throw new ApiError((e as Error).message || 'network error', 'NETWORK', 0);
  }
  const text = await res.text();
  let j: Record<string, unknown> = {};
  try {
    j = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    if (!res.ok) throw new ApiError(text.slice(0, 200) || res.statusText, `HTTP_${res.status}`, res.status);
  }
  if (res.status === 401) window.dispatchEvent(new Event(UNAUTHORIZED_EVENT));
  if (!res.ok || j.ok === false) {
    const err = (j.error ?? (j.value as Record<string, unknown> | undefined)?.error ?? {}) as Record<string, unknown> | string;
    const code = typeof err === 'object' ? String(err.code ?? (j.value as Record<string, unknown> | undefined)?.code ?? `HTTP_${res.status}`) : String((j.value as Record<string, unknown> | undefined)?.code ?? `HTTP_${res.status}`);
    const message = typeof err === 'object' ? String(err.message ?? res.statusText) : err;
    // The memory manager's envelope (M-11) puts the reason in value.error and its details beside it.
    const details = typeof err === 'object' ? err.details : (j.value as Record<string, unknown> | undefined)?.details;
    throw new ApiError(message, code, res.status, details as Record<string, unknown> | undefined);
  }
  return j as T;
}

/**
 * Downloads a file the daemon answers (with the token, which a plain link cannot send): saves it
 * under the name its `content-disposition` gives.
 */
export async function download(path: string, fallbackName: string): Promise<void> {
  const headers = new Headers();
  const tk = token();
  if (tk) headers.set('authorization', `Bearer ${tk}`);
  const res = await fetch(path, { headers });
  if (!res.ok) {
    const j = (await res.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
    throw new ApiError(j.error?.message ?? res.statusText, j.error?.code ?? `HTTP_${res.status}`, res.status);
  }
  const cd = res.headers.get('content-disposition') ?? '';
  const star = /filename\*=UTF-8''([^;]+)/i.exec(cd);
  const name = star ? decodeURIComponent(star[1]) : (/filename="([^"]+)"/i.exec(cd)?.[1] ?? fallbackName);
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The payload of a built-in's `{ok, value}` answer, or the body itself. */
export function unwrap<T>(j: unknown): T {
  if (j && typeof j === 'object' && 'value' in (j as object)) return (j as { value: T }).value;
  return j as T;
}

/** Finds the list in an answer: the body, its `value`, or the first array field among `names`. */
export function pickList<T>(j: unknown, ...names: string[]): T[] {
  if (Array.isArray(j)) return j as T[];
  if (!j || typeof j !== 'object') return [];
  const o = j as Record<string, unknown>;
  if (Array.isArray(o.value)) return o.value as T[];
  for (const n of [...names, 'items', 'list']) {
    if (Array.isArray(o[n])) return o[n] as T[];
    const v = o.value as Record<string, unknown> | undefined;
    if (v && Array.isArray(v[n])) return v[n] as T[];
  }
  return [];
}

/** A memory-manager op (`POST /api/memory-manager {op, sessionId?, args?}` → value). */
export async function mm<T = unknown>(op: string, args: Record<string, unknown> = {}, sessionId?: string): Promise<T> {
  const j = await api<{ ok: boolean; value: T }>('/api/memory-manager', { method: 'POST', json: { op, sessionId, args } });
  return j.value;
}

let lastReport = '';
let lastReportAt = 0;
/** Reports a client error to the memory-manager log (`diag.log`), throttled and de-duplicated; never throws. */
export function reportClientError(error: unknown, context?: Record<string, unknown>): void {
  try {
    const e = error instanceof Error ? error : new Error(String(error));
    const key = `${e.message}|${JSON.stringify(context ?? {})}`;
    const now = Date.now();
    if (key === lastReport && now - lastReportAt < 3000) return;
    lastReport = key;
    lastReportAt = now;
    void mm('diag.log', { level: 'error', message: e.message, stack: e.stack?.slice(0, 4000), context: { ...context, href: window.location.hash } }).catch(() => undefined);
  } catch {}
}

/** Reads a File as base64 (no data: prefix). */
export function fileToBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result).replace(/^data:[^,]*,/, ''));
    r.onerror = () => reject(r.error ?? new Error('read failed'));
    r.readAsDataURL(file);
  });
}
