/**
 * Who said something, and where (R-5, issue 13 part 5). A chat channel (Telegram, QQ …) puts both
 * on every input as data: the kernel carries them into the session log (the user event's
 * `data.speaker` / `data.conversation`), the context timeline (`ContextEvent.speaker` /
 * `.conversation`) and the prompt query of every slot provider (`PromptQuery`), so the memory
 * tiers can scope what they recall without parsing text. Inputs without them (the WebUI, `waiter`)
 * come from the owner, in a private place.
 */

/**
 * The person who said it. `id` is stable and unique across platforms: `<platform>:<user id>`
 * (`telegram:42`, `qq:10001`). The owner of the agent, when a tier records them, is `{ id: 'user' }`
 * and the agent itself `{ id: 'assistant' }`. Linking one person's identities across channels maps
 * several ids to one person; the ids themselves never change.
 */
export interface Speaker {
  /** `<platform>:<user id>` for channel users; `user` (owner) / `assistant` otherwise. */
  id: string;
  /** Display name as the platform shows it (may change; never an identity). */
  name?: string;
  /** `telegram`, `qq` … (absent for the owner's own WebUI/CLI turns). */
  platform?: string;
  /** The platform's own user id, as a string (`42`, `10001`). */
  userId?: string;
}

/**
 * Where it was said. `private`: a one-to-one chat with the agent (the owner's WebUI and CLI
 * sessions count as private). `group`: several people read it — what was said in a private place
 * must never be shown there.
 */
export interface Conversation {
  kind: 'private' | 'group';
  /** Stable id of the place, the session id of its chat: `telegram:42`, `qq:group:123456`. */
  id: string;
  platform?: string;
  /** Group name or the other person's name, for display. */
  title?: string;
}

/** The speaker id of the agent's owner (WebUI, CLI, and channel users the owner linked to themselves). */
export const OWNER_SPEAKER_ID = 'user';
