import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ForgetDialog } from '../memory/forget-dialog';
import { HistoryList } from '../memory/history-list';
import { api, mm } from '../../api/client';
import { useApp, useMemoryEpoch } from '../../app-context';
import { VIEW_KINDS } from '../../lib/view-kinds';
import { useLang, useT } from '../../i18n';
import { dict, type DictKey } from '../../i18n-dict';
import { predicateLabel } from '../../lib/fact-phrase';
import { useRequest } from '../../lib/use-request';
import { localDay } from '../../lib/format';
import { useAgentTimeZone } from '../../lib/use-agent-time-zone';
import { radialLayout, tagColor, type Positions } from '../../lib/graph-layout';
import { layoutKeeping } from '../../lib/keep-layout';
import { Icon } from '../icon';
import { GraphCanvas, type CanvasEdge, type CanvasNode } from './graph-canvas';
import { entityTip, memoryTip, type MemoryNodeInfo } from './node-tip';

interface MemGraph {
  mode: 'overview' | 'focus';
  focus?: string;
  nodes: ({ id: string; depth?: number } & MemoryNodeInfo)[];
  edges: { from: string; to: string; kind: 'link' | 'composedOf' | 'backlink' }[];
}
/** The knowledge graph as the panel draws it: entities by name, facts as edges (`until`: the day an ended one ended). */
interface KData {
  nodes: { id: string; type: string }[];
  edges: { from: string; to: string; label: string; sentence: string | undefined; confidence: number | undefined; until: string | undefined }[];
}
interface KGraph {
  entities: { id: number; name: string; type: string }[];
  relations: { id?: number; subject?: string; object?: string; predicate: string; confidence?: number; sentence?: string; validTo?: number | null; subjectId?: number; objectId?: number; from?: number; to?: number; source?: string | number; target?: string | number }[];
}

/** The left overlay (W-3): the memory graph (overview / focus) and the knowledge graph. */
export function GraphPanel() {
  const app = useApp();
  const t = useT();
  const [tab, setTab] = useState<'memory' | 'knowledge'>('memory');
  return (
    <div className="graph-panel" data-testid="graph-panel">
      <div className="panel-head">
        <div className="tabs">
          <button className={tab === 'memory' ? 'active' : ''} onClick={() => setTab('memory')}>
            {t('graph.memory')}
          </button>
          <button className={tab === 'knowledge' ? 'active' : ''} onClick={() => setTab('knowledge')} data-testid="tab-knowledge">
            {t('graph.knowledge')}
          </button>
        </div>
        <button className="icon-btn" onClick={() => app.setGraphOpen(false)} aria-label={t('common.close')}>
          <Icon name="close" />
        </button>
      </div>
      {tab === 'memory' ? <MemoryGraph showKnowledge={() => setTab('knowledge')} /> : <KnowledgeGraph />}
    </div>
  );
}

/** `showKnowledge`: the empty graph points to the knowledge graph, where facts drawn from the chats are. */
function MemoryGraph({ showKnowledge }: { showKnowledge: () => void }) {
  const app = useApp();
  const t = useT();
  const lang = useLang();
  const [focus, setFocus] = useState<string | undefined>(app.graphFocus);
  const [hops, setHops] = useState<1 | 2>(2);
  const [limit, setLimit] = useState(200);
  /** The graph on screen: its data, where each node is, and `n`, bumped when the view is fitted again. */
  const [layout, setLayout] = useState<{ data: MemGraph; pos: Positions; n: number; view: string } | undefined>();
  /** A whole new layout is being computed (first opening, many new nodes): the page says so meanwhile. */
  const [laying, setLaying] = useState(false);
  const [progress, setProgress] = useState(0);
  /** The overview's last positions: a change of the library, or coming back from a focus, starts from them. */
  const overview = useRef<Positions | undefined>(undefined);
  useEffect(() => setFocus(app.graphFocus), [app.graphFocus]);
  const changed = useMemoryEpoch(VIEW_KINDS.library);
  const g = useRequest(() => mm<MemGraph>('memory.graph', focus ? { focus, hops } : { limit }), [focus, hops, limit, app.epoch, changed]);
  useEffect(() => {
    const d = g.data;
    if (!d) return;
    let live = true;
    const overviewShown = !(d.mode === 'focus' && d.focus);
    const view = overviewShown ? `overview:${limit}` : `focus:${d.focus}`;
    // The view is fitted again only when it shows something else (another focus, the overview, a
    // larger or smaller overview); the same view with changed data keeps the person's pan and zoom.
    const show = (pos: Positions) => {
      if (overviewShown) overview.current = pos;
      setLaying(false);
      setLayout((l) => ({ data: d, pos, view, n: l && l.view === view ? l.n : (l?.n ?? 0) + 1 }));
    };
    if (!overviewShown) show(radialLayout(d.nodes, d.edges, d.focus!));
    else {
      // A memory added, changed or gone: the nodes on screen stay where they are and only new ones
      // are placed (decision 0610); a whole layout ("computing layout…") only for a graph mostly new.
      void layoutKeeping(overview.current, d.nodes, d.edges, {
        whole: () => {
          setProgress(0);
          setLaying(true);
        },
        progress: (done) => live && setProgress(done),
      }).then((p) => live && show(p));
    }
    return () => {
      live = false;
    };
  }, [g.data]);
  // What is on screen until the new data is placed: the graph as it was (its data with its positions).
  const shown = layout && (layout.data === g.data || !laying) ? layout : undefined;
  const pos = shown?.pos;
  const { nodes, edges } = useMemo(() => {
    const d = shown?.data;
    if (!d || !pos) return { nodes: [] as CanvasNode[], edges: [] as CanvasEdge[] };
    const nodes: CanvasNode[] = d.nodes.map((n) => ({ id: n.id, label: n.title, color: tagColor(n.tags), x: pos[n.id]?.x ?? 0, y: pos[n.id]?.y ?? 0, r: n.id === d.focus ? 10 : 6, faded: !n.enabled }));
    const edges: CanvasEdge[] = d.edges.map((e) => ({ from: e.from, to: e.to, style: e.kind === 'composedOf' ? 'dashed' : e.kind === 'backlink' ? 'dotted' : 'solid' }));
    return { nodes, edges };
  }, [shown?.data, pos]);

  const byId = useMemo(() => new Map((shown?.data.nodes ?? []).map((n) => [n.id, n])), [shown?.data]);
  const describe = useCallback((id: string) => {
    const n = byId.get(id);
    return n && memoryTip(lang, n);
  }, [byId, lang]);
  const select = (id: string) => {
    setFocus(id);
    app.openMemory(id);
  };
  return (
    <div className="graph-body">
      <div className="graph-toolbar">
        {focus ? (
          <>
            <button className="btn small" onClick={() => setFocus(undefined)} data-testid="graph-overview">
              ← {t('graph.overview')}
            </button>
            <div className="segmented">
              {([1, 2] as const).map((h) => (
                <button key={h} className={hops === h ? 'active' : ''} onClick={() => setHops(h)}>
                  {t('graph.hops', { n: h })}
                </button>
              ))}
            </div>
          </>
        ) : (
          <>
            <span className="muted small">{t('graph.latest')}</span>
            <select className="input small" value={limit} onChange={(e) => setLimit(Number(e.target.value))}>
              {[50, 200, 500, 2000].map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          </>
        )}
        <span className="grow" />
        <span className="muted small">{t('graph.nodes', { n: g.data?.nodes.length ?? 0 })} · {t('graph.edges', { n: g.data?.edges.length ?? 0 })}</span>
      </div>
      <div className="legend">
        <span><i style={{ background: tagColor(['convention']) }} />{t('tag.convention')}</span>
        <span><i style={{ background: tagColor(['会话总结']) }} />{t('tag.会话总结')}</span>
        <span><i style={{ background: tagColor(['复盘']) }} />{t('tag.复盘')}</span>
        <span><i style={{ background: tagColor([]) }} />{t('graph.other')}</span>
        <span><b className="l solid" />{t('graph.edge.link')}</span>
        <span><b className="l dashed" />{t('graph.edge.composedOf')}</span>
        <span><b className="l dotted" />{t('graph.edge.backlink')}</span>
      </div>
      {g.error ? (
        <div className="error-card compact">{t('common.loadFailed', { error: g.error.message })}</div>
      ) : g.data && g.data.nodes.length === 0 ? (
        <div className="empty-state">
          <p>{t('graph.empty')}</p>
          <p className="muted small">{t('graph.emptyFacts')}</p>
          <button className="btn small" onClick={showKnowledge} data-testid="graph-empty-to-knowledge">
            {t('graph.openKnowledge')}
          </button>
        </div>
      ) : !pos ? (
        <div className="empty-state" data-testid="graph-layout-progress">
          <span className="spinner" /> {t('graph.layingOut')}
          {progress > 0 && ` ${Math.round(progress * 100)}%`}
        </div>
      ) : (
        <GraphCanvas nodes={nodes} edges={edges} selected={focus} onSelect={select} fitKey={`m${shown?.n ?? 0}`} describe={describe} />
      )}
    </div>
  );
}

const palette = ['#6d83f2', '#22a559', '#f08c2e', '#d9508a', '#14a3b8', '#8a94a6'];

/** An entity type as the page names it (the distiller's types; any other as stored). */
function typeLabel(t: ReturnType<typeof useT>, type: string): string {
  const key = `graph.type.${type}`;
  return key in dict.en ? t(key as DictKey) : type;
}

function KnowledgeGraph() {
  const t = useT();
  const lang = useLang();
  const app = useApp();
  const [q, setQ] = useState('');
  const [query, setQuery] = useState('');
  const [entity, setEntity] = useState<string | undefined>();
  const [depth, setDepth] = useState(1);
  const [history, setHistory] = useState(false);
  const [forget, setForget] = useState(false);
  /** The graph on screen: its data, where each node is, and `n`, bumped when the view is fitted again. */
  const [kl, setKl] = useState<{ data: KData; pos: Positions; n: number; view: string } | undefined>();
  const changed = useMemoryEpoch(VIEW_KINDS.graph);
  const zone = useAgentTimeZone();
  const day = useCallback((ms: number) => localDay(ms, zone), [zone]);
  const g = useRequest(() => {
    const p = new URLSearchParams({ limit: '400' });
    if (entity) {
      p.set('entity', entity);
      p.set('depth', String(depth));
    } else if (query) p.set('q', query);
    return api<KGraph & { ok: boolean }>(`/api/v1/memory/graph?${p}`);
  }, [query, entity, depth, app.epoch, changed]);
  const data = useMemo((): KData | undefined => {
    const d = g.data;
    if (!d) return undefined;
    const byId = new Map(d.entities.map((e) => [e.id, e.name]));
    const name = (v: unknown) => (typeof v === 'number' ? byId.get(v) : typeof v === 'string' ? v : undefined);
    const edges = d.relations
      // An ended fact (a later value replaced it, K-4) carries the day it ended: drawn dashed, said with "until".
      .map((r) => ({ from: name(r.subject ?? r.subjectId ?? r.from ?? r.source), to: name(r.object ?? r.objectId ?? r.to ?? r.target), label: r.predicate, sentence: r.sentence, confidence: r.confidence, until: typeof r.validTo === 'number' ? day(r.validTo) : undefined }))
      .filter((e): e is { from: string; to: string; label: string; sentence: string | undefined; confidence: number | undefined; until: string | undefined } => !!e.from && !!e.to)
      // Current facts first: the tip and the list say what holds now before what used to.
      .sort((a, b) => Number(!!a.until) - Number(!!b.until));
    return { nodes: d.entities.map((e) => ({ id: e.name, type: e.type })), edges };
  }, [g.data, day]);
  useEffect(() => {
    if (!data) return;
    let live = true;
    const focused = !!entity && data.nodes.some((n) => n.id === entity);
    const view = focused ? `entity:${entity}:${depth}` : `all:${query}`;
    // The view is fitted again only when it shows something else (another entity, another search);
    // the same view with new data keeps the person's pan and zoom — and, for the whole graph, every
    // node where it stands, only new ones placed (decision 0690, the memory graph's 0610).
    const show = (pos: Positions) => live && setKl((l) => ({ data, pos, view, n: l && l.view === view ? l.n : (l?.n ?? 0) + 1 }));
    if (focused) show(radialLayout(data.nodes, data.edges, entity!));
    else void layoutKeeping(kl?.view === view ? kl.pos : undefined, data.nodes, data.edges).then(show);
    return () => {
      live = false;
    };
    // `kl` is read as it is when the data comes: the positions the new data starts from.
  }, [data, entity]);
  // What is on screen until the new data is placed: the graph as it was (its data with its positions).
  const shown = kl;
  const pos = shown?.pos;
  const types = useMemo(() => [...new Set(shown?.data.nodes.map((n) => n.type) ?? [])], [shown?.data]);
  // Memoized: a new array would make the canvas render the whole graph again.
  const nodes = useMemo<CanvasNode[]>(
    () => (shown && pos ? shown.data.nodes.map((n) => ({ id: n.id, label: n.id === 'user' ? t('graph.you') : n.id, color: palette[types.indexOf(n.type) % palette.length], x: pos[n.id]?.x ?? 0, y: pos[n.id]?.y ?? 0, r: n.id === entity ? 10 : 6 })) : []),
    [shown, pos, types, entity, t],
  );
  const edges = useMemo<CanvasEdge[]>(() => shown?.data.edges.map((e) => ({ from: e.from, to: e.to, style: e.until ? ('dashed' as const) : ('solid' as const), label: predicateLabel(lang, e.label) })) ?? [], [shown, lang]);
  const describe = useCallback((id: string) => {
    const n = shown?.data.nodes.find((x) => x.id === id);
    return n && entityTip(lang, n, shown?.data.edges ?? []);
  }, [shown, lang]);
  const selectedRelations = entity ? data?.edges.filter((e) => e.from === entity || e.to === entity) ?? [] : [];
  const unavailable = g.error && /503|not available|not running/i.test(`${(g.error as { status?: number }).status} ${g.error.message}`);
  return (
    <div className="graph-body">
      <div className="graph-toolbar">
        <form
          className="search-box grow"
          onSubmit={(e) => {
            e.preventDefault();
            setEntity(undefined);
            setQuery(q.trim());
          }}
        >
          <Icon name="search" size={16} />
          <input className="input bare" value={q} placeholder={t('graph.searchEntities')} onChange={(e) => setQ(e.target.value)} />
        </form>
        {entity && (
          <>
            <button className="btn small" onClick={() => setEntity(undefined)}>
              ← {t('graph.overview')}
            </button>
            <div className="segmented">
              {[1, 2].map((h) => (
                <button key={h} className={depth === h ? 'active' : ''} onClick={() => setDepth(h)}>
                  {t('graph.hops', { n: h })}
                </button>
              ))}
            </div>
            <button className={`btn small${history ? ' active' : ''}`} onClick={() => setHistory(!history)} data-testid="entity-history-toggle">
              {t('history.title')}
            </button>
            <button className="btn small danger" onClick={() => setForget(true)} data-testid="entity-forget-open">
              {t('forget.action')}
            </button>
          </>
        )}
      </div>
      {types.length > 0 && (
        <div className="legend">
          {types.slice(0, 6).map((ty, i) => (
            <span key={ty}>
              <i style={{ background: palette[i % palette.length] }} />
              {ty ? typeLabel(t, ty) : '—'}
            </span>
          ))}
        </div>
      )}
      {unavailable ? (
        <div className="empty-state">{t('graph.kgUnavailable')}</div>
      ) : g.error ? (
        <div className="error-card compact">{t('common.loadFailed', { error: g.error.message })}</div>
      ) : data && data.nodes.length === 0 ? (
        <div className="empty-state">{t('graph.kgEmpty')}</div>
      ) : (
        <GraphCanvas nodes={nodes} edges={edges} selected={entity} onSelect={setEntity} fitKey={`k${kl?.n ?? 0}`} describe={describe} />
      )}
      {entity && history && (
        <div className="relations" data-testid="entity-history">
          <HistoryList subject={entity} limit={50} />
        </div>
      )}
      {entity && forget && <ForgetDialog request={{ query: entity }} onClose={() => setForget(false)} onDone={() => setEntity(undefined)} />}
      {selectedRelations.length > 0 && (
        <div className="relations">
          {selectedRelations.slice(0, 30).map((r, i) => (
            <div className={`relation${r.until ? ' ended' : ''}`} key={i} title={r.sentence} data-testid="kg-relation">
              <strong>{r.from === 'user' ? t('graph.you') : r.from}</strong> <span className="pred">{predicateLabel(lang, r.label)}</span> <strong>{r.to === 'user' ? t('graph.you') : r.to}</strong>
              {r.until && <span className="muted small" data-testid="kg-relation-until"> {t('graph.until', { date: r.until })}</span>}
              {r.confidence !== undefined && <span className="muted small"> · {Math.round(r.confidence * 100)}%</span>}
              {r.sentence && <div className="muted small clamp2">“{r.sentence}”</div>}
            </div>
          ))}
        </div>
      )}
    </div>
  );
}
