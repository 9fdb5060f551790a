/** The Telegram channel: Bot API long polling, private chats with an allowlist, the `telegram` output channel. */
export { createTelegramPlugin, telegramPlugin, type TelegramStatus } from './telegram-plugin.js';
export { TelegramBotApi, TelegramApiError, TelegramUnreachableError } from './bot-api.js';
export { TELEGRAM_LIMITS } from './bot-types.js';
