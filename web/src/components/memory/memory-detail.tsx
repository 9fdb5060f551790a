import { tagFromInput, tagLabel } from '../../lib/tag-label';
import { useEffect, useRef, useState } from 'react';
import { mm } from '../../api/client';
import { useApp, useMemoryEpoch } from '../../app-context';
import { VIEW_KINDS } from '../../lib/view-kinds';
import { useLang, useT } from '../../i18n';
import { useRequest } from '../../lib/use-request';
import { relTime } from '../../lib/format';
import { fileErrorInWords } from '../../lib/error-words';
import { tagColor } from '../../lib/graph-layout';
import { Icon } from '../icon';
import { Markdown } from '../../lib/markdown';
import { Switch } from '../switch';
import type { MemoryRecord, MemorySummary, Plan } from './types';
import { ForgetDialog } from './forget-dialog';
import { HistoryList } from './history-list';
import { LinkNotFound, resolveLinks } from './resolve-links';

const split = (s: string) => s.split(/[,，\n]/).map((x) => x.trim()).filter(Boolean);

/** One memory: read-only snapshot, editable notes and meta, tags/enabled, plan, trace to source, graph. */
export function MemoryDetail({ id, onBack }: { id: string; onBack: () => void }) {
  const app = useApp();
  const t = useT();
  const lang = useLang();
  // Changed elsewhere (the agent, `waiter`, a hand edit): read again; an unsaved edit here is kept.
  const changed = useMemoryEpoch(VIEW_KINDS.memory, { withTurns: false });
  const rec = useRequest(() => mm<MemoryRecord>('memory.get', { id }), [id, app.epoch, changed]);
  const related = useRequest(() => mm<MemorySummary[]>('memory.related', { id, depth: 2, limit: 20 }).catch(() => []), [id, app.epoch, changed]);
  const plan = useRequest(() => mm<Plan>('plan.get'), [id, app.epoch, changed]);
  const [notes, setNotes] = useState('');
  const [editMeta, setEditMeta] = useState(false);
  const [meta, setMeta] = useState({ title: '', impressions: '', tags: '', links: '' });
  const [busy, setBusy] = useState(false);
  const [forgetting, setForgetting] = useState(false);
  const [showHistory, setShowHistory] = useState(false);
  const r = rec.data;
  const shown = useRef<MemoryRecord | undefined>(undefined);
  useEffect(() => {
    if (!r) return;
    const was = shown.current;
    shown.current = r;
    // A newer record (read again after a change elsewhere) does not overwrite what the person is
    // typing: notes they changed, a meta form they opened.
    setNotes((n) => (was === undefined || was.id !== r.id || n === was.notes ? r.notes : n));
    if (!editMeta || was?.id !== r.id) setMeta(metaOf(r));
    // Only a new record syncs (editMeta is read, not watched: closing the form must not reset it).
  }, [r]);
  /** A linked memory's title (the related memories are read with the record), else its id. */
  const titleOf = (x: string) => related.data?.find((m) => m.id === x)?.title ?? x;
  const metaOf = (m: MemoryRecord) => ({ title: m.title, impressions: m.impressions.join(', '), tags: m.tags.map((x) => tagLabel(t, x)).join(', '), links: m.links.map(titleOf).join(', ') });

  if (rec.error) {
    return (
      <div className="detail">
        <button className="link-btn" onClick={onBack}>
          ← {t('common.back')}
        </button>
        <div className="error-card compact">{t('common.loadFailed', { error: rec.error.message })}</div>
      </div>
    );
  }
  if (!r) return <div className="muted pad">{t('common.loading')}</div>;
  const inPlan = !!plan.data?.memories.some((m) => m.id === id);
  // A linked memory that is gone (deleted, forgotten) is named, struck through, and not opened.
  const idLink = (x: string) =>
    r.missing?.includes(x) ? (
      <span className="mono gone" key={x} title={t('memory.gone')} data-testid="memory-gone">
        {x}
      </span>
    ) : (
      <button className={`link-btn${titleOf(x) === x ? ' mono' : ''}`} key={x} title={x} onClick={() => app.openMemory(x)} data-testid="memory-link">
        {titleOf(x)}
      </button>
    );

  const run = async (fn: () => Promise<unknown>, ok?: string) => {
    setBusy(true);
    try {
      await fn();
      if (ok) app.toast(ok, 'ok');
      rec.reload();
      plan.reload();
      app.refreshMm();
    } catch (e) {
      app.toast((e as Error).message, 'error');
    } finally {
      setBusy(false);
    }
  };
  /** Saves a change of the memory's meta; resolves false (and says why) when it was refused. */
  const patchMeta = (patch: Record<string, unknown>): Promise<boolean> => {
    const before = r;
    rec.setData((d) => (d ? ({ ...d, ...patch } as MemoryRecord) : d));
    return mm('memory.updateMeta', { id, ...patch }).then(
      () => {
        rec.reload();
        plan.reload();
        return true;
      },
      (e: Error) => {
        rec.setData(() => before);
        // What was asked meanwhile was dropped by the change: read the memory again.
        rec.reload();
        app.toast(t('common.saveFailed', { error: e.message }), 'error');
        return false;
      },
    );
  };
  /** The meta form's save: the form stays open, with what was typed, until the change is saved. */
  const saveMeta = async () => {
    let links: string[];
    try {
      const current = new Map(r.links.filter((x) => titleOf(x) !== x).map((x) => [titleOf(x), x] as const));
      links = await resolveLinks(split(meta.links), current, {
        search: (query) => mm<MemorySummary[]>('memory.search', { query, limit: 50 }),
        exists: (x) => mm('memory.get', { id: x }).then(() => true, () => false),
      });
    } catch (e) {
      if (!(e instanceof LinkNotFound)) throw e;
      app.toast(t(e.reason === 'none' ? 'memory.linkNone' : 'memory.linkSeveral', { title: e.typed }), 'error');
      return;
    }
    if (await patchMeta({ title: meta.title.trim() || r.title, impressions: split(meta.impressions), tags: split(meta.tags).map((x) => tagFromInput(t, x, r.tags)), links })) setEditMeta(false);
  };
  const isConvention = r.tags.includes('convention');

  return (
    <div className="detail" data-testid="memory-detail">
      <div className="detail-top">
        <button className="link-btn" onClick={onBack}>
          ← {t('common.back')}
        </button>
        <span className="muted small mono">{r.id}</span>
      </div>
      <h3 className="detail-title">
        <span className="dot" style={{ background: tagColor(r.tags) }} />
        {r.title}
      </h3>
      {r.frontMatterError && (
        <div className="set-aside-note" role="alert" data-testid="detail-file-error">
          {t('memory.fileError', { file: `memories/${r.id}.md`, error: fileErrorInWords(r.frontMatterError, lang) })}
        </div>
      )}
      {r.setAside && (
        <div className="set-aside-note" data-testid="detail-set-aside">
          {t('memory.setAsideHint')}
        </div>
      )}
      <div className="muted small">
        {t('memory.updated', { when: relTime(r.updatedAt, lang) })}
        {r.composedOf.length > 0 && ` · ${t('memory.composedOfN', { n: r.composedOf.length })}`}
        {r.speaker && (
          <span className="speaker" title={r.speaker.id} data-testid="detail-speaker">
            {' · '}
            {t('memory.speaker', { who: `${r.speaker.name ?? r.speaker.id}${r.speaker.name ? ` (${r.speaker.id})` : ''}` })}
          </span>
        )}
      </div>

      <div className="detail-actions">
        <button className="btn small primary" disabled={busy || !r.enabled} onClick={() => void run(() => mm(inPlan ? 'plan.removeMemory' : 'plan.addMemory', { id }), inPlan ? t('library.removedFromPlan') : t('library.addedToPlan'))} data-testid="add-to-plan">
          <Icon name="layers" size={14} /> {inPlan ? t('library.removeFromPlan') : t('library.addToPlan')}
        </button>
        <button className="btn small" disabled={busy || !r.enabled} onClick={() => void run(() => mm('once.push', { memoryId: id }), t('library.queuedOnce'))}>
          {t('library.injectOnce')}
        </button>
        {r.source && (
          <button className="btn small" onClick={() => app.locate(r.source!.sessionId, r.source!.seqs)} data-testid="trace-source">
            <Icon name="locate" size={14} /> {t('library.trace')}
          </button>
        )}
        <button className="btn small" onClick={() => app.setGraphOpen(true, id)}>
          <Icon name="graph" size={14} /> {t('library.showInGraph')}
        </button>
      </div>

      <div className="card">
        <div className="setting-row">
          <span className="setting-label">{t('library.enabled')}</span>
          <Switch checked={r.enabled} onChange={(v) => void patchMeta({ enabled: v })} testId="memory-enabled" />
        </div>
        <div className="setting-row">
          <span className="setting-label">{t('library.convention')}</span>
          <Switch checked={isConvention} onChange={(v) => void patchMeta({ tags: v ? [...r.tags, 'convention'] : r.tags.filter((x) => x !== 'convention') })} />
        </div>
        {/* Both can be set; "enabled" wins (only enabled memories are injected): said where they disagree. */}
        {isConvention && !r.enabled && (
          <div className="muted small" data-testid="convention-off">
            {t('library.conventionOff')}
          </div>
        )}
      </div>

      <div className="card">
        <div className="card-head">
          <span>{t('memory.meta')}</span>
          <button
            className="link-btn"
            onClick={() => {
              // Opened on what the memory is now (its links by their titles, read since).
              if (!editMeta) setMeta(metaOf(r));
              setEditMeta(!editMeta);
            }}
            data-testid="edit-meta"
          >
            {editMeta ? t('common.cancel') : t('common.edit')}
          </button>
        </div>
        {editMeta ? (
          <div className="meta-form">
            {(['title', 'impressions', 'tags', 'links'] as const).map((k) => (
              <label className="field" key={k}>
                <span>{t(`memory.${k}`)}</span>
                <input className="input" value={meta[k]} placeholder={k === 'links' ? t('memory.linksPlaceholder') : undefined} onChange={(e) => setMeta({ ...meta, [k]: e.target.value })} data-testid={`meta-${k}`} />
              </label>
            ))}
            <button
              className="btn primary small"
              disabled={busy}
              onClick={() => void saveMeta()}
              data-testid="save-meta"
            >
              {t('common.save')}
            </button>
          </div>
        ) : (
          <dl className="meta">
            <dt>{t('memory.impressions')}</dt>
            <dd>{r.impressions.length ? r.impressions.map((x) => <span className="chip" key={x}>{x}</span>) : '—'}</dd>
            <dt>{t('memory.tags')}</dt>
            <dd>{r.tags.length ? r.tags.map((x) => <span className="tag" key={x} title={x}>{tagLabel(t, x)}</span>) : '—'}</dd>
            <dt>{t('memory.links')}</dt>
            <dd>{r.links.length ? r.links.map(idLink) : '—'}</dd>
            {r.composedOf.length > 0 && (
              <>
                <dt>{t('memory.composedOf')}</dt>
                <dd>{r.composedOf.map(idLink)}</dd>
              </>
            )}
          </dl>
        )}
      </div>

      <div className="card">
        <div className="card-head">
          <span>{t('memory.snapshot')}</span>
          <span className="badge">{t('memory.readOnly')}</span>
        </div>
        <div className="snapshot" data-testid="snapshot">
          <Markdown text={r.snapshot} />
        </div>
      </div>

      <div className="card">
        <div className="card-head">
          <span>{t('memory.notes')}</span>
        </div>
        <textarea className="input" rows={5} value={notes} placeholder={t('memory.notesPlaceholder')} onChange={(e) => setNotes(e.target.value)} data-testid="notes" />
        <div className="row end">
          <button className="btn small primary" disabled={busy || notes === r.notes} onClick={() => void run(() => mm('memory.updateNotes', { id, notes }), t('memory.notesSaved'))} data-testid="save-notes">
            {t('common.save')}
          </button>
        </div>
      </div>

      {(related.data?.length ?? 0) > 0 && (
        <div className="card">
          <div className="card-head">
            <span>{t('memory.related')}</span>
          </div>
          <div className="list">
            {related.data!.map((m) => (
              <button className="list-item link-row" key={m.id} onClick={() => app.openMemory(m.id)}>
                <span className="dot" style={{ background: tagColor(m.tags) }} />
                <span className="grow left">{m.title}</span>
                {m.distance !== undefined && <span className="muted small">{t('memory.hops', { n: m.distance })}</span>}
              </button>
            ))}
          </div>
        </div>
      )}

      {showHistory && (
        <div className="card">
          <div className="card-head">
            <span>{t('history.title')}</span>
          </div>
          <HistoryList target={id} />
        </div>
      )}
      {forgetting && <ForgetDialog request={{ memoryIds: [id] }} onClose={() => setForgetting(false)} onDone={() => { onBack(); app.refreshMm(); }} />}
      <div className="row end gap">
        <button className="btn small" onClick={() => setShowHistory(!showHistory)} data-testid="memory-history-toggle">
          {t('history.title')}
        </button>
        <button className="btn danger small" onClick={() => setForgetting(true)} data-testid="forget-memory-open">
          {t('forget.action')}
        </button>
        <button
          className="btn danger small"
          onClick={() => {
            if (window.confirm(t('memory.deleteConfirm', { title: r.title }))) void mm('memory.delete', { id }).then(() => { app.toast(t('memory.deleted'), 'ok'); onBack(); app.refreshMm(); }, (e: Error) => app.toast(e.message, 'error'));
          }}
        >
          <Icon name="trash" size={14} /> {t('common.delete')}
        </button>
      </div>
    </div>
  );
}
