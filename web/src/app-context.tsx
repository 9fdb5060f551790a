import { createContext, useContext } from 'react';
import type { Lang } from './i18n';
import type { MemoryChangedKind } from '../../src/spec/index.js';

export type Route = { view: 'chat'; sessionId?: string } | { view: 'settings'; section: string } | { view: 'knows'; person?: string };

export interface MmState {
  enabled: boolean;
  mode: 'on' | 'off';
  view: 'full' | 'compact';
  modelTools: boolean;
  autoInject?: boolean;
  memories?: number;
  plan?: { pinned: number; memories: number; injectOnce: boolean };
  once?: number;
  excludedTurns?: number;
  llmAvailable?: boolean;
}

export interface Toast {
  id: number;
  kind: 'info' | 'error' | 'ok';
  text: string;
}

export interface AppApi {
  lang: Lang;
  setLang(l: Lang): void;
  theme: 'light' | 'dark' | 'system';
  setTheme(t: 'light' | 'dark' | 'system'): void;
  route: Route;
  navigate(r: Route): void;
  /** The conversation last open in Chat (the top bar's Chat goes back to it), if any. */
  lastChat?: string;
  /** Memory-manager state (undefined while loading or when the plugin is absent). */
  mm: MmState | undefined;
  mmError: Error | undefined;
  refreshMm(): void;
  setMm(s: MmState): void;
  memoryPanel: { open: boolean; tab: 'plan' | 'library' | 'messages'; memoryId?: string };
  setMemoryPanel(p: Partial<AppApi['memoryPanel']>): void;
  graphOpen: boolean;
  setGraphOpen(o: boolean, focus?: string): void;
  graphFocus: string | undefined;
  /** Opens a memory in the right panel's library. */
  openMemory(id: string): void;
  /** Jumps to a message in the chat and highlights it. */
  locate(sessionId: string, seqs: number[], turnId?: string): void;
  highlight: { sessionId: string; seqs: number[]; turnId?: string; at: number } | undefined;
  /** Shows a toast; `about`: the conversation it is about, opened by a click on it (decision 0690). */
  toast(text: string, kind?: Toast['kind'], about?: { sessionId: string }): void;
  /** Bumped when the daemon restarted or the stream reconnected: views refetch. */
  epoch: number;
  /**
   * Bumped when what HomeAgent remembers may have changed — a turn ended (the agent may have saved
   * a memory or a fact) or the page came back into view (a change from the terminal meanwhile): the
   * memory views (library, graph, About me, People, Knowledge, Documents, history) read again,
   * keeping what they show until the answer is back.
   */
  memEpoch: number;
  /**
   * Per kind of memory, bumped when the daemon said that kind changed (`memory_changed`: a
   * `waiter memory forget`, the MCP server, an import, the heartbeat …; decision 0260), through the
   * same throttled re-read as `memEpoch`. Read it with {@link useMemoryEpoch}.
   */
  memKinds: Readonly<Partial<Record<MemoryChangedKind, number>>>;
}

export const AppContext = createContext<AppApi | null>(null);

export function useApp(): AppApi {
  const a = useContext(AppContext);
  if (!a) throw new Error('AppContext missing');
  return a;
}

/**
 * A number that changes whenever a view showing these kinds of memory should read again: a
 * `memory_changed` of one of them, and (unless `withTurns` is false) every `memEpoch` bump — a turn
 * ended, the page came back into view. Use it as a dependency of the view's request.
 */
export function useMemoryEpoch(kinds: readonly MemoryChangedKind[], opts: { withTurns?: boolean } = {}): number {
  const app = useApp();
  return kinds.reduce((n, k) => n + (app.memKinds[k] ?? 0), opts.withTurns === false ? 0 : app.memEpoch);
}

/** Parses `#/chat/<id>`, `#/settings/<section>` and `#/knows/<person>`. */
export function parseHash(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  });
  if (parts[0] === 'settings') return { view: 'settings', section: parts[1] || 'providers' };
  if (parts[0] === 'knows') return { view: 'knows', person: parts[1] || undefined };
  return { view: 'chat', sessionId: parts[0] === 'chat' && parts[1] ? parts[1] : undefined };
}

export function routeHash(r: Route): string {
  if (r.view === 'knows') return r.person ? `#/knows/${encodeURIComponent(r.person)}` : '#/knows';
  return r.view === 'settings' ? `#/settings/${r.section}` : r.sessionId ? `#/chat/${encodeURIComponent(r.sessionId)}` : '#/chat';
}
