import type { Conversation, Speaker } from './speaker.js';
import { OWNER_SPEAKER_ID } from './speaker.js';

/**
 * People (issue 13 part 5, decision 0090): the owner links one person's identities across chat
 * channels (`telegram:42` and `qq:10001` are Alice) so their facts follow them. A person is a name
 * and the speaker ids linked to it; the ids themselves never change. The owner is the person
 * `owner`: their ids are the linked ones plus `core.identity.owner_ids` (still honoured).
 */
export interface LinkedPerson {
  /** `owner`, or `p-<hex>` for everyone else. */
  id: string;
  name: string;
  /** Whether this is the agent's owner (their chats see everything, R-5). */
  owner: boolean;
  /** Linked speaker ids (`telegram:42`, `qq:10001`), sorted. */
  ids: string[];
  /** The owner's ids that come from `core.identity.owner_ids` (change them there, not by unlinking). */
  configIds?: string[];
  createdAt: number;
  updatedAt: number;
}

/** The person id of the agent's owner. */
export const OWNER_PERSON_ID = 'owner';

/**
 * Read side of the people registry, as the kernel and the memory tiers need it. Linking is a
 * privileged write of the person (WebUI, `waiter people`, the local API) — never a tool.
 */
export interface PeopleDirectory {
  /** Every person, the owner first. */
  list(): LinkedPerson[];
  /** The person a speaker id is linked to (the owner for `user` and `core.identity.owner_ids`). */
  personOf(speakerId: string): LinkedPerson | undefined;
  /**
   * The conversations a turn's memory must stay inside: undefined for the owner in their
   * own places (everything); a group's own id; for a private chat with someone else, that chat
   * and the private chats of every other id linked to the same person (as {@link notePrivateChat}
   * recorded them), so their facts follow them and nobody else's reach them.
   */
  scopeOf(speaker: Speaker | undefined, conversation: Conversation | undefined): readonly string[] | undefined;
  /**
   * Records whose private chat a conversation is (the kernel calls it for every private channel
   * turn). A private chat has one other party for ever: the first speaker seen keeps it. True when
   * the chat was new (recorded now), false when it was known or could not be recorded.
   */
  notePrivateChat(speakerId: string, conversationId: string): boolean;
}

/** Whose a turn is, for what it may see and call (R-5, decisions 0090 and 0360). */
export interface TurnAudience {
  /** The owner speaks (no speaker: the WebUI, `waiter`, the API; or one of the owner's ids). */
  owner: boolean;
  /** The conversations the turn's memory must stay inside; undefined: everything. */
  scope: readonly string[] | undefined;
}

/**
 * The one rule for who a turn is (decision 0360): the kernel scopes the timeline with it, gates
 * owner-only tools with it, and the memory tools scope what they return with it. The owner is a
 * turn without a speaker, the speaker `user`, an id linked to the owner, or an id in
 * `core.identity.owner_ids`. The scope is {@link PeopleDirectory.scopeOf} when there is a people
 * registry; without one a group, or a private chat with anyone but the owner, sees only itself.
 */
export function turnAudience(speaker: Speaker | undefined, conversation: Conversation | undefined, ownerIds: readonly string[], people?: PeopleDirectory): TurnAudience {
  const person = speaker ? people?.personOf(speaker.id) : undefined;
  const owner = !speaker || speaker.id === OWNER_SPEAKER_ID || (person?.owner ?? false) || ownerIds.includes(speaker.id);
  let scope = people ? people.scopeOf(speaker, conversation) : conversation && (conversation.kind === 'group' || !owner) ? [conversation.id] : undefined;
  // The owner's own private chat sees everything — also by an id only in `owner_ids`, not linked.
  if (owner && conversation?.kind === 'private') scope = undefined;
  // Someone else never sees everything: a turn with a speaker but no conversation (a channel
  // plugin that names no chat) gets a closed world, not the owner's.
  if (!owner && scope === undefined) scope = conversation ? [conversation.id] : [];
  return { owner, scope };
}
