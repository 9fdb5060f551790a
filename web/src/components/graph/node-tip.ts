/**
 * What hovering a graph node says, in the page's language: what kind of node it is and what it
 * holds — a memory's kind, its first words, who said it, when it changed and whether it is off; an
 * entity's type and its facts as sentences ("你住在杭州", "Alice likes green tea"). The graph panel
 * builds it; the canvas only shows it. Pure, so it is tested without a canvas.
 */
import { translate, type Lang } from '../../i18n';
import type { DictKey } from '../../i18n-dict';
import { dict } from '../../i18n-dict';
import { factPhrase, phraseLine } from '../../lib/fact-phrase';
import { relTime } from '../../lib/format';

export interface NodeTip {
  title: string;
  /** What kind of node this is, and a short state ("规约 · 3 天前更新"). */
  kind: string;
  /** What it holds, one line each (a memory's first words; an entity's facts). */
  lines: string[];
  /** A line in a quieter voice: a memory turned off, facts not listed, what a click does. */
  notes: string[];
}

/** A memory node of the memory graph, as `memory.graph` gives it. */
export interface MemoryNodeInfo {
  title: string;
  tags: string[];
  enabled: boolean;
  updatedAt?: string;
  preview?: string;
  impressions?: string[];
  speaker?: { id: string; name?: string };
}

/** The tags the seed gives a meaning, first the one that decides the node's colour. */
const KIND_TAGS = ['convention', '会话总结', '复盘'] as const;
const KIND_KEY: Record<(typeof KIND_TAGS)[number], DictKey> = { convention: 'tag.convention', 会话总结: 'tag.会话总结', 复盘: 'tag.复盘' };

/** At most this many facts of an entity are said; the rest are counted. */
export const TIP_FACTS = 3;

export function memoryTip(lang: Lang, n: MemoryNodeInfo, now = Date.now()): NodeTip {
  const t = (k: DictKey, v?: Record<string, string | number>) => translate(lang, k, v);
  const kind = KIND_TAGS.find((k) => n.tags.includes(k));
  const when = relTime(n.updatedAt, lang, now);
  const lines: string[] = [];
  const text = n.preview?.trim() || n.impressions?.join(lang === 'zh' ? '、' : ', ') || '';
  if (text) lines.push(text);
  if (n.speaker) lines.push(t('knows.saidBy', { who: n.speaker.name ?? n.speaker.id }));
  const notes: string[] = [];
  if (!n.enabled) notes.push(t('graph.tip.off'));
  notes.push(t('graph.tip.openMemory'));
  return { title: n.title, kind: [kind ? t(KIND_KEY[kind]) : t('graph.tip.memory'), when && t('graph.tip.updated', { when })].filter(Boolean).join(' · '), lines, notes };
}

/** A fact of the knowledge graph between two entities (the graph's own predicate). */
export interface EntityEdge {
  from: string;
  to: string;
  label: string;
  /** The day a replaced fact ended (K-4 `validTo`); absent while it holds. */
  until?: string;
}

/** The graph's owner entity, shown as "you". */
const OWNER = 'user';

/** An entity of the knowledge graph: its type in words and up to {@link TIP_FACTS} of its facts as sentences. */
export function entityTip(lang: Lang, entity: { id: string; type: string }, edges: readonly EntityEdge[]): NodeTip {
  const t = (k: DictKey, v?: Record<string, string | number>) => translate(lang, k, v);
  const you = t('graph.you');
  const shown = (id: string) => (id === OWNER ? you : id);
  const typeKey = `graph.type.${entity.type}`;
  const type = entity.type ? (typeKey in dict.en ? t(typeKey as DictKey) : entity.type) : t('graph.tip.entity');
  const facts = edges.filter((e) => e.from === entity.id || e.to === entity.id);
  // What holds now first; a replaced fact is said with the day it ended, never as current.
  const ordered = [...facts.filter((e) => !e.until), ...facts.filter((e) => e.until)];
  const lines = ordered.slice(0, TIP_FACTS).map((e) => {
    const line = phraseLine(factPhrase(lang, shown(e.from), e.label, shown(e.to), e.from === OWNER));
    return e.until ? `${line}${lang === 'zh' ? '' : ' '}${t('graph.until', { date: e.until })}` : line;
  });
  const notes: string[] = [];
  if (facts.length > TIP_FACTS) notes.push(t('graph.tip.more', { n: facts.length - TIP_FACTS }));
  notes.push(t('graph.tip.openEntity'));
  return { title: shown(entity.id), kind: facts.length ? `${type} · ${t('graph.tip.facts', { n: facts.length })}` : type, lines, notes };
}
