import { useEffect, useState } from 'react';
import { api } from '../../api/client';
import { useApp } from '../../app-context';
import { useLang, useT } from '../../i18n';
import { factPhrase, phraseLine } from '../../lib/fact-phrase';
import { Dialog } from '../dialog';
import { tierLabel } from '../../lib/vocab';
import type { ForgetPlan, ForgetRequest, ForgetResult } from '../../../../src/spec/index.js';

/** `set` with `id` ticked or not (a new set: state is not changed in place). */
function withTick<T>(set: ReadonlySet<T>, id: T, on: boolean): Set<T> {
  const next = new Set(set);
  if (on) next.add(id);
  else next.delete(id);
  return next;
}

/**
 * "Forget…" (K-2): asks the daemon what would go — turns with where they live, facts, notes, and the
 * library memories that mention it (kept unless ticked; the ones it was opened for come ticked, under
 * their own heading; those made from the turns — a summary of them — come ticked, decision 0430;
 * other turns that quote what was said come ticked too, decision 0450; facts come ticked, and an
 * unticked one stays — one made from the turns, without them, decision 0520) —
 * shows it, and on "Forget" removes exactly
 * what was shown. Nothing goes before the person presses the button.
 */
export function ForgetDialog({ request, onClose, onDone }: { request: ForgetRequest; onClose: () => void; onDone?: () => void }) {
  const app = useApp();
  const t = useT();
  const lang = useLang();
  /** A fact as a sentence of the page's language (the owner is "you"), else its line. */
  const factLine = (f: ForgetPlan['facts'][number]): string => {
    if (!f.fact) return f.text;
    const you = (x: string) => (x === 'user' ? t('graph.you') : x);
    const p = factPhrase(lang === 'zh' ? 'zh' : 'en', you(f.fact.subject), f.fact.predicate, you(f.fact.object), f.fact.subject === 'user');
    return phraseLine(p);
  };
  const [plan, setPlan] = useState<ForgetPlan | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [memories, setMemories] = useState<Set<string>>(new Set(request.memoryIds ?? []));
  const [busy, setBusy] = useState(false);
  // Other turns that quote what was said (decision 0450): ticked, listed under their own heading.
  const [quoting, setQuoting] = useState<Set<string>>(new Set());
  // The facts that go: all ticked; an unticked one stays — one made from the turns without them
  // (decision 0520).
  const [facts, setFacts] = useState<Set<number>>(new Set());
  const key = JSON.stringify(request);
  useEffect(() => {
    let live = true;
    api<{ plan: ForgetPlan }>('/api/v1/memory/forget/preview', { method: 'POST', json: request }).then(
      (j) => {
        if (!live) return;
        setPlan(j.plan);
        // Made from the turns (a summary of them): ticked, they go with them (decision 0430).
        const made = j.plan.memories.filter((m) => m.madeFrom).map((m) => m.id);
        if (made.length) setMemories((cur) => new Set([...cur, ...made]));
        setQuoting(new Set((j.plan.quoting ?? []).map((x) => x.turnId)));
        setFacts(new Set(j.plan.facts.map((f) => f.id)));
      },
      (e: Error) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
    // The request is compared by value (`key`): a new object with the same content asks nothing again.
  }, [key]);
  const empty = plan && !plan.turns.length && !plan.facts.some((f) => facts.has(f.id)) && !plan.documents.length && !memories.size;
  // Unticked facts made from the turns: kept without them (the others are simply not named).
  const keptFacts = plan?.facts.filter((f) => !facts.has(f.id) && f.withTurns).map((f) => f.id) ?? [];
  const forget = async () => {
    if (!plan) return;
    setBusy(true);
    try {
      const body: Omit<ForgetRequest, 'query'> = {
        turnIds: [...plan.turns.map((x) => x.turnId), ...(plan.quoting ?? []).filter((x) => quoting.has(x.turnId)).map((x) => x.turnId)],
        relationIds: plan.facts.filter((f) => facts.has(f.id)).map((f) => f.id),
        ...(keptFacts.length ? { keepRelationIds: keptFacts } : {}),
        documents: plan.documents.map((d) => ({ tier: d.tier as 'document' | 'archive' | 'context', id: d.id })),
        ...(memories.size ? { memoryIds: [...memories] } : {}),
        // Quoting turns the person unticked: kept whole, their log events too (decision 0450).
        ...((plan.quoting ?? []).some((x) => !quoting.has(x.turnId)) ? { keepTurnIds: (plan.quoting ?? []).filter((x) => !quoting.has(x.turnId)).map((x) => x.turnId) } : {}),
      };
      const j = await api<{ result: ForgetResult }>('/api/v1/memory/forget', { method: 'POST', json: body });
      const done = t('forget.done', { turns: t('forget.nTurns', { n: j.result.turns }), facts: t('forget.nFacts', { n: j.result.relations }), memories: t('forget.nMemories', { n: j.result.memories }) });
      app.toast(j.result.keptFacts ? `${done}${t('forget.doneKept', { facts: t('forget.nFacts', { n: j.result.keptFacts }) })}` : done, 'ok');
      // What could not be done is said, not hidden behind "forgotten" (decision 0400).
      if (j.result.unfinished?.length) app.toast(t('forget.unfinished', { parts: j.result.unfinished.map((u) => `${u.part}: ${u.message}`).join('; ') }), 'error');
      onDone?.();
      onClose();
    } catch (e) {
      app.toast((e as Error).message, 'error');
      setBusy(false);
    }
  };
  // The memories the dialog was opened for (forget on one memory) are not "memories that mention
  // it": they get their own heading; the ones a query found keep the "tick to remove" one.
  const askedIds = new Set(request.memoryIds ?? []);
  const asked = plan?.memories.filter((m) => askedIds.has(m.id) && !m.madeFrom) ?? [];
  const mentioning = plan?.memories.filter((m) => !askedIds.has(m.id) && !m.madeFrom) ?? [];
  // Made from the turns (a summary of them): ticked, under their own heading (decision 0430).
  const madeFrom = plan?.memories.filter((m) => m.madeFrom) ?? [];
  const memoryRow = (m: ForgetPlan['memories'][number]) => (
    <label className="list-item" key={m.id}>
      <input
        type="checkbox"
        checked={memories.has(m.id)}
        data-testid="forget-memory"
        onChange={(e) => setMemories(withTick(memories, m.id, e.target.checked))}
      />
      <span className="grow clamp1">
        <b>{m.title}</b> {m.preview}
      </span>
    </label>
  );
  return (
    <Dialog title={request.query ? t('forget.titleQuery', { q: request.query }) : t('forget.title')} onClose={onClose} testId="forget-dialog" wide>
      {error && <div className="error-text">{error}</div>}
      {!plan && !error && <div className="muted">{t('forget.loading')}</div>}
      {plan && (
        <div className="forget-plan">
          {/* The session log is said only when turns go: a fact alone leaves the conversation as it is. */}
          <p className="muted small" data-testid="forget-hint">{t(plan.turns.length ? 'forget.hint' : 'forget.hintNoTurns')}</p>
          {plan.turns.length > 0 && (
            <section>
              <h4>{t('forget.turns', { n: plan.turns.length })}</h4>
              {plan.turns.map((x) => (
                <div className="list-item" key={x.turnId} data-testid="forget-turn">
                  <span className="mono small">{x.turnId}</span>
                  <span className="grow clamp1" title={x.text}>{x.text}</span>
                  <span className="muted small" data-testid="forget-places">{placesText(t, x.places)}</span>
                </div>
              ))}
              {plan.files ? (
                <p className="muted small" data-testid="forget-files">
                  {t('forget.files', { n: plan.files })}
                </p>
              ) : null}
            </section>
          )}
          {plan.quoting && plan.quoting.length > 0 && (
            <section data-testid="forget-quoting-turns">
              <h4>{t('forget.quoting', { n: plan.quoting.length })}</h4>
              {plan.quoting.map((x) => (
                <label className="list-item" key={x.turnId} data-testid="forget-quoting">
                  <input
                    type="checkbox"
                    checked={quoting.has(x.turnId)}
                    onChange={(e) => setQuoting(withTick(quoting, x.turnId, e.target.checked))}
                  />
                  <span className="mono small">{x.turnId}</span>
                  <span className="grow clamp1" title={x.text}>{x.text}</span>
                  <span className="muted small">{placesText(t, x.places)}</span>
                </label>
              ))}
            </section>
          )}
          {plan.facts.length > 0 && (
            <section>
              <h4>{t('forget.facts', { n: plan.facts.length })}</h4>
              <p className="muted small">{t('forget.factsHint')}</p>
              {plan.facts.map((f) => (
                <label className="list-item" key={f.id} data-testid="forget-fact">
                  <input
                    type="checkbox"
                    checked={facts.has(f.id)}
                    data-testid="forget-fact-tick"
                    onChange={(e) => setFacts(withTick(facts, f.id, e.target.checked))}
                  />
                  <span className="grow">{factLine(f)}</span>
                  {/* Unticked, it stays: one made from the turns without them (decision 0520). Ticked, why it goes: a fact the person did not name is explained (its only source goes, or it says the words). */}
                  {!facts.has(f.id) ? (
                    <span className="muted small" data-testid="forget-fact-kept">{t(f.withTurns ? 'forget.factKeptWithout' : 'forget.factKept')}</span>
                  ) : (
                    f.reason !== 'asked' && <span className="muted small" data-testid="forget-fact-reason">{t(f.reason === 'only-source' ? 'forget.factOnlySource' : 'forget.factMatches')}</span>
                  )}
                </label>
              ))}
            </section>
          )}
          {plan.documents.length > 0 && (
            <section>
              <h4>{t('forget.notes', { n: plan.documents.length })}</h4>
              {plan.documents.map((d) => (
                <div className="list-item" key={`${d.tier}:${d.id}`}>
                  <span className="grow clamp1">{d.text}</span>
                </div>
              ))}
            </section>
          )}
          {madeFrom.length > 0 && (
            <section data-testid="forget-made-from-memories">
              <h4>{t('forget.madeFrom', { n: madeFrom.length })}</h4>
              {madeFrom.map((m) => (
                <div key={m.id} data-testid="forget-made-from">
                  {memoryRow(m)}
                </div>
              ))}
            </section>
          )}
          {asked.length > 0 && (
            <section data-testid="forget-asked-memories">
              <h4>{asked.length === 1 ? t('forget.thisMemory') : t('forget.theseMemories', { n: asked.length })}</h4>
              {asked.map(memoryRow)}
            </section>
          )}
          {mentioning.length > 0 && (
            <section data-testid="forget-mentioning-memories">
              <h4>{t('forget.memories', { n: mentioning.length })}</h4>
              {mentioning.map(memoryRow)}
            </section>
          )}
          {empty && <div className="empty-state small">{t('forget.nothing')}</div>}
          <div className="row gap end">
            <button className="btn" onClick={onClose}>
              {t('common.cancel')}
            </button>
            <button className="btn danger" disabled={busy || !!empty} onClick={() => void forget()} data-testid="forget-confirm">
              {t('forget.confirm')}
            </button>
          </div>
        </div>
      )}
    </Dialog>
  );
}

/** Where a turn lives, always in the same order (the window first, the log last). */
const PLACE_ORDER = ['context', 'document', 'archive', 'held', 'session-log', 'nowhere'];
function placesText(t: ReturnType<typeof useT>, places: readonly string[]): string {
  const rank = (p: string) => (PLACE_ORDER.includes(p) ? PLACE_ORDER.indexOf(p) : PLACE_ORDER.length);
  return [...places].sort((a, b) => rank(a) - rank(b)).map((p) => tierLabel(t, p)).join(t('common.listSep'));
}
