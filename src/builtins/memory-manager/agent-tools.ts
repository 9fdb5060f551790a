import type { ToolInvocation, ToolDef } from '../../sdk/index.js';
import { HomeAgentError, NotFoundError, ValidationError } from '../../sdk/index.js';
import { confirmDetailLead, confirmQuestion } from '../../spec/index.js';
import { isAutoInjected, personSays, toolTags } from '../shared/index.js';
import { DisabledError, SetAsideError } from './errors.js';
import { assertMemoryId } from './memory-id.js';
import type { MemoryManager } from './memory-manager.js';

const str = (description: string) => ({ type: 'string', description });
const strList = (description: string) => ({ type: 'array', items: { type: 'string' }, description });

/**
 * The turn a tool call runs in, as a library memory's `source` names it: the seqs of the turn's
 * message (and interrupts) in its session log — every event of the turn logged so far when it has
 * none (a reminder's turn). Undefined when the log holds nothing of it.
 */
async function turnSource(m: MemoryManager, call: ToolInvocation): Promise<{ sessionId: string; seqs: number[] } | undefined> {
  if (!call.sessionId || !call.turnId) return undefined;
  const sessions = m.sdk.sessions();
  // From the turn's first event when the store can say where it is (a long log is not read whole).
  const first = await sessions.locate?.(call.sessionId, call.turnId).catch(() => undefined);
  const page = first === undefined ? {} : { afterSeq: first - 1, limit: 500 };
  const events = (await sessions.events(call.sessionId, page).catch(() => [])).filter((e) => e.turnId === call.turnId);
  const said = events.filter((e) => e.kind === 'user' || e.kind === 'interrupt');
  const seqs = (said.length ? said : events).map((e) => e.seq);
  return seqs.length ? { sessionId: call.sessionId, seqs } : undefined;
}

/**
 * The agent tools of M-12. They exist only while `enabled && modelTools`; each call checks the
 * master switch again (a stale tool list must not write to a disabled library).
 */
export function createAgentTools(m: MemoryManager): ToolDef[] {
  const guard = <A extends Record<string, unknown>>(fn: (a: A, call?: ToolInvocation) => Promise<unknown>) => async (a: Record<string, unknown>, call?: ToolInvocation) => {
    if (!m.cfg().enabled) throw new DisabledError('the memory library');
    // A memory a forget finished at this start still owes the library is gone before any tool
    // reads or writes it (decision 0420), whatever started the turn.
    await m.sdk.use('host.memory-control')?.settled?.('library');
    return (await fn(a as A, call)) as Record<string, unknown>;
  };
  // A group, or someone else's private chat, sees only memories saved in its own conversations
  // (R-5, decision 0090): the owner's library is theirs, and a stranger's words must not steer
  // the model into reading or changing it.
  // The kernel's own rule when it ran the call (`owner` set: decision 0360's turnAudience, which
  // gives someone else a closed scope even with no conversation); the registry's otherwise.
  const scopeOf = (call?: ToolInvocation) => (call?.owner !== undefined ? call.scope : m.scopeOf(call?.speaker, call?.conversation));
  const visible = (id: string, scope: readonly string[] | undefined) => {
    if (!scope) return true;
    const c = m.library.get(id)?.conversation;
    return c !== undefined && scope.includes(c);
  };
  const mustSee = (id: string, call?: ToolInvocation) => {
    if (!visible(id, scopeOf(call))) throw new NotFoundError('memory', id);
    return id;
  };
  /** The person's yes in the WebUI for something that would reach every new session or turn (decision 0240). */
  const ask = (call: ToolInvocation | undefined, title: string, detail: string) => personSays(m.sdk.use('host.confirm'), { plugin: 'memory-manager', sessionId: call?.sessionId ?? '', title, detail: detail.slice(0, 1200) });
  const needsYes = async (call: ToolInvocation | undefined, title: string, detail: string) => {
    if (!(await ask(call, title, detail))) throw new HomeAgentError('FORBIDDEN', `${title.replace(/\?$/, '')}: the user did not allow it (it needs their yes in the HomeAgent WebUI)`);
  };
  const tools: ToolDef[] = [
    {
      name: 'library_search',
      audience: 'anyone', // kept to the turn's scope (decision 0360)
      description: '在记忆库中检索记忆（按印象、标题、正文排序）。Search the curated memory library.',
      parameters: { type: 'object', properties: { query: str('search words'), limit: { type: 'integer', minimum: 1, maximum: 50 } }, required: ['query'] },
      handler: guard<{ query: string; limit?: number }>(async (a, call) => {
        if (typeof a.query !== 'string' || !a.query.trim()) throw new ValidationError('query is required', { path: 'query' });
        const scope = scopeOf(call);
        const limit = Math.min(Math.max(Number(a.limit) || 8, 1), 50);
        const found = (await m.library.search(a.query, 200)).filter((h) => visible(h.id, scope));
        // Made from a turn the person excluded: not found while it stays excluded (decision 0440).
        const aside = await m.setAside(found.map((h) => m.library.get(h.id)));
        const hits = found.filter((h) => !aside.has(h.id)).slice(0, limit);
        return { results: hits.map((h) => ({ id: h.id, title: h.title, impressions: h.impressions, tags: h.tags, preview: h.preview, score: h.score })) };
      }),
    },
    {
      name: 'library_read',
      audience: 'anyone',
      description: '读取一条记忆的快照、批注与元数据；组合记忆会展开其来源记忆。Read a memory (expands composedOf).',
      parameters: { type: 'object', properties: { id: str('memory id') }, required: ['id'] },
      handler: guard<{ id: string }>(async (a, call) => {
        const id = mustSee(assertMemoryId(a.id), call);
        const aside = await m.setAside([m.library.get(id)]);
        if (aside.has(id)) throw new SetAsideError(id);
        const rec = await m.library.read(id);
        const hidden = await m.setAside(rec.composedOf.map((c) => m.library.get(c)));
        const sources = [];
        for (const sid of rec.composedOf) {
          const s = visible(sid, scopeOf(call)) && !hidden.has(sid) ? m.library.get(sid) : undefined;
          sources.push(s ? { id: s.id, title: s.title, impressions: s.impressions, snapshot: s.snapshot, notes: s.notes } : { id: sid, missing: true });
        }
        return { ...rec, sources };
      }),
    },
    {
      name: 'library_save',
      audience: 'anyone',
      description: '把一段内容保存为新记忆（快照保存后不可修改）。Save a new memory; its snapshot is immutable.',
      parameters: {
        type: 'object',
        properties: { title: str('title'), snapshot: str('the content to remember'), impressions: strList('up to 12 short keys (≤40 chars)'), tags: strList('e.g. convention'), notes: str('editable notes'), links: strList('ids of related memories') },
        required: ['title', 'snapshot'],
      },
      handler: guard<Record<string, unknown>>(async (a, call) => {
        const { title, snapshot, impressions, notes, links } = a;
        // A convention or a session summary is injected into every new session: from a tool (which
        // text the model read may have steered) it needs the person's yes, else it is saved plain.
        const { tags, note } = await toolTags(a.tags, (reserved) => ask(call, confirmQuestion.saveInjected(reserved), `${String(title).slice(0, 200)}\n\n${String(snapshot).slice(0, 1000)}`));
        // A chat channel's turn records who said it (issue 13 part 5); the owner's own turns carry none.
        const speaker = call?.speaker ? { id: call.speaker.id, ...(call.speaker.name ? { name: call.speaker.name.slice(0, 100) } : {}) } : undefined;
        // The turn it was saved in (its message's seqs): a forget or an exclusion of that turn lists
        // it as made from it, as a summary of the turn is (decisions 0430, 0440, 0520).
        const source = call ? await turnSource(m, call) : undefined;
        const rec = await m.library.save({ title, snapshot, impressions, tags, notes, links, ...(speaker ? { speaker } : {}), ...(call?.conversation ? { conversation: call.conversation.id } : {}), ...(source ? { source } : {}) });
        return { id: rec.id, title: rec.title, impressions: rec.impressions, tags: rec.tags, ...(note ? { note } : {}) };
      }),
    },
    {
      name: 'library_annotate',
      audience: 'anyone',
      description: '给记忆追加或替换批注（不改快照）。Append to or replace the notes of a memory.',
      parameters: { type: 'object', properties: { id: str('memory id'), notes: str('notes text'), mode: { type: 'string', enum: ['append', 'replace'] } }, required: ['id', 'notes'] },
      handler: guard<{ id: string; notes: string; mode?: 'append' | 'replace' }>(async (a, call) => {
        const id = mustSee(assertMemoryId(a.id), call);
        // Notes are injected with the memory: those of a convention or a session summary reach every
        // new session, those of a memory in the plan every turn of the owner.
        const target = m.library.get(id);
        if (target && (isAutoInjected(target.tags) || m.plan.peek().memories.some((x) => x.id === id))) await needsYes(call, confirmQuestion.changeInjectedNotes(target.title.slice(0, 80)), `${a.mode === 'replace' ? confirmDetailLead.replaceNotes() : confirmDetailLead.appendNotes()}\n\n${String(a.notes).slice(0, 1000)}`);
        const rec = await m.library.updateNotes(id, a.notes, a.mode === 'replace' ? 'replace' : 'append');
        return { id: rec.id, notes: rec.notes };
      }),
    },
    {
      name: 'library_link',
      audience: 'anyone',
      description: '在两条记忆之间建立（或移除）关联。Link (or unlink) two memories.',
      parameters: { type: 'object', properties: { from: str('memory id'), to: str('memory id'), remove: { type: 'boolean' } }, required: ['from', 'to'] },
      handler: guard<{ from: string; to: string; remove?: boolean }>(async (a, call) => {
        const rec = await m.library.link(mustSee(assertMemoryId(a.from, 'from'), call), mustSee(assertMemoryId(a.to, 'to'), call), a.remove === true);
        return { id: rec.id, links: rec.links };
      }),
    },
    {
      name: 'library_plan',
      description: '查看或修改注入计划：list / add / remove 记忆。Show or change the injection plan.',
      parameters: { type: 'object', properties: { action: { type: 'string', enum: ['list', 'add', 'remove'] }, id: str('memory id (add/remove)') }, required: ['action'] },
      handler: guard<{ action: string; id?: string }>(async (a, call) => {
        // The injection plan shapes every turn of the owner: not changed or shown from elsewhere.
        if (scopeOf(call)) throw new HomeAgentError('FORBIDDEN', "the injection plan is the owner's: it cannot be read or changed from a group or someone else's chat");
        if (a.action === 'add') {
          const rec = await m.library.read(assertMemoryId(a.id));
          if (!rec.enabled) throw new ValidationError(`memory ${rec.id} is disabled`, { path: 'id' });
          // The plan is injected into the owner's turns ('on': every turn): the person chooses what is in it.
          if (!m.plan.peek().memories.some((x) => x.id === rec.id)) await needsYes(call, confirmQuestion.addToPlan(rec.title.slice(0, 80)), `${rec.snapshot.slice(0, 800)}${rec.notes ? `\n\n${rec.notes.slice(0, 300)}` : ''}`);
          await m.plan.addMemory(rec);
        } else if (a.action === 'remove') {
          await m.plan.removeMemory(assertMemoryId(a.id));
        } else if (a.action !== 'list') {
          throw new ValidationError('action must be list, add or remove', { path: 'action' });
        }
        const plan = await m.plan.get();
        return { memories: plan.memories, pinned: plan.pinned.length, injectOnce: plan.injectOnce };
      }),
    },
  ];
  // What these tools change is recorded as the agent's, from its turn, by the kernel's tool scope (K-3).
  return tools;
}
