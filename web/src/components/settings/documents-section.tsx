import { useEffect, useState } from 'react';
import { api } from '../../api/client';
import { useApp, useMemoryEpoch } from '../../app-context';
import { VIEW_KINDS } from '../../lib/view-kinds';
import { translate, useLang, useT } from '../../i18n';
import type { DictKey } from '../../i18n-dict';
import { useRequest } from '../../lib/use-request';
import { bytes, relTime } from '../../lib/format';
import { Icon } from '../icon';
import { ProgressCard } from '../progress-card';
import { ServiceError } from './knowledge-section';
import { ForgetDialog } from '../memory/forget-dialog';
import type { ForgetRequest } from '../../../../src/spec/index.js';

/** A listed document, or a search hit of the recall over every tier (with its provenance). */
interface Doc {
  id: string;
  text: string;
  createdAt: number;
  accessCount?: number;
  score?: number;
  tier?: 'context' | 'document' | 'archive' | 'graph';
  sessionId?: string;
  channel?: string;
  speaker?: { id: string; name?: string };
  turnId?: string;
}

/** What "Forget…" on a hit names: its turn, its fact, or the note itself. */
export function forgetRequestOfHit(d: Doc): ForgetRequest {
  if (d.tier === 'graph') return { relationIds: [Number(d.id.replace(/^relation:/, ''))] };
  if (d.turnId) return { turnIds: [d.turnId] };
  return { documents: [{ tier: d.tier ?? 'document', id: d.id }] };
}

const TIER_LABEL = {
  context: 'documents.tier.context',
  document: 'documents.tier.document',
  archive: 'documents.tier.archive',
  graph: 'documents.tier.graph',
} as const;

/** Stats with a label in words (others show their key). */
const STAT_LABELS = new Set(['context.events', 'documents.count', 'archive.count', 'archive.bytes', 'graph.entities', 'graph.relations', 'graph.persons', 'graph.avgConfidence', 'graph.unreviewed', 'knowledge.entries', 'embedder']);

/** Numbers and short strings of a stats object, one level of nesting flattened (`graph.entities`). */
export function flattenStats(stats: Record<string, unknown>): [string, string | number][] {
  const out: [string, string | number][] = [];
  for (const [k, v] of Object.entries(stats)) {
    if (k === 'embedderDownload') continue; // shown as a progress bar
    // The embedder is always said (in words, by statValue), however long its file's name.
    if (typeof v === 'number' || (typeof v === 'string' && (v.length < 40 || k === 'embedder'))) out.push([k, v]);
    else if (v && typeof v === 'object' && !Array.isArray(v))
      for (const [k2, v2] of Object.entries(v as Record<string, unknown>)) if (typeof v2 === 'number' || (typeof v2 === 'string' && v2.length < 40)) out.push([`${k}.${k2}`, v2]);
  }
  return out;
}

/**
 * What ranks recall, from the embedder's id (`lexical`, `static:<file>#<dims>`, `api:<model>#<dims>`)
 * in words: "未用（按字词匹配）", "词向量 cc.zh.300.vec（300 维）". An id of another form as it is.
 */
export function embedderInWords(id: string, lang: 'zh' | 'en'): string {
  if (id === 'lexical') return translate(lang, 'stats.embedder.lexical');
  const m = /^(static|api):(.+)#(\d+)$/.exec(id);
  if (!m) return id;
  return translate(lang, m[1] === 'static' ? 'stats.embedder.static' : 'stats.embedder.api', { name: m[2], dim: m[3] });
}

/**
 * A stat as people read it: sizes in KB/MB, other numbers in the page's locale with a sensible
 * precision (0.8000000000000002 → "0.8", 12345 → "12,345"), the embedder in words, other short
 * strings as they are.
 */
export function statValue(key: string, v: string | number, lang: 'zh' | 'en'): string {
  if (key === 'embedder' && typeof v === 'string') return embedderInWords(v, lang);
  if (typeof v !== 'number') return v;
  if (!Number.isFinite(v)) return String(v);
  if (key.endsWith('.bytes')) return bytes(v);
  const digits = Number.isInteger(v) ? 0 : Math.abs(v) < 10 ? 2 : 1;
  return new Intl.NumberFormat(lang === 'zh' ? 'zh-CN' : 'en-US', { maximumFractionDigits: digits }).format(v);
}

/** The label of a stat: the archive's size says when it is the empty store (no archived turn yet). */
export function statLabelKey(key: string, stats: Record<string, unknown>): string | undefined {
  if (key === 'archive.bytes' && (stats.archive as { count?: unknown } | undefined)?.count === 0) return 'stats.archive.bytesEmpty';
  return STAT_LABELS.has(key) ? `stats.${key}` : undefined;
}

/** A word-vector file being downloaded by the embedder (`core.memory.embedding_model_path`). */
interface EmbedderDownload {
  file: string;
  url: string;
  bytes: number;
  total?: number;
}

/** Documents (T-3) and memory stats: list, search, delete; a vector download's progress. */
export function DocumentsSection() {
  const app = useApp();
  const t = useT();
  const lang = useLang();
  const [q, setQ] = useState('');
  const [query, setQuery] = useState('');
  const [page, setPage] = useState(0);
  const [forget, setForget] = useState<ForgetRequest | undefined>();
  const statsChanged = useMemoryEpoch(VIEW_KINDS.stats);
  const docsChanged = useMemoryEpoch(VIEW_KINDS.documents);
  const stats = useRequest(() => api<{ stats: Record<string, unknown> }>('/api/v1/memory/stats').then((j) => j.stats), [app.epoch, statsChanged]);
  const download = stats.data?.embedderDownload as EmbedderDownload | undefined;
  // While a vector file downloads, follow it (long work shows progress).
  useEffect(() => {
    if (!download) return;
    const timer = setTimeout(stats.reload, 1500);
    return () => clearTimeout(timer);
  }, [download, stats.reload]);
  const docs = useRequest(() => api<{ documents: Doc[] }>(`/api/v1/memory/documents?limit=30&offset=${page * 30}${query ? `&q=${encodeURIComponent(query)}` : ''}`).then((j) => j.documents), [query, page, app.epoch, docsChanged]);
  if (docs.error) return <ServiceError error={docs.error} />;
  return (
    <div className="documents">
      {download && (
        <ProgressCard
          testId="embedder-download"
          style={{ marginTop: 0, marginBottom: 12 }}
          label={t('documents.downloading', { file: download.file })}
          figure={download.total ? `${Math.round((download.bytes / download.total) * 100)}% · ${bytes(download.bytes)} / ${bytes(download.total)}` : bytes(download.bytes)}
          fraction={download.total ? download.bytes / download.total : undefined}
        />
      )}
      {stats.data && (
        <div className="stats">
          {flattenStats(stats.data)
            .slice(0, 12)
            .map(([k, v]) => {
              const label = statLabelKey(k, stats.data!);
              return (
                <div className="stat" key={k} title={k} data-stat={k}>
                  <div className="stat-value">{statValue(k, v, lang)}</div>
                  <div className="stat-label">{label ? t(label as DictKey, typeof v === 'number' ? { n: v } : undefined) : k}</div>
                </div>
              );
            })}
        </div>
      )}
      <form className="search-box" onSubmit={(e) => { e.preventDefault(); setPage(0); setQuery(q.trim()); }}>
        <Icon name="search" size={16} />
        <input className="input bare" value={q} placeholder={t('documents.search')} onChange={(e) => setQ(e.target.value)} />
      </form>
      {forget && <ForgetDialog request={forget} onClose={() => setForget(undefined)} onDone={docs.reload} />}
      {query && (
        <div className="row end">
          <button className="btn small danger" onClick={() => setForget({ query })} data-testid="forget-query-open">
            {t('forget.everything', { q: query })}
          </button>
        </div>
      )}
      {docs.data?.length === 0 && <div className="empty-state small">{t('documents.empty')}</div>}
      {docs.data?.map((d) => (
        <div className="card doc" key={d.id}>
          <div className="card-head">
            {d.tier ? (
              <span className="muted small" data-testid="doc-provenance">
                <span className="chip">{t(TIER_LABEL[d.tier])}</span> {[d.sessionId, d.channel, d.speaker?.name ?? d.speaker?.id].filter(Boolean).join(' · ')}
              </span>
            ) : (
              <span className="muted small mono">{d.id}</span>
            )}
            <span className="muted small">
              {d.createdAt > 0 && relTime(d.createdAt, lang)}
              {d.score !== undefined && ` · ${d.score.toFixed(2)}`}
              {d.accessCount !== undefined && ` · ${t('documents.accessed', { n: d.accessCount })}`}
            </span>
            {d.tier && (
              <button className="btn tiny danger" onClick={() => setForget(forgetRequestOfHit(d))} data-testid="forget-hit-open">
                {t('forget.action')}
              </button>
            )}
            {(!d.tier || d.tier === 'document') && (
              <button className="icon-btn tiny" title={t('common.delete')} onClick={() => { if (window.confirm(t('documents.deleteConfirm'))) void api(`/api/v1/memory/documents/${encodeURIComponent(d.id)}`, { method: 'DELETE' }).then(docs.reload, (e: Error) => app.toast(e.message, 'error')); }}>
                <Icon name="trash" size={14} />
              </button>
            )}
          </div>
          <div className="clamp4 doc-text">{d.text}</div>
        </div>
      ))}
      {!query && (
        <div className="row gap end">
          <button className="btn small" disabled={page === 0} onClick={() => setPage(page - 1)}>←</button>
          <span className="muted small">{page + 1}</span>
          <button className="btn small" disabled={(docs.data?.length ?? 0) < 30} onClick={() => setPage(page + 1)}>→</button>
        </div>
      )}
    </div>
  );
}
