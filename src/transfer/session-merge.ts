import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importNote, REPLACES_META_KEY } from '../spec/index.js';
import { forgetInLogBytes, SESSION_ID_RE, sessionFileStem } from '../sessions/index.js';
import type { MergeContext } from './merge-context.js';
import type { RefMap } from './ref-map.js';
import { closeUnanswered, eventKeys, isPrefix, isReadableEvent, logLines, serialise, unreadableLines } from './session-log-lines.js';
import type { StagedExport } from './staged-export.js';

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** A free session id for an imported session that clashes with ours (keep-both). */
function freeSessionId(id: string, taken: (id: string) => boolean): string {
  for (let n = 1; n < 1000; n++) {
    const suffix = `.imported-${n}`;
    const cand = `${id.slice(0, 128 - suffix.length)}${suffix}`;
    if (SESSION_ID_RE.test(cand) && !cand.includes('..') && !taken(cand)) return cand;
  }
  throw new Error(`no free session id for ${id}`);
}

/** A log event of a session imported under a new id: its turn id, and the turns a deletion marker names. */
function renameEvent(l: Record<string, unknown>, refs: RefMap): Record<string, unknown> {
  const out = { ...l };
  if (typeof l.turnId === 'string') out.turnId = refs.ref(l.turnId) ?? l.turnId;
  const data = l.data as { turnIds?: unknown; meta?: Record<string, unknown> } | undefined;
  if (data && Array.isArray(data.turnIds)) out.data = { ...data, turnIds: data.turnIds.map((t) => (typeof t === 'string' ? (refs.ref(t) ?? t) : t)) };
  // The turn a resent message replaces (decision 0550) is a turn of the same session: renamed with it.
  const replaces = data?.meta?.[REPLACES_META_KEY];
  if (data?.meta && typeof replaces === 'string') out.data = { ...(out.data as object), meta: { ...data.meta, [REPLACES_META_KEY]: refs.ref(replaces) ?? replaces } };
  return out;
}

/**
 * The archive's session logs merged into copies (decisions 0080, 0380, 0540): a log new here comes
 * in, one the same as ours or extended by ours is the same, one that extends ours replaces it, and
 * any other is a conflict the mode settles — `overwrite` only where ours is a prefix of theirs by
 * events, else theirs comes in beside ours under a new id (`refs` renames its turns for every
 * other part). The events of a forgotten turn become `[forgotten]` in their place. Runs first: a
 * rename changes the refs of every other part. Returns the sessions to re-read after the swap and
 * the archive's sessions whose log is the one here after the import (their id here).
 */
export function mergeSessions(c: MergeContext, theirSessions: ReturnType<StagedExport['sessions']>): { sessionIds: string[]; landed: Map<string, string> } {
  const { live, mergedHome: M, mode, refs, files, notes, plan, textForgotten, noteLeftOut } = c;
  const sessDir = join(live.home, 'sessions');
  const mergedSess = join(M, 'sessions');
  mkdirSync(mergedSess, { recursive: true, mode: 0o700 });
  const sessionIds: string[] = [];
  // The archive's sessions whose log is the one here once imported, by their id here (decision 0620).
  const landed = new Map<string, string>();
  const theirIds = new Set(theirSessions.map((s) => s.id));
  const takenSession = (id: string) => existsSync(join(sessDir, `${sessionFileStem(id)}.jsonl`)) || theirIds.has(id);
  for (const s of theirSessions) {
    const p = plan('sessions');
    const theirRaw = readFileSync(s.file);
    // Lines of theirs no store can read are not carried over (they cannot be checked against
    // forget's tombstones); the archive, which keeps them, stays with the person. Said, not silent.
    const theirDamaged = unreadableLines(theirRaw.toString('utf8'));
    if (theirDamaged > 0) notes.push(importNote.theirLinesUnreadable(s.id, theirDamaged));
    // The events of a forgotten turn (or text) become `[forgotten]` in their place, and a title made
    // from them goes — exactly what a forget here leaves in a log (decision 0540): dropped, a log
    // of ours forgotten since this archive was made compared as a conflict with it, and came in
    // beside ours (overwrite, keep-both) under its forgotten message's title. An event that is
    // `[forgotten]` already holds nothing and stays as it is; it was never counted as forgotten.
    const forgotten = forgetInLogBytes(theirRaw, s.id, (e) => {
      const byTurn = refs.forgotten(e.turnId);
      const byText = !byTurn && e.text !== '' && textForgotten(e.text);
      if (byTurn || byText) noteLeftOut(e.turnId, byText);
      return byTurn || byText;
    });
    const isForgottenLine = (l: Record<string, unknown>) => (typeof l.turnId === 'string' && refs.forgotten(l.turnId)) || (typeof l.text === 'string' && l.text !== '' && textForgotten(l.text));
    // An event line no store reads (no seq or kind) is not rewritten by a forget: one of a forgotten turn is left out.
    let theirs = logLines(forgotten.bytes.toString('utf8')).filter((l) => l.type !== 'event' || isReadableEvent(l) || !isForgottenLine(l));
    // Counted in turns (a turn is a message and its reply, tool calls …), not in events.
    p.forgotten += forgotten.turnIds.size;
    const liveFile = join(sessDir, `${sessionFileStem(s.id)}.jsonl`);
    const oursText = readText(liveFile);
    const theirText = serialise(theirs);
    let id = s.id;
    if (oursText === undefined) p.added++;
    else {
      const ours = serialise(logLines(oursText));
      if (ours === theirText || ours.startsWith(theirText)) {
        p.same++;
        landed.set(s.id, s.id);
        continue;
      }
      // A log of ours with lines the store cannot read is never replaced (the merged copy is
      // rebuilt from records: those lines would be gone), even by a log that extends it: a
      // conflict — skipped, or theirs comes in beside it.
      const damaged = unreadableLines(oursText);
      if (damaged > 0) {
        p.conflicts++;
        if (mode === 'skip') {
          p.skipped++;
          notes.push(importNote.ourLinesUnreadableSkipped(s.id, damaged));
          continue;
        }
        notes.push(importNote.ourLinesUnreadableBeside(s.id, damaged));
        id = freeSessionId(s.id, takenSession);
        refs.renameSession(s.id, id);
        p.keptBoth++;
        theirs = theirs.map((l) => (l.type === 'session' ? { ...l, id } : l.type === 'event' ? renameEvent(l, refs) : l));
      } else if (theirText.startsWith(ours)) p.added++;
      else {
        p.conflicts++;
        if (mode === 'skip') {
          p.skipped++;
          continue;
        }
        // Overwrite takes theirs only where ours is a prefix of it (every event of ours is in
        // theirs, in place): a log of ours that diverged has turns the memory tiers still cite
        // (`S#3`), and replacing it would make those refs name other messages or none. Two
        // installs that each chatted as `cli:default` diverge as a rule: theirs is kept beside.
        const diverged = mode === 'overwrite' && !isPrefix(eventKeys(logLines(oursText)), eventKeys(theirs));
        if (mode === 'overwrite' && !diverged) p.overwritten++;
        else {
          if (diverged) notes.push(importNote.diverged(s.id));
          id = freeSessionId(s.id, takenSession);
          refs.renameSession(s.id, id);
          p.keptBoth++;
          theirs = theirs.map((l) => (l.type === 'session' ? { ...l, id } : l.type === 'event' ? renameEvent(l, refs) : l));
        }
      }
    }
    const target = join(mergedSess, `${sessionFileStem(id)}.jsonl`);
    theirs = closeUnanswered(theirs, Date.now());
    writeFileSync(target, serialise(theirs), { mode: 0o600 });
    files.push({ live: join(sessDir, `${sessionFileStem(id)}.jsonl`), merged: target });
    sessionIds.push(id);
    landed.set(s.id, id);
  }
  return { sessionIds, landed };
}
