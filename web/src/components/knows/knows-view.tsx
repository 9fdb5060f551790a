import { useState } from 'react';
import { api } from '../../api/client';
import { useApp, useMemoryEpoch } from '../../app-context';
import { VIEW_KINDS } from '../../lib/view-kinds';
import { useLang, useT } from '../../i18n';
import { durationWords, localDay, plainPreview, relTime } from '../../lib/format';
import { useAgentTimeZone } from '../../lib/use-agent-time-zone';
import { forgetItem, type ForgetTarget } from '../../lib/forget-item';
import { useRequest } from '../../lib/use-request';
import { factPhrase, type FactPhrase } from '../../lib/fact-phrase';
import { sourcePlace, type SourceConversation } from '../../lib/source-place';
import { tierLabel } from '../../lib/vocab';
import { ForgetDialog } from '../memory/forget-dialog';
import { ServiceError } from '../settings/knowledge-section';
import type { PersonView } from '../settings/people-section';
import type { ForgetRequest } from '../../../../src/spec/index.js';

interface Source {
  tier: string;
  id: string;
  text: string;
  sessionId: string;
  turnId?: string;
  createdAt: number;
  speaker?: { id: string; name?: string };
}

/** GET /api/v1/memory/about (src/builtins/shared/about-person.ts). */
interface About {
  person: { id?: string; name: string; owner: boolean; ids: string[]; known: boolean };
  facts: { id: number; subject: string; predicate: string; object: string; validFrom?: number; validTo?: number; sources: Source[]; kept?: number }[];
  memories: { id: string; title: string; preview: string; speaker?: { id: string; name?: string }; updatedAt: string; why: 'said' | 'mentions' }[];
  documents: Source[];
  /** The conversations of the sources, by session id; one missing is no longer in the chat. */
  conversations?: Record<string, SourceConversation>;
  library: boolean;
  capabilities: { forget: boolean };
}

/**
 * "What it knows about me" (issue 12 part 7): the facts, library memories and turns HomeAgent holds
 * about the owner or a person, each with its source (jump to the turn in the chat) and a way to
 * correct it (edit a memory in the library) or forget it ({@link forgetItem}).
 */
export function KnowsView({ person }: { person?: string }) {
  const app = useApp();
  const t = useT();
  const lang = useLang();
  // Days on the person's calendar, in the agent's zone (decision 0270), not UTC days.
  const zone = useAgentTimeZone();
  const day = (ms: number) => localDay(ms, zone);
  const [other, setOther] = useState('');
  const peopleChanged = useMemoryEpoch(VIEW_KINDS.people);
  const aboutChanged = useMemoryEpoch(VIEW_KINDS.about);
  const people = useRequest(() => api<{ people: PersonView[] }>('/api/v1/people').then((j) => j.people).catch(() => [] as PersonView[]), [app.epoch, peopleChanged]);
  // Facts are drawn from what is said by the rule distiller on its heartbeat, not at once: the page says when.
  const every = useRequest(() => api<{ value: { value: unknown } }>(`/api/v1/settings/${encodeURIComponent('core.memory.rule_distill_interval')}`).then((j) => (typeof j.value.value === 'string' ? j.value.value : undefined)).catch(() => undefined), [app.epoch]);
  const about = useRequest(() => api<{ about: About }>(`/api/v1/memory/about${person && person !== 'me' ? `?person=${encodeURIComponent(person)}` : ''}`).then((j) => j.about), [person, app.epoch, aboutChanged]);
  const a = about.data;
  const [forgetting, setForgetting] = useState<ForgetRequest | undefined>();
  // The fact being corrected and the value typed so far.
  const [correcting, setCorrecting] = useState<{ id: number; value: string } | undefined>();
  const correct = async () => {
    if (!correcting) return;
    try {
      await api(`/api/v1/memory/graph/relations/${correcting.id}`, { method: 'PATCH', json: { object: correcting.value } });
      app.toast(t('knows.corrected'), 'ok');
      setCorrecting(undefined);
      about.reload();
    } catch (e) {
      app.toast((e as Error).message, 'error');
    }
  };
  const forget = async (target: ForgetTarget) => {
    if (!a) return;
    // With the memory-control service the item's every trace is shown first and goes only on
    // "Forget" (the dialog); without it each tier's own delete, after a plain confirm.
    if (a.capabilities.forget) {
      setForgetting(target.kind === 'fact' ? { relationIds: [target.id] } : target.kind === 'memory' ? { memoryIds: [target.id] } : { turnIds: [target.turnId] });
      return;
    }
    if (!window.confirm(t('knows.forgetConfirm'))) return;
    try {
      const how = await forgetItem(target, a.capabilities);
      app.toast(t(how === 'forgotten' ? 'knows.forgotten' : 'knows.deleted'), 'ok');
      about.reload();
    } catch (e) {
      app.toast((e as Error).message, 'error');
    }
  };
  // The owner as the page names them: by the name they gave themselves (Settings → People,
  // `waiter people rename me …`), "(you)" after it; "Me (owner)" while they have none.
  const named = a?.person.owner && a.person.name && !/^(owner|me)$/i.test(a.person.name) ? a.person.name : undefined;
  const ownerName = named ? t('knows.meNamed', { name: named }) : t('knows.me');
  // The graph calls the owner `user` (the distiller's subject for "I …"): on this page, their name.
  const who = (x: string) => (a?.person.owner && x === 'user' ? (named ?? t('knows.you')) : x);
  // A source as a person reads it: "from message 3 of “Trip to Lisbon”, 2026-12-02", the place a
  // link that opens the chat at that message — not `webui:abc#3` (lib/source-place.ts).
  const sourceLine = (s: Source | undefined) => {
    if (!s) return <span className="muted small">{t('knows.noSource')}</span>;
    const place = sourcePlace(t, s, a?.conversations?.[s.sessionId], day);
    const mark = '\u0001';
    const [before, after = ''] = t('knows.source', { where: mark, date: day(s.createdAt) }).split(mark);
    return (
      <span className="muted small" data-testid="knows-source">
        {before}
        {place.open ? (
          <button type="button" className="link-btn knows-place" onClick={() => app.locate(s.sessionId, [], s.turnId)} title={t('knows.openAt')} data-testid="knows-open">
            {place.text}
          </button>
        ) : (
          <span data-testid="knows-place-gone">{place.text}</span>
        )}
        {after}
        {s.speaker && ` · ${t('knows.saidBy', { who: s.speaker.name ?? s.speaker.id })}`}
      </span>
    );
  };
  return (
    <div className="knows settings-body" data-testid="knows">
      <h2>{a?.person.owner && !named ? t('knows.titleYou') : t('knows.title', { name: a ? (a.person.owner ? ownerName : a.person.name) : '…' })}</h2>
      <p className="muted">{t('knows.hint')}</p>
      <div className="row gap wrap">
        <label className="row gap">
          <span className="muted small">{t('knows.person')}</span>
          <select className="input" value={person ?? 'me'} onChange={(e) => app.navigate({ view: 'knows', person: e.target.value === 'me' ? undefined : e.target.value })} data-testid="knows-person">
            <option value="me">{t('knows.me')}</option>
            {people.data?.filter((p) => !p.owner).map((p) => <option key={p.id} value={p.id}>{p.name}</option>)}
            {person && person !== 'me' && !people.data?.some((p) => p.id === person) && <option value={person}>{person}</option>}
          </select>
        </label>
        <form className="row gap" onSubmit={(e) => { e.preventDefault(); if (other.trim()) app.navigate({ view: 'knows', person: other.trim() }); }}>
          <input className="input" placeholder={t('knows.other')} value={other} onChange={(e) => setOther(e.target.value)} data-testid="knows-other" />
          <button className="btn small" type="submit">{t('knows.show')}</button>
        </form>
      </div>
      {about.error && <ServiceError error={about.error} />}
      {a && !a.person.known && !a.person.owner && <p className="muted small">{t('knows.unknown', { name: a.person.name })}</p>}
      {a && a.person.ids.length > 0 && <p className="muted small">{a.person.ids.join(' · ')}</p>}
      {a && (
        <>
          <h3>{t('knows.facts', { n: a.facts.length })}</h3>
          {every.data && <p className="muted small" data-testid="knows-facts-when">{t('knows.factsWhen', { every: durationWords(every.data, lang) })}</p>}
          {a.facts.length === 0 && <div className="empty-state small">{t('knows.noFacts')}</div>}
          {a.facts.map((f) => (
            <div key={f.id} className={`card knows-item${f.validTo ? ' superseded' : ''}`} data-testid="knows-fact">
              <div className="card-head">
                <strong>
                  <FactLine phrase={factPhrase(lang === 'zh' ? 'zh' : 'en', who(f.subject), f.predicate, who(f.object), !!a.person.owner && f.subject === 'user' && !named)} />
                </strong>
                <span className="row-actions">
                  <button className="btn small" onClick={() => setCorrecting({ id: f.id, value: f.object })} data-testid="knows-correct-fact">
                    {t('knows.correct')}
                  </button>
                  <button className="btn small danger" onClick={() => void forget({ kind: 'fact', id: f.id })} data-testid="knows-forget-fact">{t('knows.forget')}</button>
                </span>
              </div>
              {correcting?.id === f.id && (
                <form
                  className="row knows-correct"
                  data-testid="knows-correct-form"
                  onSubmit={(e) => {
                    e.preventDefault();
                    void correct();
                  }}
                >
                  <label className="grow">
                    <span className="small muted">{t('knows.correctLabel')}</span>
                    <input className="input" autoFocus maxLength={200} value={correcting.value} onChange={(e) => setCorrecting({ id: f.id, value: e.target.value })} data-testid="knows-correct-input" />
                  </label>
                  <button type="button" className="btn small" onClick={() => setCorrecting(undefined)}>
                    {t('common.cancel')}
                  </button>
                  <button type="submit" className="btn small primary" disabled={!correcting.value.trim() || correcting.value.trim() === f.object} data-testid="knows-correct-save">
                    {t('common.save')}
                  </button>
                </form>
              )}
              <div>
                {(f.validFrom || f.validTo) && (
                  <span className="muted small" data-testid="knows-validity">
                    {[f.validFrom ? t('knows.since', { date: day(f.validFrom) }) : '', f.validTo ? t('knows.until', { date: day(f.validTo) }) : ''].filter(Boolean).join(' ')}
                    {' · '}
                  </span>
                )}
                {/* Kept while its turn was forgotten (decision 0520): no turn to jump to, and it says so. */}
                {!f.sources[0] && f.kept !== undefined ? (
                  <span className="muted small" data-testid="knows-kept">
                    {t('knows.kept', { date: day(f.kept) })}
                  </span>
                ) : (
                  sourceLine(f.sources[0])
                )}
              </div>
            </div>
          ))}
          <h3>{t('knows.memories', { n: a.memories.length })}</h3>
          {a.memories.length === 0 && <div className="empty-state small">{t('knows.noMemories')}</div>}
          {a.memories.map((m) => (
            <div key={m.id} className="card knows-item" data-testid="knows-memory">
              <div className="card-head">
                <strong>{m.title}</strong>
                <span className="row gap">
                  <button className="btn small" onClick={() => app.openMemory(m.id)} data-testid="knows-edit-memory">{t('knows.editMemory')}</button>
                  <button className="btn small danger" onClick={() => void forget({ kind: 'memory', id: m.id })} data-testid="knows-forget-memory">{t('knows.forget')}</button>
                </span>
              </div>
              <span className="muted small clamp2">{plainPreview(m.preview)}</span>
              <span className="muted small">
                {m.speaker ? t('knows.saidBy', { who: m.speaker.name ?? m.speaker.id }) : t(a.person.owner ? (m.why === 'said' ? 'knows.saidMe' : 'knows.mentionsMe') : m.why === 'said' ? 'knows.said' : 'knows.mentions')} · {relTime(m.updatedAt, lang)}
              </span>
            </div>
          ))}
          <h3>{t('knows.turns', { n: a.documents.length })}</h3>
          {a.documents.length === 0 && <div className="empty-state small">{t('knows.noTurns')}</div>}
          {a.documents.map((d) => (
            <div key={`${d.tier}:${d.id}`} className="card knows-item" data-testid="knows-turn">
              <div className="card-head">
                <span className="clamp2 grow">{d.text}</span>
                {d.turnId && <button className="btn small danger" onClick={() => void forget({ kind: 'turn', sessionId: d.sessionId, turnId: d.turnId! })} data-testid="knows-forget-turn">{t('knows.forget')}</button>}
              </div>
              <span className="muted small">
                {tierLabel(t, d.tier)} · {sourceLine(d)}
              </span>
            </div>
          ))}
        </>
      )}
      {forgetting && (
        <ForgetDialog
          request={forgetting}
          onClose={() => setForgetting(undefined)}
          onDone={() => {
            about.reload();
            app.refreshMm();
          }}
        />
      )}
    </div>
  );
}

/** A fact as a sentence: "you live in Berlin", "your name is Alice", "你住在杭州" (lib/fact-phrase.ts). */
function FactLine({ phrase }: { phrase: FactPhrase }) {
  return (
    <>
      {phrase.subject} <span className="muted">{phrase.verb}</span> {phrase.object}
      {phrase.after && <span className="muted"> {phrase.after}</span>}
    </>
  );
}
