import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { AppContext, parseHash, routeHash, type AppApi, type MmState, type Route, type Toast } from './app-context';
import { I18nContext, initialLang, translate, type Lang } from './i18n';
import { api, ApiError, mm, setErrorLanguage } from './api/client';
import { bus } from './api/event-stream';
import { isProactiveOutput, showNotification } from './lib/browser-notify';
import { ErrorBoundary } from './components/error-boundary';
import { TopBar } from './components/top-bar';
import { SessionList } from './components/chat/session-list';
import { ChatView } from './components/chat/chat-view';
import { MemoryPanel } from './components/memory/memory-panel';
import { GraphPanel } from './components/graph/graph-panel';
import { SettingsView } from './components/settings/settings-view';
import { KnowsView } from './components/knows/knows-view';
import { ConfirmDialog } from './components/confirm/confirm-dialog';
import { SetAsideBanner } from './components/set-aside';
import { Icon } from './components/icon';
import { expireToasts, keepToast, lingerToasts, nextExpiry, pushToast, toastPreview, type ToastItem } from './lib/toast-queue';
import { conversationName, type SourceConversation as SessionConversation } from './lib/source-place';
import { localDay } from './lib/format';
import type { MemoryChangedEvent, MemoryChangedKind } from '../../src/spec/index.js';

type Theme = 'light' | 'dark' | 'system';

/** Kinds of memory change the memory-manager's state (counts of memories, plan, excluded turns) shows. */
const MM_STATE_KINDS: ReadonlySet<MemoryChangedKind> = new Set(['memory', 'plan', 'exclusion', 'forget']);

/** Below this viewport width the graph and the memory panel are not open together (the chat keeps ≥ 480 px). */
const BOTH_PANELS_MIN_WIDTH = 1220;
/** Below this viewport width the memory panel lies over the page instead of beside it (styles.css, tablet). */
const PANEL_OVERLAYS_BELOW = 1024;

/**
 * A conversation's name for a toast about it: its title, else the day it began on the agent's
 * calendar (decision 0270) — read from the daemon when the toast comes, so a rename counts.
 */
async function nameOfConversation(sessionId: string | undefined, lang: Lang): Promise<string> {
  const t = (k: Parameters<typeof translate>[1], v?: Record<string, string | number>) => translate(lang, k, v);
  if (!sessionId) return t('conversation.other');
  try {
    const { session } = await api<{ session: SessionConversation }>(`/api/v1/sessions/${encodeURIComponent(sessionId)}`);
    const zone = session.title.trim() ? '' : await api<{ agent?: { timeZone?: string } | null }>('/api/v1/status').then((j) => j.agent?.timeZone ?? '', () => '');
    return conversationName(t, session, (ms) => localDay(ms, zone));
  } catch {
    return t('conversation.other');
  }
}

function applyTheme(theme: Theme) {
  const dark = theme === 'dark' || (theme === 'system' && window.matchMedia?.('(prefers-color-scheme: dark)').matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
}

/** The WebUI shell: top bar, sessions, chat or settings, the memory panel (right) and the graph overlay (left). */
export function App() {
  const [lang, setLangState] = useState<Lang>(initialLang);
  const [theme, setThemeState] = useState<Theme>(() => (localStorage.getItem('ha.theme') as Theme) || 'system');
  const [route, setRoute] = useState<Route>(() => parseHash(window.location.hash));
  const [mmState, setMm] = useState<MmState | undefined>();
  const [mmError, setMmError] = useState<Error | undefined>();
  const [memoryPanel, setMemoryPanelState] = useState<AppApi['memoryPanel']>(() => ({ open: window.innerWidth >= 1200 && localStorage.getItem('ha.memoryPanel') === 'open', tab: 'plan' }));
  const [graphOpen, setGraphOpenState] = useState(false);
  const [graphFocus, setGraphFocus] = useState<string | undefined>();
  const [highlight, setHighlight] = useState<AppApi['highlight']>();
  const [toasts, setToasts] = useState<ToastItem[]>([]);
  /** The pointer rests on the toasts: none goes while it is read. */
  const [toastsHeld, setToastsHeld] = useState(false);
  const [epoch, setEpoch] = useState(0);
  const [memEpoch, setMemEpoch] = useState(0);
  const [memKinds, setMemKinds] = useState<AppApi['memKinds']>({});
  const [drawer, setDrawer] = useState(false);
  const toastId = useRef(0);
  /** The page's language for words made in event handlers subscribed once. */
  const langRef = useRef(lang);
  langRef.current = lang;

  // Errors are made in the page's language (ApiError), also those of requests already under way.
  setErrorLanguage(lang);
  useEffect(() => {
    document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
  }, [lang]);
  useEffect(() => {
    applyTheme(theme);
    if (theme !== 'system') return;
    const mq = window.matchMedia?.('(prefers-color-scheme: dark)');
    const fn = () => applyTheme('system');
    mq?.addEventListener?.('change', fn);
    return () => mq?.removeEventListener?.('change', fn);
  }, [theme]);
  useEffect(() => {
    const fn = () => setRoute(parseHash(window.location.hash));
    window.addEventListener('hashchange', fn);
    return () => window.removeEventListener('hashchange', fn);
  }, []);

  const refreshMm = useCallback(() => {
    mm<MmState>('state.get').then(
      (s) => {
        setMm(s);
        setMmError(undefined);
      },
      (e: Error) => {
        setMmError(e);
        if (e instanceof ApiError && e.status === 404) setMm(undefined);
      },
    );
  }, []);

  useEffect(() => {
    bus.onRestart = () => setEpoch((n) => n + 1);
    bus.onReconnect = () => setEpoch((n) => n + 1);
    bus.start();
    return () => bus.stop();
  }, []);
  const toast = useCallback((text: string, kind: Toast['kind'] = 'info', about?: { sessionId: string }) => {
    const id = ++toastId.current;
    setToasts((l) => pushToast(l, { id, kind, text, sessionId: about?.sessionId }, Date.now()));
  }, []);
  const closeToast = useCallback((id: number) => setToasts((l) => l.filter((y) => y.id !== id)), []);
  // One timer for the toast that goes next; none while the pointer rests on them.
  useEffect(() => {
    const next = nextExpiry(toasts);
    if (next === undefined || toastsHeld) return;
    const timer = window.setTimeout(() => setToasts((l) => expireToasts(l, Date.now())), Math.max(0, next - Date.now()));
    return () => window.clearTimeout(timer);
  }, [toasts, toastsHeld]);

  // Read again on each change of page too: a key added in Settings takes the chat's setup card away.
  useEffect(refreshMm, [refreshMm, epoch, route.view]);
  // Memory views read again after a turn (every view) and when the daemon says memory changed
  // (`memory_changed`, the views of that kind; decision 0260) — at most every 1.5 s (a burst is one
  // read), and not while the tab is hidden: coming back reads everything again anyway (below).
  const bumpTimer = useRef<number | undefined>(undefined);
  const lastBump = useRef(0);
  const pendingAll = useRef(false);
  const pendingKinds = useRef(new Set<MemoryChangedKind>());
  const bumpMemory = useCallback(
    (kinds: 'all' | readonly MemoryChangedKind[]) => {
      if (document.visibilityState !== 'visible') return;
      if (kinds === 'all') pendingAll.current = true;
      else for (const k of kinds) pendingKinds.current.add(k);
      if (bumpTimer.current !== undefined) return;
      bumpTimer.current = window.setTimeout(() => {
        bumpTimer.current = undefined;
        lastBump.current = Date.now();
        const all = pendingAll.current;
        const changed = [...pendingKinds.current];
        pendingAll.current = false;
        pendingKinds.current.clear();
        if (all) setMemEpoch((n) => n + 1);
        else {
          setMemKinds((m) => {
            const next = { ...m };
            for (const k of changed) next[k] = (next[k] ?? 0) + 1;
            return next;
          });
          if (changed.some((k) => MM_STATE_KINDS.has(k))) refreshMm();
        }
      }, Math.max(0, 1500 - (Date.now() - lastBump.current)));
    },
    [refreshMm],
  );
  useEffect(() => () => window.clearTimeout(bumpTimer.current), []);
  useEffect(
    () =>
      bus.subscribe((event, payload) => {
        // The memory manager's settings, and the LLM sources (its state says whether a model is set up).
        if (event === 'config_changed' && /^(plugin\.memory-manager\.|core\.llm\.)/.test(String((payload as { key?: string }).key ?? ''))) refreshMm();
        if (event === 'turn_end') {
          refreshMm();
          bumpMemory('all');
        }
        if (event === 'memory_changed') {
          const kind = (payload as Partial<MemoryChangedEvent> | undefined)?.kind;
          if (typeof kind === 'string') bumpMemory([kind]);
        }
        if (event === 'output') {
          const o = payload as { sessionId?: string; payload?: unknown; type?: string };
          const cur = window.location.hash.startsWith('#/chat/') ? decodeURIComponent(window.location.hash.slice(7)) : undefined;
          const text = o.type && o.type !== 'text' ? `(${o.type})` : String(o.payload ?? '');
          // Headed by the conversation's name as the chat lists it, not its id (`webui:abc`, `telegram:42`).
          // Its whole text: a long one shows its first lines and opens to the rest; a click opens the conversation (decision 0690).
          const sid = o.sessionId;
          if (sid !== cur) void nameOfConversation(sid, langRef.current).then((name) => toast(translate(langRef.current, 'conversation.said', { name, text }), 'info', sid ? { sessionId: sid } : undefined));
          // A timer's result or a notice: a system notification too, when the person allowed them.
          if (isProactiveOutput(payload)) showNotification('HomeAgent', text, o.sessionId);
        }
      }),
    [refreshMm, toast, bumpMemory],
  );

  // Back from another window (a terminal where `waiter memory …` changed something): read again,
  // at most every 2 s (focus and visibilitychange often come together).
  useEffect(() => {
    let last = 0;
    const fn = () => {
      if (document.visibilityState !== 'visible' || Date.now() - last < 2000) return;
      last = Date.now();
      setMemEpoch((n) => n + 1);
    };
    window.addEventListener('focus', fn);
    document.addEventListener('visibilitychange', fn);
    return () => {
      window.removeEventListener('focus', fn);
      document.removeEventListener('visibilitychange', fn);
    };
  }, []);

  const t = useCallback((k: Parameters<typeof translate>[1], v?: Record<string, string | number>) => translate(lang, k, v), [lang]);



  const navigate = useCallback((r: Route) => {
    const h = routeHash(r);
    if (window.location.hash !== h) window.location.hash = h;
    setRoute(r);
    setDrawer(false);
  }, []);

  const setMemoryPanel = useCallback((p: Partial<AppApi['memoryPanel']>) => {
    // Where the graph and the memory panel do not both fit beside a usable chat, one closes the other.
    if (p.open && window.innerWidth < BOTH_PANELS_MIN_WIDTH) setGraphOpenState(false);
    setMemoryPanelState((cur) => {
      const next = { ...cur, ...p };
      try {
        localStorage.setItem('ha.memoryPanel', next.open ? 'open' : 'closed');
      } catch {}
      return next;
    });
  }, []);

  // The conversation last open in Chat: the top bar's Chat returns to it, not to an empty new chat.
  const [lastChat, setLastChat] = useState<string | undefined>(() => (route.view === 'chat' ? route.sessionId : undefined));
  useEffect(() => {
    if (route.view === 'chat') setLastChat(route.sessionId);
  }, [route]);
  useEffect(
    () =>
      bus.subscribe((event, payload) => {
        const p = payload as { kind?: string; sessionId?: string } | undefined;
        if (event === 'session_event' && p?.kind === 'session_deleted') setLastChat((cur) => (cur === p.sessionId ? undefined : cur));
      }),
    [],
  );

  // Going to another page (the top bar, a link, the address bar) puts the page in front: the graph
  // drawer closes, and where the memory panel overlays the page (narrower than a laptop) it closes too
  // — on a phone it covered Settings entirely, with no sign of the page behind it.
  const lastView = useRef(route.view);
  useEffect(() => {
    if (lastView.current === route.view) return;
    lastView.current = route.view;
    setGraphOpenState(false);
    if (window.innerWidth < PANEL_OVERLAYS_BELOW) setMemoryPanel({ open: false });
  }, [route.view, setMemoryPanel]);

  // Escape closes the side panels, the one in front first (graph, then memory panel, then the
  // phone drawer). Dialogs close themselves; a field keeps its own Escape (cancel an edit).
  useEffect(() => {
    const fn = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented) return;
      if (document.querySelector('[role=dialog][aria-modal=true]')) return;
      const el = e.target as HTMLElement | null;
      if (el && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || el.isContentEditable)) return;
      if (graphOpen) setGraphOpenState(false);
      else if (memoryPanel.open) setMemoryPanel({ open: false });
      else if (drawer) setDrawer(false);
    };
    window.addEventListener('keydown', fn);
    return () => window.removeEventListener('keydown', fn);
  }, [graphOpen, memoryPanel.open, drawer, setMemoryPanel]);

  const api: AppApi = useMemo(
    () => ({
      lang,
      setLang: (l) => {
        localStorage.setItem('ha.lang', l);
        setLangState(l);
      },
      theme,
      setTheme: (th) => {
        localStorage.setItem('ha.theme', th);
        setThemeState(th);
      },
      route,
      navigate,
      lastChat,
      mm: mmState,
      mmError,
      refreshMm,
      setMm,
      memoryPanel,
      setMemoryPanel,
      graphOpen,
      setGraphOpen: (o, focus) => {
        if (o && window.innerWidth < BOTH_PANELS_MIN_WIDTH) setMemoryPanel({ open: false });
        setGraphOpenState(o);
        setGraphFocus(focus);
      },
      graphFocus,
      openMemory: (id) => setMemoryPanel({ open: true, tab: 'library', memoryId: id }),
      locate: (sessionId, seqs, turnId) => {
        navigate({ view: 'chat', sessionId });
        setHighlight({ sessionId, seqs, turnId, at: Date.now() });
        if (window.innerWidth < 900) setMemoryPanel({ open: false });
      },
      highlight,
      toast,
      epoch,
      memEpoch,
      memKinds,
    }),
    [lang, theme, route, navigate, lastChat, mmState, mmError, refreshMm, memoryPanel, setMemoryPanel, graphOpen, graphFocus, highlight, toast, epoch, memEpoch, memKinds],
  );

  return (
    <I18nContext.Provider value={{ lang, t }}>
      <AppContext.Provider value={api}>
        <div className={`app${memoryPanel.open ? ' with-panel' : ''}${graphOpen ? ' with-graph' : ''}${drawer ? ' drawer-open' : ''}`}>
          <TopBar onMenu={() => setDrawer((d) => !d)} />
          <ErrorBoundary name="set-aside" compact>
            <SetAsideBanner epoch={epoch} />
          </ErrorBoundary>
          <div className="app-body">
            {route.view === 'chat' && (
              <>
                <div className="drawer-scrim" onClick={() => setDrawer(false)} />
                <aside className="sidebar">
                  <ErrorBoundary name="sessions" compact>
                    <SessionList />
                  </ErrorBoundary>
                </aside>
              </>
            )}
            <main className="main">
              {route.view === 'chat' ? (
                <ErrorBoundary name="chat">
                  <ChatView key={route.sessionId ?? 'new'} sessionId={route.sessionId} />
                </ErrorBoundary>
              ) : route.view === 'knows' ? (
                <ErrorBoundary name="knows">
                  <KnowsView key={route.person ?? 'me'} person={route.person} />
                </ErrorBoundary>
              ) : (
                <ErrorBoundary name="settings">
                  <SettingsView section={route.section} />
                </ErrorBoundary>
              )}
            </main>
            {memoryPanel.open && (
              <aside className="memory-panel" aria-label={t('memory.panel')}>
                <ErrorBoundary name="memory" onClose={() => setMemoryPanel({ open: false })}>
                  <MemoryPanel />
                </ErrorBoundary>
              </aside>
            )}
          </div>
          {graphOpen && (
            <div className="graph-overlay" role="dialog" aria-label={t('graph.title')}>
              <ErrorBoundary name="graph" onClose={() => setGraphOpenState(false)}>
                <GraphPanel />
              </ErrorBoundary>
            </div>
          )}
          <ErrorBoundary name="confirm" compact>
            <ConfirmDialog epoch={epoch} />
          </ErrorBoundary>
          <div
            className="toasts"
            aria-live="polite"
            onMouseEnter={() => setToastsHeld(true)}
            onMouseLeave={() => {
              setToastsHeld(false);
              setToasts((l) => lingerToasts(l, Date.now()));
            }}
          >
            {toasts.map((x) => {
              const preview = toastPreview(x.text);
              const whole = !preview.cut || !!x.opened;
              const words = <span className={`toast-text${whole && preview.cut ? ' whole' : ''}`}>{whole ? x.text : preview.text}</span>;
              return (
                <div key={x.id} className={`toast ${x.kind}`} data-count={x.count} data-testid="toast">
                  <div className="toast-body">
                    {x.sessionId ? (
                      // A button, so the keyboard reaches it too: the conversation it is about opens, the toast goes.
                      <button
                        type="button"
                        className="toast-open"
                        data-testid="toast-open"
                        title={t('toast.openConversation')}
                        onClick={() => {
                          closeToast(x.id);
                          navigate({ view: 'chat', sessionId: x.sessionId });
                        }}
                      >
                        {words}
                      </button>
                    ) : (
                      words
                    )}
                    {preview.cut && !whole && (
                      <button
                        type="button"
                        className="toast-more"
                        data-testid="toast-more"
                        aria-expanded={false}
                        onClick={() => setToasts((l) => keepToast(l, x.id))}
                      >
                        {t('toast.showAll')}
                      </button>
                    )}
                  </div>
                  {x.count > 1 && (
                    <span className="toast-count" aria-label={t('toast.times', { n: x.count })}>
                      ×{x.count}
                    </span>
                  )}
                  <button className="toast-close" onClick={() => closeToast(x.id)} aria-label={t('common.close')} title={t('common.close')}>
                    <Icon name="close" size={14} />
                  </button>
                </div>
              );
            })}
          </div>
        </div>
      </AppContext.Provider>
    </I18nContext.Provider>
  );
}
