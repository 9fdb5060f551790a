import { useCallback, useEffect, useRef, useState } from 'react';
import { api, mm, pickList } from '../../api/client';
import { bus } from '../../api/event-stream';
import { useApp } from '../../app-context';
import { useT } from '../../i18n';
import { applyBusEvent, mergeTurns, turnsFromEvents, type SessionEventLike, type TurnView as Turn } from '../../state/chat-model';
import { createSequencer } from '../../lib/sequencer';
import { TurnView } from './turn-view';
import { InputBar } from './input-bar';
import { Icon } from '../icon';

/** The chat of one session (W-1): history from the log, live updates from SSE, input bar. */
export function ChatView({ sessionId }: { sessionId?: string }) {
  const app = useApp();
  const t = useT();
  const [turns, setTurns] = useState<Turn[]>([]);
  const [loadError, setLoadError] = useState<string | undefined>();
  const [pinned, setPinned] = useState<{ id: string; text: string }[]>([]);
  const scroller = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const seq = useRef(createSequencer());
  const sidRef = useRef(sessionId);
  sidRef.current = sessionId;

  const loadRef = useRef<(() => void) | undefined>(undefined);
  const load = useCallback(() => {
    if (!sessionId) {
      setTurns([]);
      return;
    }
    const ticket = seq.current.next();
    api<{ events: SessionEventLike[]; inflight?: string | null }>(`/api/v1/sessions/${encodeURIComponent(sessionId)}/events`).then(
      (j) => {
        if (!seq.current.isLatest(ticket) || sidRef.current !== sessionId) return;
        setLoadError(undefined);
        setTurns((live) => mergeTurns(turnsFromEvents(sessionId, pickList<SessionEventLike>(j, 'events'), j.inflight), live.filter((x) => x.sessionId === sessionId)));
        // A turn still in flight when the log was read may end before this view follows the
        // session on the bus (e.g. a new session whose first turn fails at once): read again.
        if (j.inflight) setTimeout(() => loadRef.current?.(), 1000);
      },
      (e: Error) => {
        if (seq.current.isLatest(ticket)) setLoadError(e.message);
      },
    );
  }, [sessionId]);

  const loadPins = useCallback(() => {
    mm<{ pinned: { id: string; text: string }[] }>('plan.get').then((p) => setPinned(p.pinned ?? []), () => setPinned([]));
  }, []);


  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    return bus.subscribe((event, payload) => {
      const sid = sidRef.current;
      if (!sid) return;
      setTurns((cur) => applyBusEvent(cur, sid, event, payload));
      const p = payload as { sessionId?: string };
      if (event === 'turn_end' && p.sessionId === sid) {
        clearTimeout(timer);
        timer = setTimeout(load, 150);
      }
      if (event === 'custom:memory-manager.plan' || (event === 'turn_end' && p.sessionId === sid)) loadPins();
    });
  }, [load, loadPins]);

  useEffect(() => {
    loadRef.current = load;
  }, [load]);

  // Subscribe first (above), then load: what happened before the load is in the log, what
  // happens after arrives on the bus. The view is keyed by session, so nothing needs wiping.
  useEffect(load, [load, app.epoch]);
  useEffect(loadPins, [loadPins, app.epoch]);

  // Keep the view at the bottom while new text streams, unless the user scrolled up.
  useEffect(() => {
    const el = scroller.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [turns]);

  // Jump to and highlight a message (trace to source / locate).
  useEffect(() => {
    const h = app.highlight;
    if (!h || h.sessionId !== sessionId || turns.length === 0) return;
    const target = turns.find((x) => (h.turnId && x.turnId === h.turnId) || x.seqs.some((s) => h.seqs.includes(s)));
    if (!target) return;
    const el = document.querySelector<HTMLElement>(`[data-turn-id="${CSS.escape(target.turnId)}"]`);
    if (!el) return;
    stick.current = false;
    el.scrollIntoView({ block: 'center', behavior: 'smooth' });
    el.classList.remove('flash');
    void el.offsetWidth;
    el.classList.add('flash');
  }, [app.highlight, turns, sessionId]);

  const running = turns.some((x) => x.status === 'running' || x.status === 'queued');
  const togglePin = async (text: string) => {
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
  };

  return (
    <div className="chat">
      <div
        className="chat-scroll"
        ref={scroller}
        data-conversation-scroll
        onScroll={(e) => {
          const el = e.currentTarget;
          stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
        }}
      >
        {!sessionId && (
          <div className="empty-chat">
            <div className="empty-mark">
              <Icon name="home" size={34} />
            </div>
            <h2>{t('chat.welcomeTitle')}</h2>
            <p className="muted">{t('chat.welcomeText')}</p>
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
        <div className="turns" data-testid="turns">
          {turns.map((turn) => (
            <TurnView key={turn.turnId} turn={turn} pinned={pinned.some((p) => p.text === turn.finalText)} onTogglePin={() => void togglePin(turn.finalText)} />
          ))}
        </div>
      </div>
      <InputBar
        sessionId={sessionId}
        running={running}
        onSent={(sid, turnId, delivery, text) => {
          stick.current = true;
          if (sid !== sessionId) app.navigate({ view: 'chat', sessionId: sid });
          if (delivery !== 'interrupt') setTurns((cur) => (cur.some((x) => x.turnId === turnId) ? cur : applyBusEvent(cur, sid, 'turn_start', { sessionId: sid, turnId, input: { text } })));
        }}
      />
    </div>
  );
}
