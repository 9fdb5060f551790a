import { useEffect, useRef, useState } from 'react';
import { api, download, pickList } from '../../api/client';
import { bus } from '../../api/event-stream';
import { useApp } from '../../app-context';
import { useLang, useT } from '../../i18n';
import { deletedHere, deletingHere } from '../../lib/own-deletes';
import { useRequest } from '../../lib/use-request';
import { Icon } from '../icon';
import { relTime } from '../../lib/format';
import { Dialog } from '../dialog';
import { NOTICES_SESSION, sessionLabel } from '../../lib/source-place';

export interface SessionInfo {
  id: string;
  channel: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  turns: number;
}

/** The sessions list (W-1): newest first, new session, rename in place, export as Markdown, delete. */
export function SessionList() {
  const app = useApp();
  const t = useT();
  const lang = useLang();
  const req = useRequest(async () => pickList<SessionInfo>(await api('/api/v1/sessions'), 'sessions'), [app.epoch]);
  const [editing, setEditing] = useState<string | undefined>();
  const [title, setTitle] = useState('');
  const [filter, setFilter] = useState('');
  const [deleting, setDeleting] = useState<SessionInfo | undefined>();
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = bus.subscribe((event, payload) => {
      // A notice (`system`) needs no turn: it can make its session, or move it up, on its own.
      const kind = (payload as { kind?: string } | undefined)?.kind;
      if (event === 'turn_start' || event === 'turn_end' || (event === 'session_event' && (kind === 'session_deleted' || kind === 'system'))) {
        clearTimeout(timer);
        timer = setTimeout(req.reload, 300);
      }
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, [req.reload]);

  const current = app.route.view === 'chat' ? app.route.sessionId : undefined;
  // A session just created by the first message: list it at once.
  const tried = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (current && tried.current !== current && req.data && !req.data.some((s) => s.id === current)) {
      tried.current = current;
      req.reload();
    }
  }, [current, req.data, req.reload]);
  const rename = async (id: string) => {
    const v = title.trim();
    setEditing(undefined);
    if (!v) return;
    try {
      await api(`/api/v1/sessions/${encodeURIComponent(id)}`, { method: 'PATCH', json: { title: v } });
      req.reload();
    } catch (e) {
      app.toast((e as Error).message, 'error');
    }
  };
  const exportSession = async (s: SessionInfo) => {
    try {
      await download(`/api/v1/sessions/${encodeURIComponent(s.id)}/export`, `${s.id}.md`);
    } catch (e) {
      app.toast((e as Error).message, 'error');
    }
  };
  const remove = async (s: SessionInfo) => {
    setDeleting(undefined);
    try {
      deletingHere(s.id);
      await api(`/api/v1/sessions/${encodeURIComponent(s.id)}`, { method: 'DELETE' });
      app.toast(t('chat.sessionDeleted'), 'ok');
      if (current === s.id) app.navigate({ view: 'chat' });
    } catch (e) {
      app.toast((e as Error).message, 'error');
    } finally {
      // The daemon's event about it arrives about when the answer does; then the mark has no use.
      setTimeout(() => deletedHere(s.id), 5000);
    }
    req.reload();
  };
  const sessions = (req.data ?? []).filter((s) => !filter || `${sessionLabel(t, s)} ${s.id}`.toLowerCase().includes(filter.toLowerCase()));
  return (
    <div className="session-list">
      <div className="session-list-head">
        <button className="btn primary block" onClick={() => app.navigate({ view: 'chat' })} data-testid="new-session">
          <Icon name="plus" /> {t('chat.newSession')}
        </button>
        <input className="input small" placeholder={t('chat.filterSessions')} value={filter} onChange={(e) => setFilter(e.target.value)} />
      </div>
      {req.error && <div className="muted pad">{t('common.loadFailed', { error: req.error.message })}</div>}
      {!req.error && req.data && req.data.length === 0 && <div className="muted pad">{t('chat.noSessions')}</div>}
      <ul className="sessions" data-testid="sessions">
        {sessions.map((s) => (
          <li key={s.id} className={s.id === current ? 'active' : ''}>
            {editing === s.id ? (
              <input
                className="input small"
                autoFocus
                value={title}
                onChange={(e) => setTitle(e.target.value)}
                onBlur={() => void rename(s.id)}
                onKeyDown={(e) => {
                  if (e.key === 'Enter') void rename(s.id);
                  if (e.key === 'Escape') setEditing(undefined);
                }}
              />
            ) : (
              <button className="session-item" onClick={() => app.navigate({ view: 'chat', sessionId: s.id })} onDoubleClick={() => { setEditing(s.id); setTitle(s.title); }} title={s.id}>
                <span className="session-title">{sessionLabel(t, s)}</span>
                <span className="session-meta">
                  {s.channel !== 'webui' && s.id !== NOTICES_SESSION && <span className="badge">{s.channel}</span>}
                  {relTime(s.updatedAt, lang)} · {t('chat.turnsCount', { n: s.turns })}
                </span>
              </button>
            )}
            {editing !== s.id && (
              <span className="session-actions">
                <button className="icon-btn tiny" title={t('chat.rename')} aria-label={t('chat.rename')} onClick={() => { setEditing(s.id); setTitle(s.title); }}>
                  <Icon name="edit" size={14} />
                </button>
                <button className="icon-btn tiny" title={t('chat.export')} aria-label={t('chat.export')} onClick={() => void exportSession(s)} data-testid="export-session">
                  <Icon name="download" size={14} />
                </button>
                <button className="icon-btn tiny" title={t('chat.deleteSession')} aria-label={t('chat.deleteSession')} onClick={() => setDeleting(s)} data-testid="delete-session">
                  <Icon name="trash" size={14} />
                </button>
              </span>
            )}
          </li>
        ))}
      </ul>
      {deleting && (
        <Dialog title={t('chat.deleteSession')} onClose={() => setDeleting(undefined)} testId="session-delete-confirm">
          <p>{t('chat.deleteSessionText', { title: sessionLabel(t, deleting) })}</p>
          <p className="muted small">{t('chat.deleteMemoryNote')}</p>
          <div className="dialog-actions">
            <button className="btn" onClick={() => setDeleting(undefined)}>
              {t('common.cancel')}
            </button>
            <button className="btn danger" onClick={() => void remove(deleting)} data-testid="session-delete-ok">
              {t('common.delete')}
            </button>
          </div>
        </Dialog>
      )}
    </div>
  );
}
