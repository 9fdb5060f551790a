import { createInterface } from 'node:readline';
import { forgetCounts, type ForgetPlan, type ForgetRequest, type ForgetResult, type MemoryChange } from '../spec/index.js';
import type { DaemonClient } from './daemon-client.js';
import { formatWhen } from './output.js';

/** Where the forget dialog writes, and whether it can ask. */
export interface ForgetIo {
  out(text: string): void;
  err(text: string): void;
  json: boolean;
  /** Asks a yes/no question on the terminal; undefined when stdin is not a terminal. */
  ask?: (question: string) => Promise<boolean>;
}

/** A question on the terminal (stdin must be a TTY). */
export function terminalAsk(): ForgetIo['ask'] {
  if (!process.stdin.isTTY) return undefined;
  return (q) =>
    new Promise((resolve) => {
      const rl = createInterface({ input: process.stdin, output: process.stdout });
      rl.question(`${q} [y/N] `, (a) => {
        rl.close();
        resolve(/^y(es)?$/i.test(a.trim()));
      });
    });
}

const date = (ms: number) => (ms ? formatWhen(ms) : '—');

/** The preview as a person reads it before anything goes (K-2). */
export function renderForgetPlan(p: ForgetPlan, withMemories: boolean, keep: ReadonlySet<string> = new Set(), keepFacts: ReadonlySet<number> = new Set()): string {
  const lines: string[] = [];
  if (p.turns.length) {
    lines.push(`Turns (${p.turns.length}) — removed from every memory tier; their text is redacted in the session log:`);
    for (const t of p.turns) lines.push(`  ${t.turnId}  ${date(t.at)}  [${t.places.join(', ')}]  ${t.text}`);
    if (p.files) lines.push(`  and ${p.files === 1 ? 'the file' : `${p.files} files`} sent with them (deleted from the data folder)`);
  }
  if (p.quoting?.length) {
    lines.push(`Other turns that quote what was said (${p.quoting.length}) — removed too (to keep one, pass --keep <turn id>):`);
    for (const t of p.quoting) lines.push(`  ${t.turnId}  ${date(t.at)}  [${t.places.join(', ')}]  ${t.text}${keep.has(t.turnId) ? '  (kept: --keep)' : ''}`);
  }
  if (p.facts.length) {
    lines.push(`Facts (${p.facts.length})${p.facts.some((f) => f.withTurns) ? ' — to keep one, pass --keep-fact <#id>: it stays without the turn it came from' : ''}:`);
    for (const f of p.facts) lines.push(`  #${f.id}  ${f.text}  (${f.reason})${keepFacts.has(f.id) ? `  (kept: --keep-fact${f.withTurns ? ', without its turn' : ''})` : ''}`);
  }
  if (p.documents.length) {
    lines.push(`Notes without a turn (${p.documents.length}):`);
    for (const d of p.documents) lines.push(`  ${d.tier}:${d.id}  ${d.text}`);
  }
  const made = p.memories.filter((m) => m.madeFrom);
  const mentioning = p.memories.filter((m) => !m.madeFrom);
  if (made.length) {
    lines.push(`Library memories made from what is forgotten (${made.length}) — a summary of these turns, a message saved from them, or a memory composed of one that goes; removed with it (to keep one, pass --keep <id>):`);
    for (const m of made) lines.push(`  ${m.id}  ${m.title}  ${m.preview.slice(0, 80)}${keep.has(m.id) ? '  (kept: --keep)' : ''}`);
  }
  if (mentioning.length) {
    lines.push(`Library memories that mention it (${mentioning.length}) — ${withMemories ? 'removed too (--memories)' : 'kept; pass --memories to remove them as well'}:`);
    for (const m of mentioning) lines.push(`  ${m.id}  ${m.title}  ${m.preview.slice(0, 80)}${withMemories && keep.has(m.id) ? '  (kept: --keep)' : ''}`);
  }
  return lines.length ? lines.join('\n') : 'Nothing found to forget.';
}

/**
 * What the preview named, as a forget request: library memories made from the turns, and the ones
 * that mention it only when asked for; the other turns that quote what was said; none that the
 * person keeps (`--keep`).
 */
export function forgetRequestOf(p: ForgetPlan, withMemories: boolean, keep: ReadonlySet<string> = new Set(), keepFacts: ReadonlySet<number> = new Set()): Omit<ForgetRequest, 'query'> {
  const memoryIds = p.memories.filter((m) => (withMemories || m.madeFrom) && !keep.has(m.id)).map((m) => m.id);
  // A fact kept (decision 0520): one made only from the turns stays without them
  // (`keepRelationIds`); any other simply is not named.
  const keptWithTurns = p.facts.filter((f) => keepFacts.has(f.id) && f.withTurns).map((f) => f.id);
  return {
    // Other turns that quote what was said go too, unless kept (decision 0450).
    turnIds: [...p.turns.map((t) => t.turnId), ...(p.quoting ?? []).filter((t) => !keep.has(t.turnId)).map((t) => t.turnId)],
    relationIds: p.facts.filter((f) => !keepFacts.has(f.id)).map((f) => f.id),
    ...(keptWithTurns.length ? { keepRelationIds: keptWithTurns } : {}),
    documents: p.documents.map((d) => ({ tier: d.tier as 'document' | 'archive' | 'context', id: d.id })),
    // Made from the turns (a summary of them), a memory goes with them (decision 0430).
    ...(memoryIds.length ? { memoryIds } : {}),
    // A quoting turn kept: its log events stay as they are (decision 0450).
    ...(p.quoting?.some((t) => keep.has(t.turnId)) ? { keepTurnIds: p.quoting.filter((t) => keep.has(t.turnId)).map((t) => t.turnId) } : {}),
  };
}

/**
 * `waiter memory forget <words…> | --turn <id> | --memory <id> | --fact <id>`: shows what will go,
 * asks (or `--yes`), then forgets exactly what was shown. Returns the exit code.
 */
export async function forgetCommand(c: DaemonClient, io: ForgetIo, req: ForgetRequest, o: { yes?: boolean; memories?: boolean; dryRun?: boolean; keep?: string[]; keepFact?: string[] }): Promise<number> {
  const keep = new Set(o.keep ?? []);
  const asked = req.memoryIds?.find((id) => keep.has(id));
  if (asked) {
    io.err(`waiter: ${asked} is both to forget (--memory) and to keep (--keep)\n`);
    return 2;
  }
  const keepFactArgs = (o.keepFact ?? []).map((x) => x.replace(/^#/, ''));
  const badFact = keepFactArgs.find((x) => !/^\d{1,15}$/.test(x));
  if (badFact !== undefined) {
    io.err(`waiter: --keep-fact ${badFact}: a fact id is a number (#id in the preview); nothing was forgotten\n`);
    return 2;
  }
  const keepFacts = new Set(keepFactArgs.map(Number));
  const askedFact = req.relationIds?.find((id) => keepFacts.has(id));
  if (askedFact !== undefined) {
    io.err(`waiter: fact #${askedFact} is both to forget (--fact) and to keep (--keep-fact)\n`);
    return 2;
  }
  const plan = await c.request<ForgetPlan>('memory.forget-preview', req as Record<string, unknown>);
  const withMemories = !!o.memories || !!req.memoryIds?.length;
  // What to keep must be what the preview lists (a library memory, a turn that quotes it): a
  // mistyped id would otherwise keep nothing.
  const unknown = [...keep].find((id) => !plan.memories.some((m) => m.id === id) && !plan.quoting?.some((t) => t.turnId === id));
  if (unknown) {
    io.err(`waiter: --keep ${unknown}: no such library memory or quoting turn in what would be forgotten (nothing was forgotten)\n`);
    return 2;
  }
  const unknownFact = [...keepFacts].find((id) => !plan.facts.some((f) => f.id === id));
  if (unknownFact !== undefined) {
    io.err(`waiter: --keep-fact ${unknownFact}: no such fact in what would be forgotten (nothing was forgotten)\n`);
    return 2;
  }
  const request = forgetRequestOf(plan, withMemories, keep, keepFacts);
  const empty = !plan.turns.length && !request.relationIds?.length && !plan.documents.length && !request.memoryIds?.length;
  if (!io.json || o.dryRun || empty) io.out((io.json ? JSON.stringify({ plan }, null, 2) : renderForgetPlan(plan, withMemories, keep, keepFacts)) + '\n');
  if (empty || o.dryRun) return empty ? 1 : 0;
  let ok = !!o.yes;
  if (!ok) {
    if (!io.ask) {
      io.err('waiter: nothing was forgotten — pass --yes to forget what is listed above\n');
      return 1;
    }
    ok = await io.ask('Forget all of the above? This cannot be undone.');
  }
  if (!ok) {
    io.out('nothing was forgotten\n');
    return 1;
  }
  const res = await c.request<ForgetResult>('memory.forget', request as Record<string, unknown>);
  io.out((io.json ? JSON.stringify(res, null, 2) : `forgotten: ${forgetCounts(res)}${res.keptFacts ? `\nkept: ${res.keptFacts === 1 ? '1 fact' : `${res.keptFacts} facts`}, without the forgotten turns` : ''}`) + '\n');
  // A part that could not be done is said, and the exit code says it too (decision 0400).
  if (!res.unfinished?.length) return 0;
  if (!io.json) for (const u of res.unfinished) io.err(`waiter: not finished — ${u.part}: ${u.message}\n`);
  return 1;
}

/** One line of `waiter memory history`. */
export function historyRow(c: MemoryChange): Record<string, string> {
  return {
    id: c.id,
    when: date(c.at),
    who: c.tool ? `${c.actor} (${c.tool})` : c.actor,
    // "forget forget" said nothing twice: a kind and an op of the same word read as one.
    what: c.kind === c.op ? c.op : `${c.kind} ${c.op}`,
    summary: c.summary,
    turn: c.turnId ?? '',
    state: c.redacted ? 'forgotten' : c.undoneBy ? `undone by #${c.undoneBy}` : c.undoOf ? `undoes #${c.undoOf}` : '',
  };
}
