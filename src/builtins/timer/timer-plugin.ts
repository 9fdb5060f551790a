import { Cron } from 'croner';
import { z } from 'zod';
import { definePlugin } from '../../sdk/index.js';
import type { ConfigKeyDef, PluginDefinition } from '../../sdk/index.js';
import type { PluginSDK, ToolInvocation } from '../../spec/index.js';
import { HomeAgentError, localStampWithOffset, NotFoundError } from '../../spec/index.js';
import { parseArgs, personTimeZone, toolParameters } from '../shared/index.js';
import { TimerScheduler } from './timer-scheduler.js';
import { TimerStore, type TimerCreator, type TimerRecord } from './timer-store.js';

const settings: Record<string, ConfigKeyDef> = {
  timezone: { default: '', description: 'Default IANA time zone of cron timers (empty = the person’s zone, core.agent.timezone)', schema: z.string().max(100) },
  tick_ms: { default: 1000, description: 'How often due timers are checked', schema: z.number().int().min(50).max(60_000) },
  max_timers: { default: 200, description: 'Most timers that may exist at once', schema: z.number().int().min(1).max(100_000) },
};

const createArgs = z.object({
  text: z.string().min(1).max(4000).describe('What to remind about / the instruction to run when it fires'),
  when: z.string().max(200).optional().describe('One-shot: "in 10 minutes", "1h30m", "10分钟后", or an ISO time — without an offset ("2026-12-01T21:00") it is the user’s local time'),
  cron: z.string().max(200).optional().describe('Repeating: a cron pattern, e.g. "0 9 * * 1-5" (9:00 on weekdays)'),
  timezone: z.string().max(100).optional().describe('IANA time zone of the cron pattern, e.g. Asia/Shanghai (default: the user’s zone)'),
  delivery: z.enum(['input', 'interrupt']).optional().describe('"input" (default): a new message when the agent is free; "interrupt": breaks into the current work'),
  sessionId: z.string().max(200).optional().describe('Session to deliver to (default: this session)'),
});
const cancelArgs = z.object({ id: z.string().min(1).max(100) });

/** Options of `createTimerPlugin` (tests inject a clock and drive `tick()` themselves). */
export interface TimerPluginOptions {
  now?: () => number;
  /** When true no real interval runs; call `scheduler()!.tick()`. */
  manualTick?: boolean;
}

/** A timer as the model reads it: times on the wall clock of the zone it runs in, with the offset (decision 0270). */
function describe(t: TimerRecord, sched: TimerScheduler): string {
  const when =
    t.kind === 'cron'
      ? `cron "${t.cron}" (${sched.zoneOf(t)}${t.timezone ? '' : ', the default zone'}), next ${localStampWithOffset(t.nextAt, sched.zoneOf(t))}`
      : `at ${localStampWithOffset(t.nextAt, sched.timeZone())}`;
  return `${t.id}: ${when} → ${t.delivery} to ${t.sessionId}: ${t.text}`;
}

/** The creator a timer records: the creating turn's speaker and place, and whether it was the owner's (decision 0360). */
function creatorOf(call: ToolInvocation): TimerCreator {
  return { owner: call.owner !== false, ...(call.speaker ? { speaker: call.speaker } : {}), ...(call.conversation ? { conversation: call.conversation } : {}), ...(call.turnId ? { turnId: call.turnId } : {}) };
}

/** How many reminders one person other than the owner may keep (decision 0360, review fix). */
const STRANGER_TIMERS = 5;
/** The shortest gap between two runs of a repeating reminder someone other than the owner sets. */
const STRANGER_CRON_GAP_MS = 60 * 60_000;

/** The shortest gap between the next few runs of a cron pattern (Infinity when it does not parse: the scheduler refuses it, saying why). */
function cronGapMs(pattern: string, timezone: string | undefined): number {
  let c: Cron | undefined;
  try {
    c = new Cron(pattern, { timezone: timezone || undefined, paused: true });
    const runs = c.nextRuns(6).map((d) => d.getTime());
    let gap = Number.POSITIVE_INFINITY;
    for (let i = 1; i < runs.length; i++) gap = Math.min(gap, runs[i] - runs[i - 1]);
    return gap;
  } catch {
    return Number.POSITIVE_INFINITY;
  } finally {
    c?.stop();
  }
}

/**
 * Whether a turn may see or cancel a timer. Someone else: only one their own speaker set in their
 * own session. The owner: every timer in their own places; in a group (a turn with a scope) only
 * those of the conversations that turn may see, since the answer is read by the group — a private
 * reminder's text is not theirs to read.
 */
function ownTimer(t: TimerRecord, call: ToolInvocation): boolean {
  if (call.owner !== false) return !call.scope || call.scope.includes(t.creator?.conversation?.id ?? t.sessionId);
  return t.sessionId === call.sessionId && t.creator !== undefined && !t.creator.owner && t.creator.speaker?.id === call.speaker?.id;
}

/** The speaker an old timer of a group fires as: nobody's id, so it is not the owner. */
const UNKNOWN_CREATOR = { id: 'timer:unknown-creator', name: 'a reminder set before HomeAgent recorded who set it' };

/**
 * Who an old timer (no recorded creator, before decision 0360) fires as. It is the owner's only
 * when its session is one of the owner's own places — no message in it was ever said in a chat
 * channel's conversation. Otherwise it fires in that conversation: a private chat as the chat's
 * other party (the last speaker there), a group as nobody — either way with that chat's scope.
 */
async function legacyCreator(sdk: PluginSDK, sessionId: string): Promise<TimerCreator> {
  let events: Awaited<ReturnType<ReturnType<PluginSDK['sessions']>['events']>> = [];
  try {
    events = await sdk.sessions().events(sessionId);
  } catch {
    events = [];
  }
  const last = [...events].reverse().find((e) => e.kind === 'user' && e.data && typeof e.data.conversation === 'object' && e.data.conversation !== null);
  const conversation = last?.data?.conversation as TimerCreator['conversation'];
  if (!conversation) {
    // A chat session with no message left to read (deleted) is still a chat: its id says so.
    return /^(telegram|qq):/.test(sessionId) ? { owner: false, speaker: UNKNOWN_CREATOR, conversation: { kind: sessionId.includes(':group:') ? 'group' : 'private', id: sessionId } } : { owner: true };
  }
  const speaker = conversation.kind === 'private' ? (last?.data?.speaker as TimerCreator['speaker']) : undefined;
  return { owner: false, speaker: speaker ?? UNKNOWN_CREATOR, conversation };
}

/**
 * Whether a fire is already in its session's log (decision 0390): an input carrying its key
 * (`meta.timerFire`), or — an interrupt carries no key — its text, logged since it fired.
 */
async function alreadyRecorded(sdk: PluginSDK, t: TimerRecord, fire: { key: string; firedAt: number }): Promise<boolean> {
  let events: Awaited<ReturnType<ReturnType<PluginSDK['sessions']>['events']>> = [];
  try {
    events = await sdk.sessions().events(t.sessionId);
  } catch {
    return false;
  }
  const tag = `[timer ${t.id}] `;
  return events.some((e) => {
    const meta = e.data?.meta as Record<string, unknown> | undefined;
    if (e.kind === 'user' && meta?.timerFire === fire.key) return true;
    return t.delivery === 'interrupt' && e.at >= fire.firedAt && (e.kind === 'user' || e.kind === 'interrupt') && e.text.includes(tag);
  });
}

/**
 * Builds the `timer` plugin (P-7): cron and one-shot reminders persisted in its data folder,
 * delivered as input (`injectInput`, source `timer`, trigger `system`) or as an interrupt.
 */
export function createTimerPlugin(opts: TimerPluginOptions = {}): PluginDefinition & { scheduler(): TimerScheduler | undefined } {
  let scheduler: TimerScheduler | undefined;
  let interval: NodeJS.Timeout | undefined;
  const def = definePlugin({
    name: 'timer',
    description: 'Cron and one-shot reminders that inject input or interrupts',
    settings,
    async start(sdk) {
      const s = sdk.settings();
      const sched = new TimerScheduler({
        store: new TimerStore(sdk.dataDir),
        now: opts.now,
        maxTimers: s.get<number>('max_timers'),
        timeZone: () => personTimeZone(sdk),
        defaultTimezone: () => s.get<string>('timezone'),
        log: sdk.log,
        deliver(t, note, fire) {
          const text = `[timer ${t.id}] ${t.text}${note ? `\n(${note})` : ''}`;
          // Resolves once the reminder is in a session log: until then timers.json keeps it as
          // fired-not-delivered, and the next start delivers it (decision 0390).
          return (async () => {
            // After a restart: a fire whose input the log already holds is the kernel's to answer
            // (it resumes unanswered inputs), not to be delivered twice.
            if (fire.restarted && (await alreadyRecorded(sdk, t, fire))) return;
            // The fired turn is its creator's (decision 0360): same speaker, same conversation, so the
            // kernel gives it that turn's scope and tools. Only the owner's timers may interrupt —
            // and not after a restart: the turn it was to break into is gone, so it comes as input.
            const creator = t.creator ?? (await legacyCreator(sdk, t.sessionId));
            if (t.delivery === 'interrupt' && creator.owner && !fire.restarted) {
              await sdk.injectInterrupt({ sessionId: t.sessionId, source: 'timer', text });
              return;
            }
            // The turn's reply reaches the owner proactively (R-6). When the turn fails (no LLM
            // configured, provider down), the reminder itself still reaches them, as a notice.
            const who = { ...(creator.speaker ? { speaker: creator.speaker } : {}), ...(creator.conversation ? { conversation: creator.conversation } : {}) };
            const ticket = sdk.injectInput({ sessionId: t.sessionId, source: 'timer', text, trigger: 'system', ...who, meta: { timerId: t.id, late: !!note, timerFire: fire.key } });
            void ticket.done.then((o) => {
              if (o.status !== 'error') return;
              return sdk.use('host.notify')?.send({ text: `⏰ ${t.text}${note ? ` (${note})` : ''}`, source: 'timer', sessionId: t.sessionId, meta: { timerId: t.id } });
            }).catch((e) => sdk.log.warn('could not deliver a reminder as a notice', { error: String(e) }));
            await ticket.accepted;
          })();
        },
      });
      scheduler = sched;
      // A forget takes the reminders set in the turns it forgets, and those whose text holds what
      // the person said there: a reminder firing later would bring it back (decision 0400). It is
      // registered once the timers are loaded and before any is delivered, and what a forget
      // finished at this start owes it is taken first: a reminder it took is not delivered as
      // missed (decision 0420). After the stop began (`scheduler` unset) it drops nothing.
      const mc = sdk.use('host.memory-control');
      const missed = await sched.open(async () => {
        if (!mc) return;
        sdk.onDispose(
          mc.registerForgetParticipant('timers', {
            find: async () => [],
            describe: async () => [],
            remove: async () => ({ removed: 0, texts: [] }),
            scrub: async (texts, turnIds) => {
              if (scheduler !== sched) return 0;
              const turns = new Set(turnIds);
              return sched.drop((t) => (t.creator?.turnId !== undefined && turns.has(t.creator.turnId)) || texts.some((x) => t.text.includes(x)));
            },
          }),
        );
        await mc.settled?.('timers');
      });
      if (missed) sdk.log.info('delivered reminders missed while stopped', { missed });
      sdk.registerTool({
        name: 'timer_create',
        description: 'Create a reminder: one-shot (when) or repeating (cron). When it fires, its text comes back to you as a message.',
        parameters: toolParameters(createArgs),
        audience: 'anyone',
        async handler(raw, call) {
          const a = parseArgs(createArgs, raw, 'timer_create');
          const creator = creatorOf(call);
          let delivery = a.delivery;
          if (!creator.owner) {
            // Someone else's turn sets reminders for its own chat only, as a new message (decision 0360).
            if (a.sessionId !== undefined && a.sessionId !== call.sessionId) throw new HomeAgentError('FORBIDDEN', 'a reminder set from a group or someone else\'s chat can only go to that same chat');
            delivery = 'input';
            // Each fires a turn the owner pays for, and the timer store is shared: a few per person,
            // repeating at most hourly (the owner's own are not limited this way).
            const theirs = sched.list().filter((t) => t.creator && !t.creator.owner && t.creator.speaker?.id === creator.speaker?.id).length;
            if (theirs >= STRANGER_TIMERS) throw new HomeAgentError('FORBIDDEN', `someone other than the owner can keep at most ${STRANGER_TIMERS} reminders; cancel one first`);
            if (a.cron && cronGapMs(a.cron, a.timezone) < STRANGER_CRON_GAP_MS) throw new HomeAgentError('FORBIDDEN', 'a repeating reminder set by someone other than the owner runs at most once an hour');
          }
          const t = await sched.create({ ...a, delivery, sessionId: a.sessionId ?? call.sessionId, creator });
          return `created ${describe(t, sched)}`;
        },
      });
      sdk.registerTool({
        name: 'timer_list',
        description: 'List the reminders that are set.',
        parameters: toolParameters(z.object({})),
        audience: 'anyone',
        handler: (_raw, call) => {
          const all = sched.list().filter((t) => ownTimer(t, call));
          return all.length ? all.map((t) => describe(t, sched)).join('\n') : 'no timers';
        },
      });
      sdk.registerTool({
        name: 'timer_cancel',
        description: 'Cancel a reminder by id.',
        parameters: toolParameters(cancelArgs),
        audience: 'anyone',
        async handler(raw, call) {
          const a = parseArgs(cancelArgs, raw, 'timer_cancel');
          const mine = sched.list().find((t) => t.id === a.id);
          // A timer the turn may not see is "not found": it does not learn that it exists.
          if (mine && !ownTimer(mine, call)) throw new NotFoundError('timer', a.id);
          return `cancelled ${describe(await sched.cancel(a.id), sched)}`;
        },
      });
      if (!opts.manualTick) {
        const arm = () => {
          if (interval) clearInterval(interval);
          interval = setInterval(() => void sched.tick().catch((e) => sdk.log.error('timer tick failed', { error: String(e) })), s.get<number>('tick_ms'));
          interval.unref?.();
        };
        arm();
        sdk.onDispose(s.onChange((k) => k === 'tick_ms' && arm()));
      }
      sdk.onDispose(async () => {
        if (interval) clearInterval(interval);
        interval = undefined;
        scheduler = undefined;
        await sched.close();
      });
    },
  });
  return Object.assign(def, { scheduler: () => scheduler });
}

/** The timer plugin on the real clock. */
export const timerPlugin = createTimerPlugin();
