import { dict, type DictKey } from '../i18n-dict';

type T = (k: DictKey, v?: Record<string, string | number>) => string;

/** What the session log (and what is read from it) holds in place of a forgotten text. */
export const FORGOTTEN_TEXT = '[forgotten]';

/** `prefix + word` translated when the dictionary has it, else the word as the daemon sent it. */
function word(t: T, prefix: string, w: string): string {
  const key = `${prefix}${w}`;
  return key in dict.en ? t(key as DictKey) : w;
}

/** A kind of memory change (`relation`, `plan` …) in the person's language. */
export const changeKindLabel = (t: T, kind: string) => word(t, 'history.kind.', kind);
/** What a change did (`create`, `addMemory` …) in the person's language. */
export const changeOpLabel = (t: T, op: string) => word(t, 'history.op.', op);
/** Who made a change (`user`, `agent` …) in the person's language. */
export const actorLabel = (t: T, actor: string) => word(t, 'history.actor.', actor);
/** What a change's actor was doing (a heartbeat loop's name: `rules` …; a tool's name stays as it is). */
export const toolLabel = (t: T, tool: string) => word(t, 'history.tool.', tool);
/** Where something of memory lives (`session-log`, `context`, `archive` …) in the person's language. */
export const tierLabel = (t: T, tier: string) => word(t, 'tier.', tier);
/** A plugin's kind (`builtin`, `external` …) in the person's language. */
export const pluginKindLabel = (t: T, kind: string) => word(t, 'plugins.kind.', kind);
/** A text as shown: the log's `[forgotten]` placeholder in the person's language. */
export const shownText = (t: T, text: string) => (text === FORGOTTEN_TEXT ? t('chat.forgottenText') : text);

/** The badge of a change in the history: kind and what was done (once when they are the same word). */
export function changeBadge(t: T, kind: string, op: string): string {
  return kind === op ? changeKindLabel(t, kind) : `${changeKindLabel(t, kind)} · ${changeOpLabel(t, op)}`;
}
