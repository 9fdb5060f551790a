import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { api, ApiError, mm } from '../../api/client';
import { bus } from '../../api/event-stream';
import { useApp } from '../../app-context';
import { deletedHere } from '../../lib/own-deletes';
import { useT } from '../../i18n';
import { applyBusEvent, keepUnchanged, mergeTurns, turnsFromEvents, type SessionEventLike, type TurnView as Turn } from '../../state/chat-model';
import { createSequencer } from '../../lib/sequencer';
import { TurnView, type TurnActions } from './turn-view';
import { InputBar } from './input-bar';
import { Icon } from '../icon';
import { SetupCard } from './setup-card';
import { fullSetupTurn } from '../../lib/setup-card-turn';

/** Events per page of the history (a page back, a page forward, the page around a jump). */
const PAGE = 150;

interface Page {
  events: SessionEventLike[];
  hasEarlier: boolean;
  hasLater: boolean;
  inflight?: string | null;
  anchorSeq?: number;
}

/** The part of the session's log the view holds: a window of consecutive events. */
interface Window {
  events: SessionEventLike[];
  hasEarlier: boolean;
  hasLater: boolean;
}

const REPLY_KINDS = new Set(['assistant', 'reasoning', 'tool_call', 'tool_result', 'error']);

/** The elements to flash for a jump: the messages the seqs name, else the turn's first message. */
function targets(h: { turnId?: string; seqs: number[] }): HTMLElement[] {
  const bySeq = h.seqs.flatMap((s) => Array.from(document.querySelectorAll<HTMLElement>(`.turn .msg[data-seq="${s}"]`)));
  if (bySeq.length) return bySeq;
  if (!h.turnId) return [];
  const turn = document.querySelector<HTMLElement>(`[data-turn-id="${CSS.escape(h.turnId)}"]`);
  const msg = turn?.querySelector<HTMLElement>('.msg');
  return msg ? [msg] : turn ? [turn] : [];
}

/**
 * The chat of one session (W-1): the newest page of its log, earlier pages as the person scrolls
 * up ("load earlier"), a jump to any turn (the page around it), live updates from SSE, the input
 * bar, and the actions on messages (copy, regenerate, edit and resend, delete).
 */
export function ChatView({ sessionId }: { sessionId?: string }) {
  const app = useApp();
  const t = useT();
  // For the bus subscription, which lives as long as the view (not one per render).
  const appRef = useRef(app);
  appRef.current = app;
  const tRef = useRef(t);
  tRef.current = t;
  const [turns, setTurns] = useState<Turn[]>([]);
  const [paging, setPaging] = useState<{ hasEarlier: boolean; hasLater: boolean; loading?: 'earlier' | 'later' | 'jump' }>({ hasEarlier: false, hasLater: false });
  const [loadError, setLoadError] = useState<string | undefined>();
  const [pinned, setPinned] = useState<{ id: string; text: string }[]>([]);
  const scroller = useRef<HTMLDivElement>(null);
  /** The view follows the newest text (stays at the bottom) until the person scrolls up. */
  const stick = useRef(true);
  /** The last scroll position seen: a smaller one is a scroll up (growth below never lowers it). */
  const lastTop = useRef(0);
  const turnsBox = useRef<HTMLDivElement>(null);
  const seq = useRef(createSequencer());
  const sidRef = useRef(sessionId);
  sidRef.current = sessionId;
  const win = useRef<Window>({ events: [], hasEarlier: false, hasLater: false });
  /** Turns the bus created that the window's events do not hold yet. */
  const liveIds = useRef(new Set<string>());
  const inflight = useRef<string | null>(null);
  /** Set before a page is put above: the scroll position to keep (distance from the bottom). */
  const keepFromBottom = useRef<number | undefined>(undefined);
  /** A jump waiting for its page to render. */
  const pendingJump = useRef<{ turnId?: string; seqs: number[] } | undefined>(undefined);
  const busy = useRef(false);
  /** Bumped whenever the window is replaced (newest page, a jump): a page asked for before is dropped. */
  const gen = useRef(0);
  /**
   * The session has no log yet (`#/chat/<id>` opened before its first turn, or a link to a session
   * another channel is about to start): the view is empty, not an error, and reads the log once the
   * bus says something happened in it.
   */
  const [notYet, setNotYet] = useState(false);
  const notYetRef = useRef(false);

  /** Rebuilds the turns from the window (plus live turns), reusing unchanged turn objects. */
  const rebuild = useCallback(() => {
    const sid = sidRef.current;
    if (!sid) return;
    const history = turnsFromEvents(sid, win.current.events, inflight.current);
    const ids = new Set(history.map((h) => h.turnId));
    for (const id of ids) liveIds.current.delete(id);
    setTurns((cur) => keepUnchanged(cur, mergeTurns(history, cur.filter((x) => x.sessionId === sid && (ids.has(x.turnId) || liveIds.current.has(x.turnId) || x.turnId.startsWith('output:'))))));
    setPaging((p) => ({ ...p, hasEarlier: win.current.hasEarlier, hasLater: win.current.hasLater }));
  }, []);

  const fetchPage = useCallback(async (query: string): Promise<Page> => {
    const sid = sidRef.current!;
    return api<Page & { ok: boolean }>(`/api/v1/sessions/${encodeURIComponent(sid)}/events?${query}`);
  }, []);

  const loadRef = useRef<(() => void) | undefined>(undefined);
  /** The newest page: the view opens at the last turn. */
  const load = useCallback(() => {
    if (!sessionId) {
      setTurns([]);
      return;
    }
    const ticket = seq.current.next();
    fetchPage(`limit=${PAGE}`).then(
      (j) => {
        if (!seq.current.isLatest(ticket) || sidRef.current !== sessionId) return;
        setLoadError(undefined);
        notYetRef.current = false;
        setNotYet(false);
        inflight.current = j.inflight ?? null;
        gen.current++;
        win.current = { events: j.events, hasEarlier: j.hasEarlier, hasLater: false };
        stick.current = true;
        rebuild();
        // A turn still in flight when the log was read may end before this view follows the
        // session on the bus (e.g. a new session whose first turn fails at once): read again.
        if (j.inflight) setTimeout(() => loadRef.current?.(), 1000);
      },
      (e: Error) => {
        if (!seq.current.isLatest(ticket) || sidRef.current !== sessionId) return;
        if (e instanceof ApiError && e.status === 404 && e.code === 'NOT_FOUND') {
          // Not created yet: an empty window; live turns the bus already brought stay.
          setLoadError(undefined);
          notYetRef.current = true;
          setNotYet(true);
          inflight.current = null;
          gen.current++;
          win.current = { events: [], hasEarlier: false, hasLater: false };
          rebuild();
          return;
        }
        setLoadError(e.message);
      },
    );
  }, [sessionId, fetchPage, rebuild]);
  useEffect(() => {
    loadRef.current = load;
  }, [load]);

  /** What the log holds after the window's last event (after a turn ended). */
  const loadNewer = useCallback(async () => {
    if (win.current.hasLater) return;
    const last = win.current.events.at(-1)?.seq ?? 0;
    const ticket = seq.current.next();
    const g = gen.current;
    try {
      const j = await fetchPage(`afterSeq=${last}&limit=2000`);
      if (!seq.current.isLatest(ticket) || g !== gen.current || (win.current.events.at(-1)?.seq ?? 0) !== last) return;
      if (j.hasLater) return loadRef.current?.();
      inflight.current = j.inflight ?? null;
      win.current = { ...win.current, events: [...win.current.events, ...j.events.filter((e) => e.seq > last)] };
      rebuild();
    } catch {
      /* the next turn_end or a reload reads it */
    }
  }, [fetchPage, rebuild]);

  const loadEarlier = useCallback(async () => {
    if (busy.current || !win.current.hasEarlier) return;
    const first = win.current.events[0]?.seq;
    if (first === undefined) return;
    busy.current = true;
    setPaging((p) => ({ ...p, loading: 'earlier' }));
    const g = gen.current;
    try {
      const j = await fetchPage(`before=${first}&limit=${PAGE}`);
      if (g !== gen.current || win.current.events[0]?.seq !== first) return;
      const el = scroller.current;
      if (el) keepFromBottom.current = el.scrollHeight - el.scrollTop;
      win.current = { ...win.current, events: [...j.events.filter((e) => e.seq < first), ...win.current.events], hasEarlier: j.hasEarlier };
      rebuild();
    } catch (e) {
      app.toast((e as Error).message, 'error');
    } finally {
      busy.current = false;
      setPaging((p) => ({ ...p, loading: undefined }));
    }
  }, [fetchPage, rebuild, app]);

  const loadLater = useCallback(async () => {
    if (busy.current || !win.current.hasLater) return;
    const last = win.current.events.at(-1)?.seq ?? 0;
    busy.current = true;
    setPaging((p) => ({ ...p, loading: 'later' }));
    const g = gen.current;
    try {
      const j = await fetchPage(`afterSeq=${last}&limit=${PAGE}`);
      if (g !== gen.current || (win.current.events.at(-1)?.seq ?? 0) !== last) return;
      win.current = { ...win.current, events: [...win.current.events, ...j.events.filter((e) => e.seq > last)], hasLater: j.hasLater };
      inflight.current = j.inflight ?? null;
      rebuild();
    } catch (e) {
      app.toast((e as Error).message, 'error');
    } finally {
      busy.current = false;
      setPaging((p) => ({ ...p, loading: undefined }));
    }
  }, [fetchPage, rebuild, app]);

  /** Reads the window's span again (another tab deleted something in it). */
  const refreshWindow = useCallback(async () => {
    const w = win.current;
    if (!w.events.length) return loadRef.current?.();
    const ticket = seq.current.next();
    const g = gen.current;
    try {
      const j = await fetchPage(`afterSeq=${w.events[0].seq - 1}&limit=${Math.min(10_000, w.events.length + PAGE)}`);
      if (!seq.current.isLatest(ticket) || g !== gen.current) return;
      win.current = { events: j.events, hasEarlier: w.hasEarlier, hasLater: j.hasLater };
      rebuild();
    } catch {
      /* kept as it is */
    }
  }, [fetchPage, rebuild]);

  const loadPins = useCallback(() => {
    mm<{ pinned: { id: string; text: string }[] }>('plan.get').then((p) => setPinned(p.pinned ?? []), () => setPinned([]));
  }, []);

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let refresh: ReturnType<typeof setTimeout> | undefined;
    return bus.subscribe((event, payload) => {
      const sid = sidRef.current;
      const p = (payload ?? {}) as { sessionId?: string; turnId?: string; kind?: string };
      if (event === 'custom:memory-manager.plan') loadPins();
      // A forget (here or anywhere: a terminal, another tab) rewrites the logs it reaches; the event
      // does not say which session (decision 0260), so the open chat reads its span again.
      if (event === 'memory_changed' && (payload as { kind?: string } | undefined)?.kind === 'forget' && sid) {
        clearTimeout(refresh);
        refresh = setTimeout(() => void refreshWindow(), 200);
        return;
      }
      if (!sid || p.sessionId !== sid) return;
      // The open conversation was deleted (in another window, a terminal): leave it, and say why —
      // a message sent here would start a new conversation under the old name.
      if (event === 'session_event' && p.kind === 'session_deleted') {
        if (!deletedHere(sid)) appRef.current.toast(tRef.current('chat.deletedElsewhere'), 'info');
        appRef.current.navigate({ view: 'chat' });
        return;
      }
      // The session came into being (its first event was written, or its first turn started):
      // read its log now (a turn that started already arrives on the bus as well).
      if (notYetRef.current && (event === 'session_event' || event === 'turn_start' || event === 'turn_end')) {
        notYetRef.current = false;
        clearTimeout(refresh);
        refresh = setTimeout(() => loadRef.current?.(), 150);
      }
      if (event === 'session_event' && p.kind === 'marker') {
        clearTimeout(refresh);
        refresh = setTimeout(() => void refreshWindow(), 200);
        return;
      }
      // A window that does not reach the newest events shows no live turn (it would sit after a gap).
      if (win.current.hasLater) return;
      // A notice arrives as an output of its own turn: kept like a live turn until the log holds it.
      const notice = event === 'output' && (payload as { meta?: { notice?: unknown } }).meta?.notice === true;
      if (typeof p.turnId === 'string' && (event !== 'output' || notice) && !win.current.events.some((e) => e.turnId === p.turnId)) liveIds.current.add(p.turnId);
      setTurns((cur) => applyBusEvent(cur, sid, event, payload));
      // A notice was recorded here (Agent.notify): read it from the log, where it stays.
      if (event === 'turn_end' || (event === 'session_event' && p.kind === 'system')) {
        clearTimeout(timer);
        timer = setTimeout(() => void loadNewer(), 150);
        loadPins();
      }
    });
  }, [loadNewer, loadPins, refreshWindow]);

  // Subscribe first (above), then load: what happened before the load is in the log, what
  // happens after arrives on the bus. The view is keyed by session, so nothing needs wiping.
  useEffect(load, [load, app.epoch]);
  useEffect(loadPins, [loadPins, app.epoch]);

  // Keep the view at the bottom while new text streams (unless the person scrolled up); keep it
  // where it was when a page was put above.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    if (keepFromBottom.current !== undefined) {
      el.scrollTop = el.scrollHeight - keepFromBottom.current;
      keepFromBottom.current = undefined;
    } else if (stick.current) el.scrollTop = el.scrollHeight;
    lastTop.current = el.scrollTop;
  }, [turns]);

  // What the turns show can grow after they rendered (fonts, Markdown, an opened detail, a page
  // above): while the view sticks to the bottom it stays there, not only when the turns change.
  useEffect(() => {
    const el = scroller.current;
    const box = turnsBox.current;
    if (!el || !box || typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(() => {
      if (!stick.current || keepFromBottom.current !== undefined || pendingJump.current) return;
      el.scrollTop = el.scrollHeight;
      lastTop.current = el.scrollTop;
    });
    ro.observe(box);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  // A jump waiting for its page: scroll to the message and highlight it.
  useEffect(() => {
    const h = pendingJump.current;
    if (!h) return;
    const els = targets(h);
    if (!els.length) return;
    pendingJump.current = undefined;
    stick.current = false;
    els[0].scrollIntoView({ block: 'center' });
    for (const el of els) {
      el.classList.remove('flash');
      void el.offsetWidth;
      el.classList.add('flash');
    }
  }, [turns]);

  // Jump to a message (trace to source / locate): in the window already, or the page around it.
  useEffect(() => {
    const h = app.highlight;
    if (!h || h.sessionId !== sessionId) return;
    const target = { turnId: h.turnId, seqs: h.seqs };
    const inWindow = win.current.events.some((e) => (h.turnId && e.turnId === h.turnId) || h.seqs.includes(e.seq));
    if (inWindow) {
      pendingJump.current = target;
      setTurns((cur) => [...cur]); // run the jump effect on the rendered turns
      return;
    }
    if (!sessionId) return;
    const anchor = h.turnId ?? (h.seqs.length ? String(Math.min(...h.seqs)) : undefined);
    if (!anchor) return;
    const ticket = seq.current.next();
    setPaging((p) => ({ ...p, loading: 'jump' }));
    fetchPage(`around=${encodeURIComponent(anchor)}&limit=${PAGE}`).then(
      (j) => {
        if (!seq.current.isLatest(ticket)) return;
        setPaging((p) => ({ ...p, loading: undefined }));
        inflight.current = j.inflight ?? null;
        liveIds.current.clear();
        gen.current++;
        win.current = { events: j.events, hasEarlier: j.hasEarlier, hasLater: j.hasLater };
        stick.current = false;
        pendingJump.current = target;
        setTurns([]);
        rebuild();
      },
      (e: Error) => {
        setPaging((p) => ({ ...p, loading: undefined }));
        app.toast(e instanceof ApiError && e.status === 404 ? t('chat.jumpGone') : e.message, 'error');
      },
    );
    // A jump is one event (app.highlight, with its time): the other values are read through refs.
  }, [app.highlight, sessionId]);

  const running = turns.some((x) => x.status === 'running' || x.status === 'queued');
  const togglePin = useCallback(
    async (text: string) => {
      const existing = pinned.find((p) => p.text === text);
      try {
        if (existing) await mm('plan.unpin', { id: existing.id });
        else await mm('plan.pin', { role: 'assistant', text });
        app.toast(existing ? t('chat.unpinned') : t('chat.pinned'), 'ok');
        loadPins();
        app.refreshMm();
      } catch (e) {
        app.toast((e as Error).message, 'error');
      }
    },
    [pinned, app, t, loadPins],
  );

  const actionsRef = useRef<TurnActions | undefined>(undefined);
  actionsRef.current = {
    reload: () => void refreshWindow(),
    togglePin: (text) => void togglePin(text),
    async remove(turn, scope) {
      const sid = sidRef.current;
      if (!sid) return;
      const path = `/api/v1/sessions/${encodeURIComponent(sid)}/turns/${encodeURIComponent(turn.turnId)}${scope === 'reply' ? '/reply' : ''}`;
      try {
        await api(path, { method: 'DELETE' });
      } catch (e) {
        app.toast((e as Error).message, 'error');
        return;
      }
      win.current = { ...win.current, events: win.current.events.filter((e) => e.turnId !== turn.turnId || (scope === 'reply' && !REPLY_KINDS.has(e.kind))) };
      setTurns((cur) => (scope === 'turn' ? cur.filter((x) => x.turnId !== turn.turnId) : cur));
      rebuild();
      app.toast(scope === 'reply' ? t('chat.replyDeleted') : t('chat.turnDeleted'), 'ok');
      app.refreshMm();
    },
    async resend(turn, text) {
      const sid = sidRef.current;
      if (!sid) return;
      let r: { turnId: string; deleted: string[] };
      try {
        r = await api(`/api/v1/sessions/${encodeURIComponent(sid)}/turns/${encodeURIComponent(turn.turnId)}/resend`, { method: 'POST', json: text === undefined ? {} : { text } });
      } catch (e) {
        app.toast((e as Error).message, 'error');
        return;
      }
      const gone = new Set(r.deleted);
      // Everything after the turn was deleted with it: the window reaches the newest again.
      win.current = { ...win.current, events: win.current.events.filter((e) => !gone.has(e.turnId)), hasLater: false };
      liveIds.current.add(r.turnId);
      stick.current = true;
      setTurns((cur) => applyBusEvent(cur.filter((x) => !gone.has(x.turnId)), sid, 'turn_start', { sessionId: sid, turnId: r.turnId, input: { text: text ?? turn.userText, attachments: turn.attachments } }));
      rebuild();
    },
  };
  const actions = useRef<TurnActions>({
    reload: () => actionsRef.current?.reload(),
    togglePin: (x) => actionsRef.current?.togglePin(x),
    remove: (a, b) => actionsRef.current!.remove(a, b),
    resend: (a, b) => actionsRef.current!.resend(a, b),
  }).current;

  const lastTurnId = turns.at(-1)?.turnId;
  // With no model set up, only the newest turn that found none shows the whole setup card (decision 0690).
  const fullSetup = useMemo(() => fullSetupTurn(turns), [turns]);
  return (
    <div className="chat">
      <div
        className="chat-scroll"
        ref={scroller}
        data-conversation-scroll
        data-testid="chat-scroll"
        onScroll={(e) => {
          const el = e.currentTarget;
          const up = el.scrollTop < lastTop.current - 1;
          lastTop.current = el.scrollTop;
          // Near the bottom: follow again. Away from it only by the person's scrolling up — content
          // growing above or below (scroll anchoring moves the position down) keeps following.
          if (win.current.hasLater) stick.current = false;
          else if (el.scrollHeight - el.scrollTop - el.clientHeight < 80) stick.current = true;
          else if (up) stick.current = false;
          if (el.scrollTop < 400 && win.current.hasEarlier) void loadEarlier();
          if (el.scrollHeight - el.scrollTop - el.clientHeight < 400 && win.current.hasLater) void loadLater();
        }}
      >
        {!sessionId && (
          <div className="empty-chat">
            <div className="empty-mark">
              <Icon name="home" size={34} />
            </div>
            <h2>{t('chat.welcomeTitle')}</h2>
            <p className="muted">{t('chat.welcomeText')}</p>
            {/* No model yet: said before the first message, not only after it (a new user's first look). */}
            {app.mm?.llmAvailable === false && <SetupCard testId="setup-card-welcome" />}
          </div>
        )}
        {notYet && sessionId && !turns.length && (
          <div className="empty-state small" data-testid="chat-not-yet">
            {t('chat.notYet')}
          </div>
        )}
        {loadError && (
          <div className="error-card compact">
            {t('common.loadFailed', { error: loadError })}
            <button className="btn small" onClick={load}>
              {t('common.retry')}
            </button>
          </div>
        )}
        {paging.hasEarlier && (
          <div className="page-bar">
            <button className="btn small" disabled={paging.loading === 'earlier'} onClick={() => void loadEarlier()} data-testid="load-earlier">
              {paging.loading === 'earlier' ? <span className="spinner" /> : <Icon name="chevron" size={14} />} {t('chat.loadEarlier')}
            </button>
          </div>
        )}
        {paging.loading === 'jump' && <div className="muted pad">{t('common.loading')}</div>}
        <div className="turns" data-testid="turns" ref={turnsBox}>
          {turns.map((turn) => (
            <TurnView key={turn.turnId} turn={turn} pinned={pinned.some((p) => p.text === turn.finalText)} isLast={turn.turnId === lastTurnId && !paging.hasLater} sessionBusy={running} actions={actions} setupCompact={turn.turnId !== fullSetup} />
          ))}
        </div>
        {paging.hasLater && (
          <div className="page-bar later">
            <button className="btn small" disabled={paging.loading === 'later'} onClick={() => void loadLater()} data-testid="load-later">
              {t('chat.loadLater')}
            </button>
            <button className="btn small primary" onClick={load} data-testid="jump-latest">
              {t('chat.jumpLatest')}
            </button>
          </div>
        )}
      </div>
      <InputBar
        sessionId={sessionId}
        running={running}
        onSent={(sid, turnId, delivery, text) => {
          stick.current = true;
          if (sid !== sessionId) app.navigate({ view: 'chat', sessionId: sid });
          if (win.current.hasLater) return load();
          if (delivery !== 'interrupt') {
            liveIds.current.add(turnId);
            setTurns((cur) => (cur.some((x) => x.turnId === turnId) ? cur : applyBusEvent(cur, sid, 'turn_start', { sessionId: sid, turnId, input: { text } })));
          }
        }}
      />
    </div>
  );
}
