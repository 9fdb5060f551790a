import { tagLabel } from '../../lib/tag-label';
import { useCallback, useEffect, useRef, useState } from 'react';
import { mm } from '../../api/client';
import { useApp, useMemoryEpoch } from '../../app-context';
import { useLang, useT } from '../../i18n';
import { useVisibleRows } from '../../lib/virtual-rows';
import { createSequencer } from '../../lib/sequencer';
import { rowAt, withPage, type PageState } from '../../lib/paged-rows';
import { plainPreview, relTime } from '../../lib/format';
import { tagColor } from '../../lib/graph-layout';
import { Icon } from '../icon';
import { Switch } from '../switch';
import { Dialog } from '../dialog';
import { MemoryDetail } from './memory-detail';
import type { MemorySummary } from './types';

const TAGS = ['', 'convention', '会话总结', '复盘'];

/** Height of one row of the list (fixed, so 10,000 memories are laid out without being rendered). */
const ROW = 104;
/** Memories read per `memory.list` page. */
const PAGE_SIZE = 200;
/** What the list shows changes with these (`memory_changed`, decision 0260). */
const LIBRARY_KINDS = ['memory', 'forget'] as const;

/** The library as the list shows it: `total` rows, read page by page as they come into view. */
interface LibraryRows {
  total: number | undefined;
  /** The memory at a row, or undefined while its page is loading. */
  at(i: number): MemorySummary | undefined;
  error: Error | undefined;
  /** Changes one memory where it is shown (an optimistic toggle). */
  patch(id: string, fn: (m: MemorySummary) => MemorySummary): void;
}

/**
 * The rows of the library: a search answers all its hits at once; the whole library (or one tag)
 * is read in pages of PAGE_SIZE as they scroll into view, so opening a big library reads one page.
 * `reloadKey` starts over (an empty list until the first page is back); `refreshKey` re-reads the
 * pages in view and keeps showing the old rows until each one's new page is back (a turn may have
 * saved a memory; `memory_changed` said the library changed elsewhere).
 */
function useLibraryRows(query: string, tag: string, range: { start: number; end: number }, reloadKey: unknown, refreshKey: unknown): LibraryRows {
  // `gen` is the generation the pages were read in: a page of a newer one replaces the older pages.
  const [state, setState] = useState<PageState<MemorySummary>>({ pages: new Map(), stale: new Map(), gen: 0 });
  const asked = useRef(new Set<number>());
  const seq = useRef(createSequencer());
  const gen = useRef(0);
  // Rows changed here (a switch moved) and when, in the order pages are asked for: a page asked
  // for before the change says what was before it, and would move the switch back.
  const clock = useRef(0);
  const changed = useRef(new Map<string, { fn: (m: MemorySummary) => MemorySummary; at: number }>());
  const fetchPage = useCallback(
    (page: number, g: number) => {
      if (asked.current.has(page)) return;
      asked.current.add(page);
      const ticket = seq.current.next();
      const at = ++clock.current;
      const req = query ? mm<MemorySummary[]>('memory.search', { query, limit: 100, tag: tag || undefined }).then((items) => ({ total: items.length, items })) : mm<{ total: number; items: MemorySummary[] }>('memory.list', { tag: tag || undefined, limit: PAGE_SIZE, offset: page * PAGE_SIZE });
      req.then(
        (r) => {
          if (g !== gen.current) return;
          const items = r.items.map((x) => {
            const c = changed.current.get(x.id);
            if (!c) return x;
            if (c.at > at) return c.fn(x);
            // Asked for after the change: the daemon's answer is the truth from here on.
            changed.current.delete(x.id);
            return x;
          });
          setState((s) => withPage(s, g, page, items, r.total));
        },
        (e: Error) => {
          asked.current.delete(page);
          if (g === gen.current && seq.current.isLatest(ticket)) setState((s) => ({ ...s, error: e }));
        },
      );
    },
    [query, tag],
  );
  // A new query, tag or library: start over from the first page.
  useEffect(() => {
    gen.current++;
    asked.current = new Set();
    setState({ pages: new Map(), stale: new Map(), gen: gen.current });
    fetchPage(0, gen.current);
  }, [fetchPage, reloadKey]);
  // The library may have changed (a turn ended): read the pages in view again, keeping the old rows
  // on screen meanwhile. The first render skips it (the effect above just read page 0).
  const rangeRef = useRef(range);
  rangeRef.current = range;
  const firstRefresh = useRef(true);
  useEffect(() => {
    if (firstRefresh.current) {
      firstRefresh.current = false;
      return;
    }
    gen.current++;
    asked.current = new Set();
    const { start, end } = rangeRef.current;
    const last = Math.max(start, end - 1);
    for (let p = Math.floor(start / PAGE_SIZE); p <= Math.floor(last / PAGE_SIZE); p++) fetchPage(p, gen.current);
    // Only a new refreshKey re-reads (the range and fetchPage are read, not watched).
  }, [refreshKey]);
  // The pages of the rows in view.
  useEffect(() => {
    if (state.total === undefined || query) return;
    const last = Math.min(range.end, state.total) - 1;
    for (let p = Math.floor(range.start / PAGE_SIZE); p <= Math.floor(Math.max(0, last) / PAGE_SIZE); p++) fetchPage(p, gen.current);
  }, [range.start, range.end, state.total, query, fetchPage]);
  return {
    total: state.total,
    error: state.error,
    at: (i) => (query ? state.pages.get(0)?.[i] : rowAt(state, i, PAGE_SIZE)),
    patch: (id, fn) => {
      changed.current.set(id, { fn, at: ++clock.current });
      setState((s) => {
        const change = (m: Map<number, MemorySummary[]>) => {
          const out = new Map(m);
          for (const [k, items] of out) if (items.some((x) => x.id === id)) out.set(k, items.map((x) => (x.id === id ? fn(x) : x)));
          return out;
        };
        return { ...s, pages: change(s.pages), stale: change(s.stale) };
      });
    },
  };
}

/**
 * Library tab: search, tag filter, enabled toggles, multi-select compose; opens a memory's
 * detail. The list is virtual (fixed-height rows, only those in view rendered) and read in pages.
 */
export function LibraryTab() {
  const app = useApp();
  const t = useT();
  const lang = useLang();
  const [query, setQuery] = useState('');
  const [debounced, setDebounced] = useState('');
  const [tag, setTag] = useState('');
  const [selected, setSelected] = useState<string[]>([]);
  // Whether each selected memory is on, as its row said when it was ticked (or switched since).
  const [selectedOn, setSelectedOn] = useState<Record<string, { title: string; enabled: boolean }>>({});
  const [composing, setComposing] = useState(false);
  useEffect(() => {
    const h = setTimeout(() => setDebounced(query.trim()), 250);
    return () => clearTimeout(h);
  }, [query]);
  const listEl = useRef<HTMLDivElement>(null);
  const [count, setCount] = useState(0);
  const range = useVisibleRows(listEl, count, ROW);
  const rows = useLibraryRows(debounced, tag, range, `${app.epoch}|${app.memoryPanel.memoryId ?? ''}`, useMemoryEpoch(LIBRARY_KINDS));
  useEffect(() => setCount(rows.total ?? 0), [rows.total]);

  if (app.memoryPanel.memoryId) return <MemoryDetail id={app.memoryPanel.memoryId} onBack={() => app.setMemoryPanel({ memoryId: undefined })} />;

  const toggleEnabled = async (m: MemorySummary, v: boolean) => {
    rows.patch(m.id, (x) => ({ ...x, enabled: v }));
    setSelectedOn((s) => (s[m.id] ? { ...s, [m.id]: { title: m.title, enabled: v } } : s));
    try {
      await mm('memory.updateMeta', { id: m.id, enabled: v });
    } catch (e) {
      rows.patch(m.id, (x) => ({ ...x, enabled: !v }));
      app.toast((e as Error).message, 'error');
    }
  };
  const shown: number[] = [];
  for (let i = range.start; i < Math.min(range.end, count); i++) shown.push(i);

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
            {g ? tagLabel(t, g) : t('library.all')}
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
      {rows.error && <div className="error-card compact">{t('common.loadFailed', { error: rows.error.message })}</div>}
      {rows.total === 0 && <div className="empty-state small">{debounced ? t('library.noResults') : tag ? t('library.noneTagged') : t('library.empty')}</div>}
      {rows.total !== undefined && rows.total > 0 && (
        <div className="muted small list-count" data-testid="library-count">
          {t('library.count', { n: rows.total })}
        </div>
      )}
      <div className="memory-list virtual" data-testid="memory-list" ref={listEl} style={{ height: count * ROW }}>
        {shown.map((i) => {
          const m = rows.at(i);
          if (!m) return <div className="memory-item placeholder" key={`p${i}`} style={{ top: i * ROW }} aria-hidden />;
          return (
          <div className={`memory-item${m.enabled ? '' : ' disabled'}`} key={m.id} data-memory-id={m.id} data-row={i} style={{ top: i * ROW }}>
            <input
              type="checkbox"
              checked={selected.includes(m.id)}
              onChange={(e) => {
                const on = e.target.checked;
                setSelected((s) => (on ? [...s, m.id] : s.filter((x) => x !== m.id)));
                setSelectedOn((s) => ({ ...s, [m.id]: { title: m.title, enabled: m.enabled } }));
              }}
              aria-label={t('library.select')}
            />
            <button className="memory-main" onClick={() => app.setMemoryPanel({ memoryId: m.id })}>
              <span className="memory-title" title={m.title}>
                <span className="dot" style={{ background: tagColor(m.tags) }} />
                {m.title}
              </span>
              {m.preview && <span className="memory-preview clamp2">{plainPreview(m.preview)}</span>}
              <span className="memory-meta">
                {m.tags.map((g) => (
                  <span className="tag" key={g} title={g}>
                    {tagLabel(t, g)}
                  </span>
                ))}
                {m.setAside && (
                  <span className="tag aside" title={t('memory.setAsideHint')} data-testid="memory-set-aside">
                    {t('memory.setAside')}
                  </span>
                )}
                {m.speaker && (
                  <span className="speaker muted small" title={m.speaker.id} data-testid="memory-speaker">
                    <Icon name="user" size={12} /> {m.speaker.name ?? m.speaker.id}
                  </span>
                )}
                <span className="muted small">{relTime(m.updatedAt, lang)}</span>
              </span>
            </button>
            <Switch checked={m.enabled} onChange={(v) => void toggleEnabled(m, v)} label={t('library.enabled')} />
          </div>
          );
        })}
      </div>
      {composing && (
        <ComposeDialog
          ids={selected}
          off={selected.filter((id) => selectedOn[id]?.enabled === false).map((id) => selectedOn[id].title)}
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

/** `off`: the titles of the selected memories that are turned off (the new one starts off because of them). */
function ComposeDialog({ ids, off, onClose }: { ids: string[]; off: string[]; onClose: (id?: string) => void }) {
  const t = useT();
  const lang = useLang();
  const [title, setTitle] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const going = useRef(false);
  // Once per click or Enter (a held Enter repeats, before a render could disable anything): one composed memory.
  const compose = () => {
    if (going.current || !title.trim()) return;
    going.current = true;
    setBusy(true);
    void mm<{ id: string }>('memory.compose', { ids, title: title.trim() }).then(
      (r) => onClose(r.id),
      (e: Error) => {
        setError(e.message);
        going.current = false;
        setBusy(false);
      },
    );
  };
  return (
    <Dialog title={t('library.composeTitle', { n: ids.length })} onClose={() => onClose()} onSubmit={compose} testId="compose-dialog">
      <p className="muted small">{t('library.composeHint')}</p>
      {off.length > 0 && (
        <p className="warn-text small" data-testid="compose-off">
          {t('library.composeOff', { titles: off.map((x) => `“${x}”`).join(lang === 'zh' ? '、' : ', ') })}
        </p>
      )}
      <label className="field">
        <span>{t('memory.title')}</span>
        <input className="input" autoFocus value={title} onChange={(e) => setTitle(e.target.value)} data-testid="compose-title" />
      </label>
      {error && <div className="form-error">{error}</div>}
      <div className="dialog-actions">
        <button className="btn" onClick={() => onClose()}>
          {t('common.cancel')}
        </button>
        <button className="btn primary" disabled={busy || !title.trim()} onClick={compose}>
          {t('library.compose')}
        </button>
      </div>
    </Dialog>
  );
}
