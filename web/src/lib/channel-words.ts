import { dict, type DictKey } from '../i18n-dict';
import { translate, type Lang } from '../i18n';

/**
 * A chat channel's sentence as the daemon sends it beside its English (decision 0680): a stable
 * code and its parameters (`src/builtins/shared/channel-words.ts`).
 */
export interface ChannelWords {
  code: string;
  params?: Record<string, string | number | boolean>;
}

const known = (key: string): key is DictKey => key in dict.en;

/** Network error numbers said as a short phrase, the raw code kept in brackets ("连接被拒绝（ECONNREFUSED）"). */
export function reasonPhrase(lang: Lang, reason: string): string {
  if (reason === 'timed out') return translate(lang, 'channels.reason.timedOut');
  const key = `channels.reason.${reason}`;
  return known(key) ? translate(lang, 'channels.reason.withCode', { phrase: translate(lang, key), code: reason }) : reason;
}

/**
 * A channel's state detail or test failure in the page's language, from its code and parameters; a
 * code this page does not know (a newer daemon, another plugin) gives `fallback`, the daemon's English.
 */
export function channelSentence(lang: Lang, words: ChannelWords | undefined, fallback: string): string {
  const key = words ? `channels.say.${words.code}` : '';
  if (!words || !known(key)) return fallback;
  const p = words.params ?? {};
  const vars: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(p)) if (typeof v !== 'boolean') vars[k] = v;
  if (typeof p.reason === 'string') vars.reason = reasonPhrase(lang, p.reason);
  if (p.stage === 'handling an update') vars.stage = translate(lang, 'channels.stage.update');
  if (words.code === 'ONEBOT_ACTION_FAILED') vars.message = p.message ? `${lang === 'zh' ? '：' : ': '}${p.message}` : '';
  if (words.code === 'ONEBOT_REVERSE_WAITING' && !p.url) vars.url = translate(lang, 'channels.say.hereUrl');
  const text = translate(lang, key, vars);
  return words.code === 'ONEBOT_LISTENING' && p.open === true ? text + translate(lang, 'channels.say.ONEBOT_LISTENING.open') : text;
}

/** Whole seconds until `retryAt` (never below 0). */
export function secondsLeft(retryAt: number, now: number): number {
  return Math.max(0, Math.ceil((retryAt - now) / 1000));
}

/** "Retrying in 7 s" counting down to "Retrying now…" (the attempt is due or under way). */
export function retryPhrase(lang: Lang, retryAt: number, now: number): string {
  const n = secondsLeft(retryAt, now);
  return n > 0 ? translate(lang, 'channels.retryIn', { n }) : translate(lang, 'channels.retryNow');
}
