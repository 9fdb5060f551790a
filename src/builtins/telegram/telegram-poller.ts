import { readFile } from 'node:fs/promises';
import { writeJsonAtomic } from '../../sdk/index.js';
import type { PluginLogger } from '../../sdk/index.js';
import { Backoff, channelWords, sleep, wordsOf, type ChannelWords } from '../shared/index.js';
import { TelegramApiError, TelegramUnreachableError, type TelegramBotApi } from './bot-api.js';
import type { TgUser } from './bot-types.js';

/** What the channel shows in Settings (`GET /api/v1/channels/telegram`). */
export interface PollerState {
  status: 'idle' | 'connecting' | 'running' | 'retrying' | 'error';
  /** Human-readable: why it is idle, retrying or in error (English; `waiter status` prints it). */
  detail?: string;
  /** The same as a code and its parameters, for the page to word in its language (decision 0680). */
  words?: ChannelWords;
  /** The bot, once getMe answered. */
  bot?: { id: number; username?: string; name?: string };
  /** When the next attempt is due (retrying). */
  retryAt?: number;
  since: number;
}

export interface PollerOptions {
  api: TelegramBotApi;
  /** Long-poll wait in seconds (getUpdates `timeout`). */
  pollSeconds: number;
  /** File that keeps the next update offset across restarts. */
  offsetFile: string;
  onUpdate: (update: unknown) => Promise<unknown>;
  onState?: (s: PollerState) => void;
  log: PluginLogger;
  backoff?: Backoff;
  /** Least wait after a 409 Conflict (default 30 s). */
  conflictWaitMs?: number;
  now?: () => number;
}

/** How often one update is handed to the agent before it is skipped (a failing log write is retried). */
const UPDATE_TRIES = 3;

/**
 * Long polling of the Bot API (getUpdates with `offset` and `timeout`). Starts without waiting
 * (an unreachable Telegram never holds up the daemon), checks the token with getMe, then polls.
 * Network errors and 5xx back off exponentially (1 s … 60 s); 429 waits `retry_after`; 409 (another
 * poller, or a webhook is set) retries slowly with the reason shown; a rejected token (401/404)
 * stops polling with a clear error until the settings change. Updates are handled one at a time
 * and confirmed only after their handler ran; the offset survives a restart.
 */
export class TelegramPoller {
  private ac: AbortController | undefined;
  private loop: Promise<void> | undefined;
  private offset: number | undefined;
  private current: PollerState;
  private readonly backoff: Backoff;
  /** The update that failed last and how often (to retry it a few times before skipping it). */
  private unhandled: { id: unknown; tries: number } | undefined;
  private readonly now: () => number;

  constructor(private readonly o: PollerOptions) {
    this.backoff = o.backoff ?? new Backoff(1000, 60_000);
    this.now = o.now ?? Date.now;
    this.current = { status: 'idle', since: this.now() };
  }

  get state(): PollerState {
    return this.current;
  }

  start(): void {
    if (this.loop) return;
    this.ac = new AbortController();
    this.loop = this.run(this.ac.signal).catch((e) => {
      this.set({ status: 'error', detail: `stopped: ${(e as Error).message}`, words: channelWords('CHANNEL_FAILED', { reason: (e as Error).message }) });
      this.o.log.error('Telegram poller stopped', { error: (e as Error).message });
    });
  }

  /** Stops polling (the long poll in flight is aborted). Safe twice. */
  async stop(): Promise<void> {
    this.ac?.abort();
    await this.loop;
    this.loop = undefined;
    this.ac = undefined;
    if (this.current.status !== 'error') this.set({ status: 'idle', detail: 'stopped', words: channelWords('CHANNEL_STOPPED') });
  }

  private set(s: Omit<PollerState, 'since'>): void {
    this.current = { ...s, bot: s.bot ?? this.current.bot, since: this.now() };
    this.o.onState?.(this.current);
  }

  private async readOffset(): Promise<number | undefined> {
    try {
      const v = JSON.parse(await readFile(this.o.offsetFile, 'utf8')) as { offset?: unknown };
      return typeof v.offset === 'number' && Number.isSafeInteger(v.offset) ? v.offset : undefined;
    } catch {
      return undefined;
    }
  }

  /** Waits after a failure; false when the poller should stop for good (token rejected, or stopped). */
  private async failed(e: unknown, signal: AbortSignal, stage: string): Promise<boolean> {
    if (signal.aborted) return false;
    if (e instanceof TelegramApiError && e.tokenRejected) {
      this.set({
        status: 'error',
        detail: `Telegram rejected the bot token (${e.errorCode} ${e.description}). Check "Bot token"; polling stopped until it changes.`,
        words: channelWords('TELEGRAM_TOKEN_REJECTED_STOPPED', { errorCode: e.errorCode, description: e.description }),
      });
      this.o.log.error('Telegram rejected the bot token; polling stopped until the setting changes', { errorCode: e.errorCode });
      return false;
    }
    const retryAfter = e instanceof TelegramApiError && e.retryAfter !== undefined ? e.retryAfter * 1000 : undefined;
    const conflict = e instanceof TelegramApiError && e.errorCode === 409;
    const base = this.backoff.next(retryAfter);
    // A conflict resolves only when the other poller stops (or the webhook is removed): ask slowly.
    const wait = conflict && retryAfter === undefined ? Math.max(this.o.conflictWaitMs ?? 30_000, base) : base;
    const why = conflict ? `${(e as TelegramApiError).description} (another copy of this bot is polling, or a webhook is set)` : (e as Error).message;
    const words = conflict
      ? channelWords('TELEGRAM_CONFLICT', { stage, description: (e as TelegramApiError).description })
      : e instanceof TelegramUnreachableError || e instanceof TelegramApiError
        ? wordsOf(e)
        : channelWords('TELEGRAM_STAGE_FAILED', { stage, reason: why });
    // An unreachable Bot API already names the call ("Telegram getMe: …"): no second prefix.
    this.set({ status: 'retrying', detail: e instanceof TelegramUnreachableError ? why : `${stage}: ${why}`, words, retryAt: this.now() + wait });
    this.o.log.warn(`Telegram ${stage} failed; retrying in ${Math.round(wait / 1000)} s`, { error: why, attempt: this.backoff.attempts });
    await sleep(wait, signal);
    return !signal.aborted;
  }

  private async run(signal: AbortSignal): Promise<void> {
    this.offset = await this.readOffset();
    this.set({ status: 'connecting', detail: 'checking the bot token (getMe)', words: channelWords('TELEGRAM_CHECKING_TOKEN') });
    let me: TgUser | undefined;
    while (!me) {
      try {
        me = await this.o.api.getMe(signal);
      } catch (e) {
        if (!(await this.failed(e, signal, 'getMe'))) return;
      }
    }
    const bot = { id: me.id, username: me.username, name: me.first_name };
    this.backoff.reset();
    const polling = { status: 'running', bot, detail: `polling as @${me.username ?? me.id}`, words: channelWords('TELEGRAM_POLLING', { bot: `@${me.username ?? me.id}` }) } as const;
    this.set(polling);
    this.o.log.info(`Telegram bot @${me.username ?? me.id} is polling`);
    while (!signal.aborted) {
      let updates: unknown[];
      try {
        updates = await this.o.api.getUpdates(this.offset, this.o.pollSeconds, signal);
        if (!Array.isArray(updates)) throw new TelegramApiError('getUpdates', 502, 'the answer was not a list of updates');
      } catch (e) {
        if (!(await this.failed(e, signal, 'getUpdates'))) return;
        continue;
      }
      if (this.current.status !== 'running') this.set(polling);
      this.backoff.reset();
      for (const u of updates) {
        if (signal.aborted) return;
        const id = (u as { update_id?: unknown })?.update_id;
        try {
          await this.o.onUpdate(u);
          this.unhandled = undefined;
        } catch (e) {
          // Not confirmed to Telegram (the offset stays), so it comes again after a pause: a message
          // whose log write failed is not lost. A few tries, then it is skipped — one update that
          // always fails must not stop the bot.
          const last = this.unhandled;
          const tries = last && last.id === id ? last.tries + 1 : 1;
          this.unhandled = { id, tries };
          if (tries < UPDATE_TRIES && typeof id === 'number') {
            if (!(await this.failed(e, signal, 'handling an update'))) return;
            break;
          }
          this.o.log.error('handling a Telegram update failed; skipped', { error: (e as Error).message, tries });
        }
        if (typeof id === 'number' && Number.isSafeInteger(id)) {
          this.offset = Math.max(this.offset ?? 0, id + 1);
          // Kept before the next update: a crash now does not hand this one to the agent twice.
          await writeJsonAtomic(this.o.offsetFile, { offset: this.offset }).catch((e) => this.o.log.warn('could not save the update offset', { error: (e as Error).message }));
        }
      }
    }
  }
}
