import { useEffect, useRef, useState } from 'react';
import { api } from '../../api/client';
import { useApp, useMemoryEpoch } from '../../app-context';
import { VIEW_KINDS } from '../../lib/view-kinds';
import { useLang, useT } from '../../i18n';
import { useRequest } from '../../lib/use-request';
import { bytes, relTime } from '../../lib/format';
import { Markdown } from '../../lib/markdown';
import { Icon } from '../icon';
import { HistoryList } from '../memory/history-list';
import { isKnowledgeName, knowledgeNameFromFile } from '../../lib/knowledge-name';

/** What "Add from file…" offers (the daemon also reads code and other text files given to `waiter`). */
const FILE_TYPES = '.md,.markdown,.txt,.pdf,.html,.htm';
/** The daemon's limit of a file read into the knowledge base (MAX_KNOWLEDGE_FILE_BYTES). */
const MAX_FILE_BYTES = 25 * 1024 * 1024;
/** Body types a form can send: the API refuses them, so such a file goes as bytes and is judged by its name. */
const FORM_TYPES = /^(text\/plain|application\/x-www-form-urlencoded|multipart\/form-data)\b/i;

/** The knowledge base (T-10): list, search as you type, read, edit, create (typed or from a file), delete. */
export function KnowledgeSection() {
  const app = useApp();
  const t = useT();
  const lang = useLang();
  const [q, setQ] = useState('');
  const [query, setQuery] = useState('');
  const [open, setOpen] = useState<string | undefined>();
  const [editing, setEditing] = useState<{ name: string; content: string; isNew?: boolean } | undefined>();
  const [adding, setAdding] = useState<{ file: File; name: string } | undefined>();
  const [uploading, setUploading] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  // Searches as the person types, as the library does; Enter searches at once.
  useEffect(() => {
    const h = setTimeout(() => setQuery(q.trim()), 250);
    return () => clearTimeout(h);
  }, [q]);
  const changed = useMemoryEpoch(VIEW_KINDS.knowledge);
  const list = useRequest(() => api<{ items?: { name: string; updatedAt: number; size: number }[]; hits?: { name: string; score: number; snippet: string }[]; query?: string }>(`/api/v1/memory/knowledge${query ? `?q=${encodeURIComponent(query)}` : ''}`), [query, app.epoch, changed]);
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
  const pick = (file: File | undefined) => {
    if (!file) return;
    if (file.size > MAX_FILE_BYTES) return app.toast(t('knowledge.fileTooLarge', { file: file.name }), 'error');
    setEditing(undefined);
    setAdding({ file, name: knowledgeNameFromFile(file.name) });
  };
  const upload = async () => {
    if (!adding || uploading) return;
    const { file, name } = adding;
    setUploading(true);
    try {
      // The file itself is the body; a new entry only (a name taken answers 409, nothing replaced).
      const type = file.type && !FORM_TYPES.test(file.type) ? file.type : 'application/octet-stream';
      const j = await api<{ item: { name: string; characters: number } }>(`/api/v1/memory/knowledge/${encodeURIComponent(name.trim())}/file`, { method: 'POST', body: file, headers: { 'content-type': type, 'x-filename': encodeURIComponent(file.name) } });
      app.toast(t('knowledge.added', { name: j.item.name, chars: j.item.characters.toLocaleString(lang === 'zh' ? 'zh-CN' : 'en-US') }), 'ok');
      setAdding(undefined);
      setOpen(j.item.name);
      list.reload();
      item.reload();
    } catch (e) {
      app.toast((e as Error).message, 'error');
    } finally {
      setUploading(false);
    }
  };
  const nameOk = adding ? isKnowledgeName(adding.name.trim()) : false;
  return (
    <div className="split knowledge">
      <div className="split-list">
        <div className="row gap">
          <form className="search-box grow" onSubmit={(e) => { e.preventDefault(); setQuery(q.trim()); }}>
            <Icon name="search" size={16} />
            <input className="input bare" value={q} placeholder={t('knowledge.search')} onChange={(e) => setQ(e.target.value)} data-testid="knowledge-search" />
          </form>
          <button className="btn small" onClick={() => { setAdding(undefined); setEditing({ name: '', content: '', isNew: true }); }} data-testid="knowledge-new">
            <Icon name="plus" size={14} /> {t('knowledge.new')}
          </button>
        </div>
        <button className="btn small knowledge-add-file" onClick={() => fileInput.current?.click()} data-testid="knowledge-add-file">
          {t('knowledge.addFile')}
        </button>
        <input
          ref={fileInput}
          type="file"
          accept={FILE_TYPES}
          hidden
          onChange={(e) => {
            pick(e.target.files?.[0]);
            // The same file can be chosen again after a refusal.
            e.target.value = '';
          }}
          data-testid="knowledge-file-input"
        />
        {list.data?.items?.map((k) => (
          <button key={k.name} className={`list-item link-row${open === k.name ? ' active' : ''}`} onClick={() => { setOpen(k.name); setEditing(undefined); setAdding(undefined); }} data-testid="knowledge-item">
            <span className="grow left">{k.name}</span>
            <span className="muted small">{bytes(k.size)} · {relTime(k.updatedAt, lang)}</span>
          </button>
        ))}
        {list.data?.hits?.map((h) => (
          <button key={h.name} className={`list-item link-row col${open === h.name ? ' active' : ''}`} onClick={() => { setOpen(h.name); setEditing(undefined); setAdding(undefined); }} data-testid="knowledge-hit">
            <strong>{h.name}</strong>
            <span className="muted small clamp2">{h.snippet}</span>
          </button>
        ))}
        {list.data && !(list.data.items?.length || list.data.hits?.length) && (
          // With a query, "no entries" would read as an empty knowledge base: say that nothing matched.
          <div className="empty-state small" data-testid="knowledge-empty">{list.data.hits ? t('knowledge.noMatches', { query: list.data.query ?? query }) : t('knowledge.empty')}</div>
        )}
      </div>
      <div className="split-detail">
        {adding ? (
          <div className="card" data-testid="knowledge-file-form">
            <div className="card-head">
              <strong>{t('knowledge.addFileTitle')}</strong>
            </div>
            <div className="muted small">
              {adding.file.name} · {bytes(adding.file.size)}
            </div>
            <p className="muted small">{t('knowledge.fileKinds')}</p>
            <label className="muted small" htmlFor="knowledge-file-name">{t('knowledge.name')}</label>
            <input id="knowledge-file-name" className="input" placeholder={t('knowledge.name')} value={adding.name} onChange={(e) => setAdding({ ...adding, name: e.target.value })} data-testid="knowledge-file-name" />
            {!nameOk && <div className="error-text" data-testid="knowledge-name-rule">{t('knowledge.nameRule')}</div>}
            <div className="row end gap">
              <button className="btn" disabled={uploading} onClick={() => setAdding(undefined)}>{t('common.cancel')}</button>
              <button className="btn primary" disabled={!nameOk || uploading} onClick={() => void upload()} data-testid="knowledge-file-add">
                {uploading ? t('knowledge.reading') : t('knowledge.add')}
              </button>
            </div>
          </div>
        ) : editing ? (
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
              <strong className="knowledge-title">{item.data.name}</strong>
              <span className="row gap knowledge-actions">
                <button className="btn small" onClick={() => setEditing({ name: item.data!.name, content: item.data!.content })} data-testid="knowledge-edit">{t('common.edit')}</button>
                <button className="btn small danger" data-testid="knowledge-delete" onClick={() => { if (window.confirm(t('knowledge.deleteConfirm', { name: item.data!.name }))) void api(`/api/v1/memory/knowledge/${encodeURIComponent(item.data!.name)}`, { method: 'DELETE' }).then(() => { setOpen(undefined); list.reload(); }, (e: Error) => app.toast(e.message, 'error')); }}>{t('common.delete')}</button>
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
