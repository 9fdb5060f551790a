/**
 * Every sentence a chat channel says about itself — its state's detail, a connection test's
 * failure — as a stable code and its parameters (decision 0680). The channel still sends the English
 * sentence beside it (`detail`, `error.message`): `waiter status`, the logs and a page that does not
 * know a code show that. The WebUI words each code here in its language (`channels.say.<code>` in
 * `web/src/i18n-dict.ts`; `test/builtin-texts.test.ts` fails for a code the page cannot word).
 */
export const CHANNEL_WORD_CODES = [
  // Either channel.
  'CHANNEL_STOPPED',
  'CHANNEL_FAILED',
  // Telegram.
  'TELEGRAM_NO_TOKEN',
  'TELEGRAM_NOT_CONFIGURED',
  'TELEGRAM_CHECKING_TOKEN',
  'TELEGRAM_POLLING',
  'TELEGRAM_UNREACHABLE',
  'TELEGRAM_PROXY_FAILED',
  'TELEGRAM_TOKEN_REJECTED',
  'TELEGRAM_TOKEN_REJECTED_STOPPED',
  'TELEGRAM_RATE_LIMITED',
  'TELEGRAM_CONFLICT',
  'TELEGRAM_API',
  'TELEGRAM_STAGE_FAILED',
  // QQ through OneBot.
  'QQ_OFF',
  'QQ_NOT_CONFIGURED',
  'ONEBOT_CONNECTING',
  'ONEBOT_CONNECTED',
  'ONEBOT_CONNECTION_CLOSED',
  'ONEBOT_CLOSED_RETRYING',
  'ONEBOT_CANNOT_REACH',
  'ONEBOT_TOKEN_REJECTED',
  'ONEBOT_TOKEN_REJECTED_STOPPED',
  'ONEBOT_NOT_CONNECTED',
  'ONEBOT_NO_ANSWER',
  'ONEBOT_ACTION_FAILED',
  'ONEBOT_REVERSE_NEEDS_TOKEN',
  'ONEBOT_REVERSE_SHORT_TOKEN',
  'ONEBOT_LISTEN_FAILED',
  'ONEBOT_LISTENING',
  'ONEBOT_DISCONNECTED',
  'ONEBOT_REVERSE_WAITING',
] as const;

/** A code of {@link CHANNEL_WORD_CODES}. */
export type ChannelWordCode = (typeof CHANNEL_WORD_CODES)[number];

/**
 * A channel's sentence for the page to word: `code` names the sentence, `params` fill it (URLs,
 * error numbers, a Bot API description — as they came, never translated by the daemon). A reason
 * such as `ECONNREFUSED` is sent as the raw code; the page gives it a short phrase.
 *
 * @example { code: 'TELEGRAM_UNREACHABLE', params: { method: 'getMe', reason: 'ECONNREFUSED' } }
 */
export interface ChannelWords {
  code: ChannelWordCode;
  params?: Record<string, string | number | boolean>;
}

/** Builds a {@link ChannelWords}, leaving out parameters that are undefined. */
export function channelWords(code: ChannelWordCode, params?: Record<string, string | number | boolean | undefined>): ChannelWords {
  const p = Object.fromEntries(Object.entries(params ?? {}).filter((e): e is [string, string | number | boolean] => e[1] !== undefined));
  return Object.keys(p).length ? { code, params: p } : { code };
}

/** The words an error of a channel carries (`words` on Telegram's and OneBot's error classes), if any. */
export function wordsOf(e: unknown): ChannelWords | undefined {
  const w = (e as { words?: unknown } | null)?.words;
  return w && typeof w === 'object' && typeof (w as ChannelWords).code === 'string' ? (w as ChannelWords) : undefined;
}

/** A connection test's failure as the routes answer it: the error's code and English message, and its words. */
export function testFailure(e: unknown, code: string, message: string): { code: string; message: string; words?: ChannelWords } {
  const words = wordsOf(e);
  return { code, message, ...(words ? { words } : {}) };
}
