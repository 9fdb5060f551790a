import type { ChangeMeta, ConfirmService, ForgetPlan, ForgetResult, MemoryControlService } from '../../spec/index.js';
import { confirmQuestion, forgetPlanLine, type ForgetAsker } from '../../spec/index.js';

/** What a forget asked for by a model (an agent tool, an MCP client) came to. */
export type ConfirmedForget =
  | { status: 'nothing'; plan: ForgetPlan }
  | { status: 'refused'; plan: ForgetPlan; reason: string }
  | { status: 'forgotten'; plan: ForgetPlan; result: ForgetResult };

/** The preview as the person reads it in the confirmation dialog (shortened). */
export function describePlan(p: ForgetPlan, withMemories: boolean): string {
  const lines: string[] = [];
  for (const t of p.turns.slice(0, 20)) lines.push(forgetPlanLine.turn(t.turnId, t.places, t.text.slice(0, 160)));
  if (p.turns.length > 20) lines.push(forgetPlanLine.moreTurns(p.turns.length - 20));
  // Other turns that quote what was said go with them (decision 0450): always shown.
  const quoting = p.quoting ?? [];
  for (const t of quoting.slice(0, 20)) lines.push(forgetPlanLine.quotingTurn(t.turnId, t.places, t.text.slice(0, 160)));
  if (quoting.length > 20) lines.push(forgetPlanLine.moreQuoting(quoting.length - 20));
  for (const f of p.facts.slice(0, 20)) lines.push(forgetPlanLine.fact(f.id, f.text.slice(0, 160)));
  if (p.facts.length > 20) lines.push(forgetPlanLine.moreFacts(p.facts.length - 20));
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
 * A forget a model asked for (K-2): what would go is previewed, shown to the person through
 * `host.confirm` (the WebUI's dialog) with the plan the daemon made — never the model's own words
 * about it — and only a yes forgets exactly what was shown. Without a confirmation service (no
 * WebUI open) it is refused: a model steered by text it read must not delete memory silently.
 * Library memories go only when `withMemories` and they were listed in the dialog.
 */
export async function confirmedForget(
  mc: MemoryControlService,
  confirm: ConfirmService | undefined,
  req: { query?: string; turnIds?: string[] },
  o: { plugin: string; sessionId: string; who: ForgetAsker; withMemories?: boolean; meta: ChangeMeta },
): Promise<ConfirmedForget> {
  const plan = await mc.forgetPreview(req);
  // Memories made from the turns (a summary of them) go with them, as the dialog says (decision 0430).
  const withMemories = !!o.withMemories && plan.memories.length > 0;
  if (!plan.turns.length && !plan.facts.length && !plan.documents.length && !withMemories) return { status: 'nothing', plan };
  if (!confirm || confirm.reachable?.() === false) return { status: 'refused', plan, reason: NO_WEBUI };
  const n = plan.turns.length + (plan.quoting?.length ?? 0) + plan.facts.length + plan.documents.length + (withMemories ? plan.memories.length : plan.memories.filter((m) => m.madeFrom).length);
  const yes = await confirm.ask({ plugin: o.plugin, sessionId: o.sessionId, title: confirmQuestion.forget(o.who, n), detail: describePlan(plan, withMemories) }).catch(() => false);
  if (!yes) return { status: 'refused', plan, reason: 'the user did not confirm it (they said no, or did not answer in time)' };
  const result = await mc.forget(
    {
      turnIds: [...plan.turns.map((t) => t.turnId), ...(plan.quoting ?? []).map((t) => t.turnId)],
      relationIds: plan.facts.map((f) => f.id),
      documents: plan.documents.map((d) => ({ tier: d.tier as 'document' | 'archive' | 'context', id: d.id })),
      ...(withMemories || plan.memories.some((m) => m.madeFrom) ? { memoryIds: plan.memories.filter((m) => withMemories || m.madeFrom).map((m) => m.id) } : {}),
    },
    o.meta,
  );
  return { status: 'forgotten', plan, result };
}
