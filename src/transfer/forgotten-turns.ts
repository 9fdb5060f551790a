import { readFileSync } from 'node:fs';
import type { ForgetLedger, Tombstone } from '../spec/index.js';
import { turnForgotten, turnHash } from '../memory/control/index.js';
import { RefMap } from './ref-map.js';
import { logLines, logTurns } from './session-log-lines.js';
import type { StagedExport } from './staged-export.js';

/** Tombstone refs of a turn id (`sha256:turn:<hex>`). */
export const TURN_STONE = 'sha256:turn:';

/** What an import knows of the archive's forgotten turns (see {@link forgottenTurns}). */
export interface ForgottenTurns {
  /** How the archive's refs become refs here; a forgotten one maps to nothing. */
  refs: RefMap;
  /** The hashes of the archive's turn-id tombstones. */
  theirTurnStones: Set<string>;
  /** The archive's turns left out as forgotten, by where they were forgotten. */
  leftOut: { here: Set<string>; there: Set<string> };
  /** Counts a turn left out (`byTextHere`: a text of it is forgotten here). */
  noteLeftOut(turn: string | undefined, byTextHere?: boolean): void;
}

/**
 * The archive's turns an import leaves out as forgotten: those its tombstones name, and those
 * forgotten here by what was said in them — judged whole over the turn's log, window and archived
 * events — so that every part leaves the same turns out (decisions 0320, 0350, 0540).
 */
export function forgottenTurns(o: {
  ledger: ForgetLedger;
  theirTombs: readonly Tombstone[];
  theirSessions: ReturnType<StagedExport['sessions']>;
  theirDocs: ReturnType<StagedExport['documents']>;
  theirCtx: ReturnType<StagedExport['context']>;
  textForgotten: (t: string) => boolean;
  pairForgotten: (m: string, r: string) => boolean;
}): ForgottenTurns {
  const { textForgotten, pairForgotten, theirTombs, theirSessions, theirDocs, theirCtx } = o;
  // Turns of theirs forgotten here by what was said in them (decision 0320): a message forgotten
  // (content), or a message with its reply (pair). Such a turn is left out whole — its log
  // events, window events, documents, archived rows and graph sources — also when its session
  // comes in under a new id (keep-both), where its turn id cannot tell.
  const forgottenRefs = new Set(theirTombs.map((t) => t.ref));
  // The same whole-turn test as applying tombstones here (`turnForgotten`): any whole text of the
  // turn with a content tombstone — a reply too, as a tombstone recorded before 0320 may name one
  // (0320 review fix 3: the turn came in as its message alone, its reply dropped event by event) —
  // or a message with an answer carrying a pair tombstone.
  const stones = { turn: () => false, content: textForgotten, pair: pairForgotten, fact: () => false, doc: () => false };
  // Turns judged forgotten by what was said in them: forgotten here (the ledger is this install's).
  const judgedHere = new Set<string>();
  const judge = (turn: string | undefined, messages: readonly unknown[], replies: readonly unknown[], others: readonly unknown[] = []) => {
    if (turn === undefined || forgottenRefs.has(turn)) return;
    const said = (x: unknown): x is string => typeof x === 'string' && x.trim() !== '';
    if (turnForgotten(stones, undefined, messages.filter(said), replies.filter(said), others.filter(said))) {
      forgottenRefs.add(turn);
      judgedHere.add(turn);
    }
  };
  if (o.ledger.isForgottenText || o.ledger.isForgottenPair) {
    // Each turn's texts from its log, its window events and its archived events, judged together (a
    // turn has no message only when none of them holds one).
    const texts = new Map<string, { messages: unknown[]; replies: unknown[]; others: unknown[] }>();
    const add = (turn: string | undefined, messages: readonly unknown[], replies: readonly unknown[], others: readonly unknown[] = []) => {
      if (turn === undefined) return;
      let g = texts.get(turn);
      if (!g) texts.set(turn, (g = { messages: [], replies: [], others: [] }));
      g.messages.push(...messages);
      g.replies.push(...replies);
      g.others.push(...others);
    };
    for (const s of theirSessions) for (const [turn, g] of logTurns(logLines(readFileSync(s.file, 'utf8')))) add(turn, g.messages, g.replies, g.others);
    for (const e of theirCtx.events) add(e.refs?.[0], [e.input], [e.response, ...(e.toolOutputs ?? []).map((x) => x.text)]);
    // A document archived from a window event holds its turn's message and reply; a note does not.
    for (const { doc } of theirDocs.docs) if (doc.eventKind === 'user' || doc.eventKind === 'agent') add(doc.refs[0], [doc.input], [doc.response]);
    for (const [turn, g] of texts) judge(turn, g.messages, g.replies, g.others);
  }
  // The archive's turn-id tombstones name turns of the archive's install: `cli:default#5` there is
  // not `cli:default#5` here (session ids are the same on every install). They leave the archive's
  // own turns out, and nothing more — never recorded here, never matched against a turn here
  // (decision 0350). What a forget there took that is here too, its text and pair tombstones find.
  const theirTurnStones = new Set(theirTombs.filter((t) => t.ref.startsWith(TURN_STONE)).map((t) => t.ref.slice(TURN_STONE.length)));
  const refs = new RefMap(o.ledger, forgottenRefs, (ref) => theirTurnStones.size > 0 && ref.includes('#') && theirTurnStones.has(turnHash(ref)));
  // The archive's turns left out as forgotten, by where they were forgotten — for the report's
  // words (decision 0540): the parts count their own items (log turns, window events, documents),
  // a note says how many turns that was and why.
  const forgottenTurns = { here: new Set<string>(), there: new Set<string>() };
  const noteLeftOut = (turn: string | undefined, byTextHere = false): void => {
    if (turn === undefined) return;
    (byTextHere || judgedHere.has(turn) || o.ledger.isForgotten(turn) ? forgottenTurns.here : forgottenTurns.there).add(turn);
  };
  return { refs, theirTurnStones, leftOut: forgottenTurns, noteLeftOut };
}
