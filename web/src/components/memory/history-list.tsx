import { useState } from 'react';
import { api } from '../../api/client';
import { useApp, useMemoryEpoch } from '../../app-context';
import { VIEW_KINDS } from '../../lib/view-kinds';
import { useLang, useT } from '../../i18n';
import { useRequest } from '../../lib/use-request';
import { relTime } from '../../lib/format';
import { Icon } from '../icon';
import { actorLabel, changeBadge, toolLabel } from '../../lib/vocab';
import { changeSummary } from '../../lib/change-summary';
import type { MemoryChange } from '../../../../src/spec/index.js';

/**
 * The history of memory changes (K-3) — of one thing (`target`: a memory id, `relation:12`, a turn
 * id), of a name (`subject`: an entity, a memory's title), or everything — with who made each,
 * when, from which turn, and undo.
 */
export function HistoryList({ subject, target, limit = 100, onUndone }: { subject?: string; target?: string; limit?: number; onUndone?: () => void }) {
  const app = useApp();
  const t = useT();
  const lang = useLang();
  const [busy, setBusy] = useState<string | undefined>();
  const qs = new URLSearchParams({ limit: String(limit), ...(subject ? { subject } : {}), ...(target ? { target } : {}) });
  const changed = useMemoryEpoch(VIEW_KINDS.history);
  const req = useRequest(() => api<{ history: MemoryChange[] }>(`/api/v1/memory/history?${qs}`).then((j) => j.history), [qs.toString(), app.epoch, changed]);
  const undo = async (c: MemoryChange) => {
    if (!window.confirm(t('history.undoConfirm', { summary: changeSummary(t, c, lang) }))) return;
    setBusy(c.id);
    try {
      await api(`/api/v1/memory/history/${encodeURIComponent(c.id)}/undo`, { method: 'POST', json: {} });
      app.toast(t('history.undone'), 'ok');
      onUndone?.();
    } catch (e) {
      app.toast((e as Error).message, 'error');
    }
    setBusy(undefined);
    req.reload();
  };
  if (req.error) return <div className="error-text">{req.error.message}</div>;
  if (req.data?.length === 0) return <div className="empty-state small">{t('history.empty')}</div>;
  return (
    <div className="history" data-testid="memory-history">
      {req.data?.map((c) => {
        const summary = changeSummary(t, c, lang);
        return (
          <div className={`list-item change${c.undoneBy ? ' undone' : ''}`} key={c.id} data-testid="history-row">
            <span className="badge" data-testid="history-badge" title={`${c.kind} ${c.op}`}>
              {changeBadge(t, c.kind, c.op)}
            </span>
            <span className="grow clamp1" title={summary} data-testid="history-summary">
              {summary}
            </span>
            <span className="muted small">
              <span data-testid="history-actor">{c.tool ? `${actorLabel(t, c.actor)} (${toolLabel(t, c.tool)})` : actorLabel(t, c.actor)}</span> · {relTime(c.at, lang)}
              {c.turnId ? ` · ${c.turnId}` : ''}
            </span>
            {c.redacted ? (
              <span className="badge">{t('history.forgotten')}</span>
            ) : c.undoneBy ? (
              <span className="badge">{t('history.undoneBadge')}</span>
            ) : c.kind === 'forget' || c.kind === 'replacement' || c.op === 'undo' || c.op === 'keep' ? null : (
              <button className="btn small" disabled={busy === c.id} onClick={() => void undo(c)} data-testid="history-undo">
                <Icon name="undo" size={14} /> {t('history.undo')}
              </button>
            )}
          </div>
        );
      })}
    </div>
  );
}

/** Settings → Memory history: every change, filtered by a name, with undo. */
export function HistorySection() {
  const t = useT();
  const [q, setQ] = useState('');
  const [subject, setSubject] = useState('');
  return (
    <div className="changes">
      <p className="muted">{t('history.hint')}</p>
      <form
        className="search-box"
        onSubmit={(e) => {
          e.preventDefault();
          setSubject(q.trim());
        }}
      >
        <Icon name="search" size={16} />
        <input className="input bare" value={q} placeholder={t('history.filter')} onChange={(e) => setQ(e.target.value)} data-testid="history-filter" />
      </form>
      <HistoryList subject={subject || undefined} limit={200} />
    </div>
  );
}
