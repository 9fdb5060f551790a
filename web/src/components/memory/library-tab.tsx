import { useEffect, useState } from 'react';
import { mm } from '../../api/client';
import { useApp } from '../../app-context';
import { useLang, useT } from '../../i18n';
import { useRequest } from '../../lib/use-request';
import { relTime } from '../../lib/format';
import { tagColor } from '../../lib/graph-layout';
import { Icon } from '../icon';
import { Switch } from '../switch';
import { Dialog } from '../dialog';
import { MemoryDetail } from './memory-detail';
import type { MemorySummary } from './types';

const TAGS = ['', 'convention', '会话总结', '复盘'];

/** Library tab: search, tag filter, enabled toggles, multi-select compose; opens a memory's detail. */
export function LibraryTab() {
  const app = useApp();
  const t = useT();
  const lang = useLang();
  const [query, setQuery] = useState('');
  const [debounced, setDebounced] = useState('');
  const [tag, setTag] = useState('');
  const [selected, setSelected] = useState<string[]>([]);
  const [composing, setComposing] = useState(false);
  useEffect(() => {
    const h = setTimeout(() => setDebounced(query.trim()), 250);
    return () => clearTimeout(h);
  }, [query]);
  const list = useRequest(async () => {
    if (debounced) return mm<MemorySummary[]>('memory.search', { query: debounced, limit: 100, tag: tag || undefined });
    const r = await mm<{ total: number; items: MemorySummary[] }>('memory.list', { tag: tag || undefined, limit: 300 });
    return r.items;
  }, [debounced, tag, app.epoch, app.memoryPanel.memoryId]);

  if (app.memoryPanel.memoryId) return <MemoryDetail id={app.memoryPanel.memoryId} onBack={() => app.setMemoryPanel({ memoryId: undefined })} />;

  const toggleEnabled = async (m: MemorySummary, v: boolean) => {
    list.setData((d) => d?.map((x) => (x.id === m.id ? { ...x, enabled: v } : x)));
    try {
      await mm('memory.updateMeta', { id: m.id, enabled: v });
    } catch (e) {
      list.setData((d) => d?.map((x) => (x.id === m.id ? { ...x, enabled: !v } : x)));
      app.toast((e as Error).message, 'error');
    }
  };

  return (
    <div className="library-tab" data-testid="library-tab">
      <div className="search-box">
        <Icon name="search" size={16} />
        <input className="input bare" placeholder={t('library.search')} value={query} onChange={(e) => setQuery(e.target.value)} data-testid="library-search" />
      </div>
      <div className="chips">
        {TAGS.map((g) => (
          <button key={g || 'all'} className={`chip-btn${tag === g ? ' active' : ''}`} onClick={() => setTag(g)}>
            {g && <span className="dot" style={{ background: tagColor([g]) }} />}
            {g ? t(`tag.${g}` as 'tag.convention') : t('library.all')}
          </button>
        ))}
      </div>
      {selected.length > 0 && (
        <div className="selection-bar">
          <span>{t('library.selected', { n: selected.length })}</span>
          <button className="btn small primary" disabled={selected.length < 2} onClick={() => setComposing(true)} data-testid="compose">
            {t('library.compose')}
          </button>
          <button className="btn small" onClick={() => void Promise.all(selected.map((id) => mm('plan.addMemory', { id }))).then(() => { app.toast(t('library.addedToPlan'), 'ok'); app.refreshMm(); }, (e: Error) => app.toast(e.message, 'error'))}>
            {t('library.addToPlan')}
          </button>
          <button className="btn small" onClick={() => setSelected([])}>
            {t('common.clear')}
          </button>
        </div>
      )}
      {list.error && <div className="error-card compact">{t('common.loadFailed', { error: list.error.message })}</div>}
      {list.data && list.data.length === 0 && <div className="empty-state small">{debounced ? t('library.noResults') : t('library.empty')}</div>}
      <div className="memory-list" data-testid="memory-list">
        {list.data?.map((m) => (
          <div className={`memory-item${m.enabled ? '' : ' disabled'}`} key={m.id} data-memory-id={m.id}>
            <input type="checkbox" checked={selected.includes(m.id)} onChange={(e) => setSelected((s) => (e.target.checked ? [...s, m.id] : s.filter((x) => x !== m.id)))} aria-label={t('library.select')} />
            <button className="memory-main" onClick={() => app.setMemoryPanel({ memoryId: m.id })}>
              <span className="memory-title">
                <span className="dot" style={{ background: tagColor(m.tags) }} />
                {m.title}
              </span>
              {m.preview && <span className="memory-preview clamp2">{m.preview.replace(/\*\*|__|`|^#+\s*/gm, '')}</span>}
              <span className="memory-meta">
                {m.tags.map((g) => (
                  <span className="tag" key={g}>
                    {g}
                  </span>
                ))}
                <span className="muted small">{relTime(m.updatedAt, lang)}</span>
              </span>
            </button>
            <Switch checked={m.enabled} onChange={(v) => void toggleEnabled(m, v)} label={t('library.enabled')} />
          </div>
        ))}
      </div>
      {composing && (
        <ComposeDialog
          ids={selected}
          onClose={(id) => {
            setComposing(false);
            if (id) {
              setSelected([]);
              app.setMemoryPanel({ memoryId: id });
            }
          }}
        />
      )}
    </div>
  );
}

function ComposeDialog({ ids, onClose }: { ids: string[]; onClose: (id?: string) => void }) {
  const t = useT();
  const [title, setTitle] = useState('');
  const [error, setError] = useState<string>();
  return (
    <Dialog title={t('library.composeTitle', { n: ids.length })} onClose={() => onClose()}>
      <p className="muted small">{t('library.composeHint')}</p>
      <label className="field">
        <span>{t('memory.title')}</span>
        <input className="input" autoFocus value={title} onChange={(e) => setTitle(e.target.value)} data-testid="compose-title" />
      </label>
      {error && <div className="form-error">{error}</div>}
      <div className="dialog-actions">
        <button className="btn" onClick={() => onClose()}>
          {t('common.cancel')}
        </button>
        <button className="btn primary" disabled={!title.trim()} onClick={() => void mm<{ id: string }>('memory.compose', { ids, title: title.trim() }).then((r) => onClose(r.id), (e: Error) => setError(e.message))}>
          {t('library.compose')}
        </button>
      </div>
    </Dialog>
  );
}
