import { useState } from 'react';
import { api } from '../../api/client';
import { useApp, useMemoryEpoch } from '../../app-context';
import { VIEW_KINDS } from '../../lib/view-kinds';
import { useLang, useT } from '../../i18n';
import { useRequest } from '../../lib/use-request';
import { bytes, relTime } from '../../lib/format';
import { Markdown } from '../../lib/markdown';
import { Icon } from '../icon';
import { HistoryList } from '../memory/history-list';

/** The knowledge base (T-10): list, search, read, edit, create, delete. */
export function KnowledgeSection() {
  const app = useApp();
  const t = useT();
  const lang = useLang();
  const [q, setQ] = useState('');
  const [query, setQuery] = useState('');
  const [open, setOpen] = useState<string | undefined>();
  const [editing, setEditing] = useState<{ name: string; content: string; isNew?: boolean } | undefined>();
  const changed = useMemoryEpoch(VIEW_KINDS.knowledge);
  const list = useRequest(() => api<{ items?: { name: string; updatedAt: number; size: number }[]; hits?: { name: string; score: number; snippet: string }[] }>(`/api/v1/memory/knowledge${query ? `?q=${encodeURIComponent(query)}` : ''}`), [query, app.epoch, changed]);
  const item = useRequest(() => (open ? api<{ item: { name: string; content: string; updatedAt: number } }>(`/api/v1/memory/knowledge/${encodeURIComponent(open)}`).then((j) => j.item) : Promise.resolve(undefined)), [open, changed]);
  if (list.error) return <ServiceError error={list.error} />;
  const save = async () => {
    if (!editing) return;
    try {
      // A new entry never replaces one of the same name (the daemon answers 409 instead).
      await api(`/api/v1/memory/knowledge/${encodeURIComponent(editing.name)}`, { method: 'PUT', json: { content: editing.content }, ...(editing.isNew ? { headers: { 'if-none-match': '*' } } : {}) });
      app.toast(t('common.saved'), 'ok');
      setOpen(editing.name);
      setEditing(undefined);
      list.reload();
      item.reload();
    } catch (e) {
      app.toast((e as Error).message, 'error');
    }
  };
  return (
    <div className="split">
      <div className="split-list">
        <div className="row gap">
          <form className="search-box grow" onSubmit={(e) => { e.preventDefault(); setQuery(q.trim()); }}>
            <Icon name="search" size={16} />
            <input className="input bare" value={q} placeholder={t('knowledge.search')} onChange={(e) => setQ(e.target.value)} data-testid="knowledge-search" />
          </form>
          <button className="btn small" onClick={() => setEditing({ name: '', content: '', isNew: true })} data-testid="knowledge-new">
            <Icon name="plus" size={14} /> {t('knowledge.new')}
          </button>
        </div>
        {list.data?.items?.map((k) => (
          <button key={k.name} className={`list-item link-row${open === k.name ? ' active' : ''}`} onClick={() => { setOpen(k.name); setEditing(undefined); }} data-testid="knowledge-item">
            <span className="grow left">{k.name}</span>
            <span className="muted small">{bytes(k.size)} · {relTime(k.updatedAt, lang)}</span>
          </button>
        ))}
        {list.data?.hits?.map((h) => (
          <button key={h.name} className="list-item link-row col" onClick={() => setOpen(h.name)}>
            <strong>{h.name}</strong>
            <span className="muted small clamp2">{h.snippet}</span>
          </button>
        ))}
        {list.data && !(list.data.items?.length || list.data.hits?.length) && <div className="empty-state small">{t('knowledge.empty')}</div>}
      </div>
      <div className="split-detail">
        {editing ? (
          <div className="card">
            {editing.isNew && <input className="input" placeholder={t('knowledge.name')} aria-label={t('knowledge.name')} value={editing.name} onChange={(e) => setEditing({ ...editing, name: e.target.value })} data-testid="knowledge-new-name" />}
            <textarea className="input mono" rows={16} value={editing.content} onChange={(e) => setEditing({ ...editing, content: e.target.value })} data-testid="knowledge-content" />
            <div className="row end gap">
              <button className="btn" onClick={() => setEditing(undefined)}>{t('common.cancel')}</button>
              <button className="btn primary" disabled={!editing.name.trim()} onClick={() => void save()} data-testid="knowledge-save">{t('common.save')}</button>
            </div>
          </div>
        ) : item.data ? (
          <div className="card" data-testid="knowledge-entry">
            <div className="card-head">
              <strong>{item.data.name}</strong>
              <span className="row gap">
                <button className="btn small" onClick={() => setEditing({ name: item.data!.name, content: item.data!.content })}>{t('common.edit')}</button>
                <button className="btn small danger" onClick={() => { if (window.confirm(t('knowledge.deleteConfirm', { name: item.data!.name }))) void api(`/api/v1/memory/knowledge/${encodeURIComponent(item.data!.name)}`, { method: 'DELETE' }).then(() => { setOpen(undefined); list.reload(); }, (e: Error) => app.toast(e.message, 'error')); }}>{t('common.delete')}</button>
              </span>
            </div>
            <Markdown text={item.data.content} />
            {/* Who wrote or changed this entry (the agent's knowledge_create, you, an import), with undo (K-3). */}
            <HistoryList
              target={`knowledge:${item.data.name}`}
              limit={20}
              onUndone={() => {
                item.reload();
                list.reload();
              }}
            />
          </div>
        ) : (
          <div className="empty-state small">{t('knowledge.pick')}</div>
        )}
      </div>
    </div>
  );
}

/** A clear card for a subsystem that is not running (503). */
export function ServiceError({ error }: { error: Error }) {
  const t = useT();
  const unavailable = /not available|not running|503/i.test(error.message) || (error as { status?: number }).status === 503;
  return <div className={unavailable ? 'empty-state' : 'error-card compact'}>{unavailable ? t('common.serviceUnavailable', { error: error.message }) : t('common.loadFailed', { error: error.message })}</div>;
}
