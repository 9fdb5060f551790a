import type { ChangeMeta, ConfirmService, ForgetPlan, ForgetResult, MemoryControlService } from '../../spec/index.js';
import { confirmQuestion, forgetPlanLine, ValidationError, type ForgetAsker } from '../../spec/index.js';

/** What a forget asked for by a model (an agent tool, an MCP client) came to. */
export type ConfirmedForget =
  | { status: 'nothing'; plan: ForgetPlan }
  | { status: 'refused'; plan: ForgetPlan; reason: string }
  | { status: 'forgotten'; plan: ForgetPlan; result: ForgetResult };

/** The preview as the person reads it in the confirmation dialog (shortened); `kept`: facts that stay (decision 0600). */
export function describePlan(p: ForgetPlan, withMemories: boolean, kept: ReadonlySet<number> = new Set()): string {
  const lines: string[] = [];
  for (const t of p.turns.slice(0, 20)) lines.push(forgetPlanLine.turn(t.turnId, t.places, t.text.slice(0, 160)));
  if (p.turns.length > 20) lines.push(forgetPlanLine.moreTurns(p.turns.length - 20));
  // Other turns that quote what was said go with them (decision 0450): always shown.
  const quoting = p.quoting ?? [];
  for (const t of quoting.slice(0, 20)) lines.push(forgetPlanLine.quotingTurn(t.turnId, t.places, t.text.slice(0, 160)));
  if (quoting.length > 20) lines.push(forgetPlanLine.moreQuoting(quoting.length - 20));
  // A fact the model asked to keep is named as kept, first: the person's yes covers the keep too.
  for (const f of p.facts.filter((x) => kept.has(x.id))) lines.push(forgetPlanLine.keptFact(f.id, f.text.slice(0, 160), f.withTurns === true));
  const facts = p.facts.filter((x) => !kept.has(x.id));
  for (const f of facts.slice(0, 20)) lines.push(forgetPlanLine.fact(f.id, f.text.slice(0, 160)));
  if (facts.length > 20) lines.push(forgetPlanLine.moreFacts(facts.length - 20));
  for (const d of p.documents.slice(0, 10)) lines.push(forgetPlanLine.note(d.tier, d.id, d.text.slice(0, 160)));
  // Made from the turns (a summary of them), a memory goes with them: always shown (decision 0430).
  const memories = p.memories.filter((x) => x.madeFrom || withMemories);
  for (const m of memories.slice(0, 10)) lines.push(forgetPlanLine.memory(m.id, m.title.slice(0, 80), m.madeFrom === true));
  if (memories.length > 10) lines.push(forgetPlanLine.moreMemories(memories.length - 10));
  return lines.join('\n');
}

/** Why nothing was forgotten when nobody could be asked (not the person's "no"). */
const NO_WEBUI =
  'nobody could be asked to confirm it: forgetting needs the user\'s yes in the HomeAgent WebUI, and no WebUI page is open. The user can open the WebUI (`waiter webui`) and ask again, or forget it themselves there (Memory) or with `waiter memory forget <words>`';

/**
 * The facts a model asked to keep (decision 0600), checked against the daemon's own plan: each must
 * be a fact the plan lists, or the whole request is refused before anyone is asked — an id the plan
 * does not list is never passed on, so a keep cannot reach a fact this forget would not take.
 */
function checkKeeps(plan: ForgetPlan, keep: readonly number[]): Set<number> {
  const listed = new Set(plan.facts.map((f) => f.id));
  const stray = [...new Set(keep)].filter((id) => !listed.has(id));
  if (stray.length) {
    const which = stray.slice(0, 10).map((id) => `#${id}`).join(', ');
    const offered = plan.facts.length ? `the facts it would take are ${plan.facts.slice(0, 20).map((f) => `#${f.id}`).join(', ')}` : 'it would take no fact';
    throw new ValidationError(`keep_fact_ids: ${which} ${stray.length === 1 ? 'is' : 'are'} not among the facts this forget would take (${offered}); nothing was asked and nothing was forgotten`, { key: 'keep_fact_ids', notInPlan: stray.slice(0, 100) });
  }
  return new Set(keep);
}

/**
 * A forget a model asked for (K-2): what would go is previewed, shown to the person through
 * `host.confirm` (the WebUI's dialog) with the plan the daemon made — never the model's own words
 * about it — and only a yes forgets exactly what was shown. Without a confirmation service (no
 * WebUI open) it is refused: a model steered by text it read must not delete memory silently.
 * Library memories go only when `withMemories` and they were listed in the dialog.
 * `keepRelationIds`: facts of the plan the model asks to keep (decision 0600) — shown as kept in the
 * dialog; one made only from the turns stays without them (`ForgetRequest.keepRelationIds`, 0520),
 * another is simply not forgotten. An id the plan does not list refuses the request (a `ValidationError`).
 */
export async function confirmedForget(
  mc: MemoryControlService,
  confirm: ConfirmService | undefined,
  req: { query?: string; turnIds?: string[]; keepRelationIds?: number[] },
  o: { plugin: string; sessionId: string; who: ForgetAsker; withMemories?: boolean; meta: ChangeMeta },
): Promise<ConfirmedForget> {
  const { keepRelationIds, ...ask } = req;
  const plan = await mc.forgetPreview(ask);
  const kept = checkKeeps(plan, keepRelationIds ?? []);
  const facts = plan.facts.filter((f) => !kept.has(f.id));
  // Memories made from the turns (a summary of them) go with them, as the dialog says (decision 0430).
  const withMemories = !!o.withMemories && plan.memories.length > 0;
  if (!plan.turns.length && !facts.length && !plan.documents.length && !withMemories) return { status: 'nothing', plan };
  if (!confirm || confirm.reachable?.() === false) return { status: 'refused', plan, reason: NO_WEBUI };
  const n = plan.turns.length + (plan.quoting?.length ?? 0) + facts.length + plan.documents.length + (withMemories ? plan.memories.length : plan.memories.filter((m) => m.madeFrom).length);
  const yes = await confirm.ask({ plugin: o.plugin, sessionId: o.sessionId, title: confirmQuestion.forget(o.who, n), detail: describePlan(plan, withMemories, kept) }).catch(() => false);
  if (!yes) return { status: 'refused', plan, reason: 'the user did not confirm it (they said no, or did not answer in time)' };
  // A kept fact made only from the turns would go with them: it is kept without them (0520). A kept
  // fact that also stands on something else just stays out of the forget.
  const keepWithout = plan.facts.filter((f) => kept.has(f.id) && f.withTurns).map((f) => f.id);
  const result = await mc.forget(
    {
      turnIds: [...plan.turns.map((t) => t.turnId), ...(plan.quoting ?? []).map((t) => t.turnId)],
      relationIds: facts.map((f) => f.id),
      documents: plan.documents.map((d) => ({ tier: d.tier as 'document' | 'archive' | 'context', id: d.id })),
      ...(withMemories || plan.memories.some((m) => m.madeFrom) ? { memoryIds: plan.memories.filter((m) => withMemories || m.madeFrom).map((m) => m.id) } : {}),
      ...(keepWithout.length ? { keepRelationIds: keepWithout } : {}),
    },
    o.meta,
  );
  return { status: 'forgotten', plan, result };
}
