import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importNote, type ContextEvent } from '../spec/index.js';
import type { MergeContext } from './merge-context.js';
import type { StagedExport } from './staged-export.js';

/**
 * The archive's context window merged into a copy of ours: its events that no tier of ours holds
 * (`heldElsewhere`: a document or archived turn of that id), forgotten ones left out, and the
 * newer of each session's turn marks. Writes the copy only when something changed.
 */
export function mergeContextWindow(c: MergeContext, theirCtx: ReturnType<StagedExport['context']>, heldElsewhere: (id: string) => boolean): void {
  const { live, mergedHome: M, refs, files, notes, plan, textForgotten, pairForgotten, noteLeftOut } = c;
  const liveCtx = join(live.home, 'context.json');
  const ourCtx = ((): { events: ContextEvent[]; turns: Record<string, { turn: number; done: boolean }> } => {
    try {
      const raw = JSON.parse(readFileSync(liveCtx, 'utf8')) as { events?: ContextEvent[]; turns?: Record<string, { turn: number; done: boolean }> };
      return { events: Array.isArray(raw.events) ? raw.events : [], turns: raw.turns ?? {} };
    } catch {
      return { events: [], turns: {} };
    }
  })();
  if (theirCtx.dropped) notes.push(importNote.invalidContextEvents(theirCtx.dropped));
  const ourIds = new Set(ourCtx.events.map((e) => e.id));
  let ctxChanged = false;
  for (const e of theirCtx.events) {
    const p = plan('context');
    const turn = e.refs?.[0];
    const byTurn = turn !== undefined && refs.forgotten(turn);
    if (refs.forgotten(e.id) || byTurn || [e.input, e.response].some((t) => t && textForgotten(t)) || (!!e.input && !!e.response && pairForgotten(e.input, e.response))) {
      p.forgotten++;
      noteLeftOut(turn, !byTurn);
      continue;
    }
    const id = refs.ref(e.id) ?? e.id;
    if (ourIds.has(id) || heldElsewhere(id)) {
      p.same++;
      continue;
    }
    ourCtx.events.push({ ...e, id, sessionId: refs.session(e.sessionId), refs: e.refs?.map((r) => refs.ref(r)).filter((r): r is string => r !== undefined) });
    ourIds.add(id);
    p.added++;
    ctxChanged = true;
  }
  for (const [sid, mark] of Object.entries(theirCtx.marks)) {
    const to = refs.session(sid);
    const ours = ourCtx.turns[to];
    if (!ours || ours.turn < mark.turn) {
      ourCtx.turns[to] = mark;
      ctxChanged = true;
    }
  }
  if (ctxChanged) {
    ourCtx.events.sort((a, b) => a.timestamp - b.timestamp);
    writeFileSync(join(M, 'context.json'), JSON.stringify({ version: 1, events: ourCtx.events, turns: ourCtx.turns, savedAt: Date.now() }), { mode: 0o600 });
    files.push({ live: liveCtx, merged: join(M, 'context.json') });
  }
}
