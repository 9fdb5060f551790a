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

/** The user ids of the built-in chat apps: numbers (Telegram's user ids, QQ numbers). */
const NUMERIC_USER_IDS: Record<string, RegExp> = { telegram: /^\d{1,20}$/, qq: /^\d{1,20}$/ };
/** Short names people write for a built-in chat app. */
const APP_ALIASES: Record<string, string> = { tg: 'telegram' };

/**
 * Why `<platform>:<user id>` cannot be someone on a built-in chat app (`telegram:abc`: Telegram's
 * user ids are numbers), or undefined when it can — an id of another app is taken as it is written.
 */
export function speakerIdProblem(id: string): string | undefined {
  const at = id.indexOf(':');
  const written = id.slice(0, at);
  const app = written.toLowerCase();
  // Channels say their ids in small letters and in full (telegram:42): "Telegram:42" or "tg:42" would
  // never match a speaker, and the person would not know why their own chat saw so little.
  const meant = APP_ALIASES[app] ?? app;
  if (meant in NUMERIC_USER_IDS && written !== meant) return `${id} would never match: write it as ${meant}:${id.slice(at + 1)}`;
  const rule = NUMERIC_USER_IDS[app];
  if (!rule || rule.test(id.slice(at + 1))) return undefined;
  return app === 'qq' ? `${id} is not a QQ user: a QQ user is a QQ number, such as qq:123456789` : `${id} is not a Telegram user: a Telegram user id is a number, such as telegram:123456789`;
}
