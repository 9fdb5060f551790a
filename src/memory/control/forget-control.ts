import { randomUUID } from 'node:crypto';
import type { ChangeMeta, Disposer, ForgetParticipant, ForgetPlan, ForgetRequest, ForgetResult, NewMemoryChange } from '../../spec/index.js';
import { keptFactAt, ValidationError } from '../../spec/index.js';
import type { CompactOutcome } from '../../fs/sqlite/index.js';
import { factText } from '../recall/index.js';
import { currentChangeActor } from './change-actor.js';
import type { ControlHistory } from './control-history.js';
import type { ControlQueue } from './control-queue.js';
import type { ControlTiers } from './control-tiers.js';
import { deleteForgottenFiles } from './forget-files.js';
import { planForget } from './forget-plan.js';
import { owedOfPending, redactMemoryCopies, runForget, unfinished, type OwedForget, type PendingForget } from './forget-run.js';

/** `1 turn`, `2 turns` (a history summary people read). */
function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * Forget (K-2): the preview, the forget itself (tombstones first, then every tier, the logs and
 * the participants — `forget-run.ts`), recorded in the history; a forget cut off is finished at the
 * next open (decision 0410) and what it owes a participant not registered yet is paid when it
 * registers (decision 0420).
 */
export class ForgetControl {
  private readonly participants = new Map<string, ForgetParticipant>();
  /** A participant's debt being paid (decision 0420), by name: `settled` waits for it. */
  private readonly paying = new Map<string, Promise<void>>();

  constructor(
    private readonly t: ControlTiers,
    private readonly queue: ControlQueue,
    private readonly history: ControlHistory,
  ) {}

  /**
   * Once per start (not at an import's reopen): what finished forgets owe a participant that has
   * not registered in three starts (a plugin switched off or removed) is given up — the record
   * holds the forgotten texts (decision 0420).
   */
  ageOwed(): void {
    try {
      for (const name of this.t.db.ageOwed(3)) this.t.log.warn(`memory control: the ${name} participant did not start in three starts; what it holds of a forgotten text stays there`);
    } catch (e) {
      this.t.log.error(`memory control: ageing what forgets owe failed: ${(e as Error).message}`);
    }
  }

  async forgetPreview(request: ForgetRequest): Promise<ForgetPlan> {
    if (request.query !== undefined && (typeof request.query !== 'string' || request.query.length > 2000)) throw new ValidationError('query must be text of at most 2000 characters', { key: 'query' });
    if (!request.query?.trim() && !request.turnIds?.length && !request.relationIds?.length && !request.documents?.length && !request.memoryIds?.length) {
      throw new ValidationError('say what to forget: words, or turns, facts, documents or memories', { key: 'query' });
    }
    return planForget(this.t, request, this.participants);
  }

  forget(request: Omit<ForgetRequest, 'query'>, meta: ChangeMeta = {}): Promise<ForgetResult> {
    return this.queue.run(() => this.forgetNow(request, { ...currentChangeActor(), ...meta }));
  }

  /**
   * One forget, inside `serial`. Recorded in `forget_pending` with its tombstones and dropped when
   * done (decision 0410); `resume` is that record, when a forget cut off is finished at open.
   */
  private async forgetNow(request: Omit<ForgetRequest, 'query'>, meta: ChangeMeta, resume?: { key: string; body: PendingForget }): Promise<ForgetResult> {
    const key = resume?.key ?? randomUUID();
    let res: ForgetResult | undefined;
    try {
      res = await runForget(this.t, request, meta, this.participants, { key, ...(resume ? { resume: resume.body } : {}) });
    } finally {
      // After its commit point (the tombstones), also when a later step failed: what the
      // forget listed goes now, not at the next start (decision 0370).
      const files = this.t.db.forgetFiles();
      const n = files.length ? deleteForgottenFiles(this.t, files) : 0;
      if (res) res.files = n;
    }
    const n = res.turns + res.relations + res.documents + res.archived + res.memories;
    // A resumed forget is recorded whatever it still found: its first run was cut off before this.
    const entry: NewMemoryChange[] = [{ ...meta, kind: 'forget' as const, target: 'forget', op: 'forget', summary: `forgot ${count(res.turns, 'turn')}, ${count(res.relations, 'fact')}, ${count(res.documents + res.archived, 'document')}, ${count(res.memories, 'memory', 'memories')}`, subjects: [] }].filter(() => n > 0 || res.tombstones > 0 || resume !== undefined);
    // Each fact the person kept (decision 0520): a line of its own, naming the fact and nothing of
    // the turns it came from (its earlier entries, which held them, were redacted by the run).
    entry.push(...this.keptEntries(request.keepRelationIds ?? [], meta));
    // The entries and the drop of the record in one transaction: a kill between them would have
    // recorded the forget twice at the next open.
    this.history.recorded(this.t.db.finishForget(key, this.history.inserts(entry)));
    this.compactAfterForget(res);
    return res;
  }

  /**
   * The history entries of the facts a forget kept (decision 0520): `keep`, with the fact's line and
   * its names, no before or after (nothing of it changed that undo could put back but its sources,
   * and those were the forgotten turns'). Only facts that cite the kept source now.
   */
  private keptEntries(ids: readonly number[], meta: ChangeMeta): NewMemoryChange[] {
    const graph = this.t.graph();
    if (!graph || !ids.length) return [];
    const out: NewMemoryChange[] = [];
    for (const id of new Set(ids)) {
      const r = graph.relation(id);
      if (!r || keptFactAt(graph.sourcesOf(id).map((s) => s.ref)) === undefined) continue;
      out.push({ ...meta, kind: 'relation', target: `relation:${id}`, subjects: [r.subject, r.object], op: 'keep', summary: `kept ${factText(r)} (the turn it came from was forgotten)` });
    }
    return out;
  }

  /**
   * Finishes the forgets a kill or a failing step cut off after their commit point (decision 0410):
   * each runs again from its record — the tiers it had emptied give nothing, the logs, history and
   * copies set aside are redacted with the texts it recorded. One that fails three times is given
   * up (logged; its tombstones still keep what it forgot out of every tier).
   */
  finishPendingForgets(): Promise<void> {
    // One job in `serial`: a forget in flight (tiers reopened by an import) has dropped its record
    // before the rows are read here.
    return this.queue.run(async () => {
      try {
        await this.finishEach();
      } catch (e) {
        // A full disk here (the tries are counted by a write) must not stop the daemon's start.
        this.t.log.error(`memory control: forgets that were cut off could not be finished now; the next start tries again: ${(e as Error).message}`);
      }
    });
  }

  private async finishEach(): Promise<void> {
    for (const p of this.t.db.pendingForgets()) {
      let body: PendingForget;
      try {
        body = JSON.parse(p.body) as PendingForget;
      } catch {
        body = undefined as unknown as PendingForget;
      }
      if (!body?.request || p.tries >= 3) {
        // Given up, a readable record still gives the plugins not started yet their part: owed,
        // taken when they register (a run that failed three times never reached that step).
        const absent = body?.request ? (body.participants ?? []).filter((name) => !this.participants.has(name)) : [];
        if (absent.length) this.t.db.addOwed(p.key, absent, JSON.stringify(owedOfPending(body)));
        this.t.db.dropPendingForget(p.key);
        this.t.log.error(`memory control: gave up finishing a forget that was cut off (${body?.request ? 'it failed three times' : 'its record is unreadable'}); its tombstones stay in effect${absent.length ? `; what ${absent.join(', ')} hold of it is owed to them` : ''}`);
        continue;
      }
      try {
        await this.forgetNow(body.request, body.meta ?? {}, { key: p.key, body });
        this.t.log.info('memory control: finished a forget that was cut off');
      } catch (e) {
        this.t.log.error(`memory control: finishing a forget that was cut off failed; the next start tries again: ${(e as Error).message}`);
      }
    }
  }

  /**
   * Gives a participant that registered after a forget was finished at open what that forget owed
   * it (decision 0420): the memories the person ticked are removed, and what holds a forgotten text
   * or was made in a forgotten turn is dropped. A debt that fails three times is given up (logged).
   */
  private async payOwed(name: string, p: ForgetParticipant): Promise<void> {
    if (this.participants.get(name) !== p) return;
    let rows: { key: string; body: string; tries: number }[];
    try {
      rows = this.t.db.owedTo(name);
    } catch (e) {
      this.t.log.error(`memory control: what forgets owe the ${name} participant could not be read: ${(e as Error).message}`);
      return;
    }
    for (const row of rows) {
      let owed: OwedForget | undefined;
      try {
        owed = JSON.parse(row.body) as OwedForget;
      } catch {
        owed = undefined;
      }
      try {
        if (!owed || !Array.isArray(owed.quotes) || row.tries >= 3) {
          this.t.db.dropOwed(name, row.key);
          this.t.log.error(`memory control: gave up giving the ${name} participant its part of a forget (${owed ? 'it failed three times' : 'its record is unreadable'})`);
          continue;
        }
        let removed = 0;
        let texts: string[] = [...(owed.memoryTexts ?? [])];
        if (owed.memoryIds?.length) {
          const r = await p.remove(owed.memoryIds, owed.meta ?? {});
          removed = r.removed;
          texts = [...new Set([...texts, ...r.texts])];
          // Kept with the debt before anything can fail: a retry's remove finds the memories gone.
          if (r.texts.length) this.t.db.addOwed(row.key, [name], JSON.stringify({ ...owed, memoryIds: [], memoryTexts: texts, memoryTextsOf: [...new Set([...(owed.memoryTextsOf ?? []), ...owed.memoryIds])] } satisfies OwedForget));
        }
        // What the removed memories said, in copies of memory (tool calls, injections) and the
        // history: the forget that owed them could not know it (its participant was not there).
        const ids = [...new Set([...(owed.memoryIds ?? []), ...(owed.memoryTextsOf ?? [])])];
        const copies = texts.length || ids.length ? await redactMemoryCopies(this.t, texts, ids) : { sessionEvents: 0, historyRedacted: 0 };
        const dropped = p.scrub ? await p.scrub(owed.quotes, owed.turnIds ?? []) : 0;
        this.t.db.dropOwed(name, row.key);
        this.t.log.info(`memory control: the ${name} participant took its part of a forget finished at start (${count(removed, 'memory', 'memories')} removed, ${count(dropped, 'item')} dropped, ${count(copies.sessionEvents + copies.historyRedacted, 'copy', 'copies')} of their texts redacted)`);
      } catch (e) {
        this.t.log.error(`memory control: the ${name} participant could not take its part of a forget; it is tried again when it next registers: ${(e as Error).message}`);
      }
    }
  }

  /**
   * Every memory file rebuilt and its WAL emptied after a forget (decision 0400): the rows went
   * with secure delete; a rebuild also takes copies an install wrote before secure delete was on
   * for good. A file a reader held is reported in `unfinished` (its next checkpoint empties it).
   */
  private compactAfterForget(res: ForgetResult): void {
    const stores: [string, { compact(): CompactOutcome } | undefined][] = [
      ['documents', this.t.docs()],
      ['archive', this.t.archive()],
      ['graph', this.t.graph()],
      ['memory-control', this.t.db],
    ];
    for (const [part, store] of stores) {
      if (!store) continue;
      const outcome = store.compact();
      if (outcome === 'busy') unfinished(res, part, 'the file was busy: removed rows are zeroed, and its write-ahead log is emptied at the next checkpoint');
      else if (outcome === 'too-large') this.t.log.info(`forget: ${part} is too large to rebuild after a forget; its removed rows were zeroed in place`);
    }
  }


  registerForgetParticipant(name: string, participant: ForgetParticipant): Disposer {
    this.participants.set(name, participant);
    // A forget finished at open before this participant registered owes it its part (decision 0420).
    let owes = false;
    try {
      owes = this.t.db.owes(name);
    } catch (e) {
      this.t.log.error(`memory control: what forgets owe the ${name} participant could not be read: ${(e as Error).message}`);
    }
    if (owes) this.paying.set(name, this.queue.run(() => this.payOwed(name, participant)).catch(() => undefined));
    return () => {
      if (this.participants.get(name) === participant) this.participants.delete(name);
    };
  }

  /**
   * Resolves once what forgets finished at open owed `name` has been given to it (decision 0420) —
   * at once when nothing was owed. A plugin awaits it after registering its participant, before it
   * delivers or injects anything (a reminder missed while stopped, a memory).
   */
  settled(name: string): Promise<void> {
    return this.paying.get(name) ?? Promise.resolve();
  }
}
