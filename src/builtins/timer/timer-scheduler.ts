import { randomBytes } from 'node:crypto';
import { Cron } from 'croner';
import { canonicalTimeZone, localStampWithOffset, NotFoundError, systemTimeZone, ValidationError } from '../../spec/index.js';
import type { TimerCreator, TimerRecord, TimerStore } from './timer-store.js';
import { parseWhen } from './parse-when.js';

/** What to create: exactly one of `when` (one-shot) or `cron`. */
export interface TimerSpec {
  text: string;
  sessionId: string;
  when?: string;
  cron?: string;
  timezone?: string;
  delivery?: 'input' | 'interrupt';
  creator?: TimerCreator;
}

export interface TimerSchedulerOptions {
  store: TimerStore;
  /** Delivers a due timer; `note` explains a late (missed) delivery. */
  deliver: (timer: TimerRecord, note?: string) => void;
  now?: () => number;
  maxTimers?: number;
  /**
   * The person's time zone (an IANA name, `core.agent.timezone` resolved; decision 0270): what an
   * ISO time without an offset means and what times in notes are shown in. Default: the system's.
   */
  timeZone?: () => string;
  /**
   * Default zone of cron timers created without their own (`plugin.timer.timezone`); empty: the
   * person's zone. A cron timer without its own zone follows this default when it changes.
   */
  defaultTimezone?: () => string;
  log?: { warn(msg: string, data?: Record<string, unknown>): void };
}

function nextCron(pattern: string, timezone: string | undefined, after: number): number | undefined {
  const c = new Cron(pattern, { timezone: timezone || undefined, paused: true });
  try {
    return c.nextRun(new Date(after))?.getTime();
  } finally {
    c.stop();
  }
}

/** Checks a time zone name; throws ValidationError when the runtime does not know it. */
export function assertTimezone(tz: string): void {
  if (canonicalTimeZone(tz) === undefined) throw new ValidationError(`unknown time zone ${JSON.stringify(tz)} (use an IANA name such as Asia/Shanghai)`, { timezone: tz });
}

/**
 * Keeps cron and one-shot timers, persisted through a TimerStore. Time comes from an injected
 * `now()`, and `tick()` fires whatever is due — the plugin calls it from a real interval, tests
 * call it directly after moving their clock, so no test sleeps.
 */
export class TimerScheduler {
  private timers: TimerRecord[] = [];
  private readonly now: () => number;
  private chain: Promise<unknown> = Promise.resolve();
  /** The default cron zone the zone-less cron timers' next runs were computed in. */
  private computedIn: string | undefined;

  constructor(private readonly opts: TimerSchedulerOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** The person's zone (decision 0270). */
  timeZone(): string {
    return canonicalTimeZone(this.opts.timeZone?.()) ?? systemTimeZone();
  }

  /** The zone a cron timer runs in: its own, else `plugin.timer.timezone`, else the person's. */
  zoneOf(t: Pick<TimerRecord, 'timezone'>): string {
    return canonicalTimeZone(t.timezone) ?? this.defaultZone();
  }

  private defaultZone(): string {
    return canonicalTimeZone(this.opts.defaultTimezone?.()) ?? this.timeZone();
  }

  /**
   * Loads the timers. One-shots that came due while HomeAgent was down fire once now, with a
   * note; cron timers skip the runs they missed and move to their next run.
   */
  async open(): Promise<number> {
    this.timers = await this.opts.store.load((m) => this.opts.log?.warn('timers file was corrupt; kept aside', { movedTo: m }));
    const now = this.now();
    let missed = 0;
    for (const t of [...this.timers]) {
      if (t.nextAt > now) continue;
      if (t.kind === 'once') {
        missed++;
        this.fire(t, `missed while HomeAgent was not running; it was due at ${localStampWithOffset(t.nextAt, this.timeZone())}`);
      } else {
        const next = this.safeNext(t, now);
        if (next === undefined) this.remove(t.id);
        else t.nextAt = next;
      }
    }
    this.computedIn = this.defaultZone();
    await this.persist();
    return missed;
  }

  list(): TimerRecord[] {
    return [...this.timers].sort((a, b) => a.nextAt - b.nextAt).map((t) => ({ ...t }));
  }

  async create(spec: TimerSpec): Promise<TimerRecord> {
    if (!spec.text?.trim()) throw new ValidationError('a timer needs a text', { field: 'text' });
    if (!!spec.when === !!spec.cron) throw new ValidationError('give exactly one of "when" (one-shot) or "cron" (repeating)', { field: 'when' });
    if (this.timers.length >= (this.opts.maxTimers ?? 200)) throw new ValidationError(`too many timers (max ${this.opts.maxTimers ?? 200}); cancel some first`, { field: 'count' });
    const now = this.now();
    const base = { id: `t${now.toString(36)}${randomBytes(3).toString('hex')}`, text: spec.text.trim(), sessionId: spec.sessionId, delivery: spec.delivery ?? 'input', createdAt: now, ...(spec.creator ? { creator: spec.creator } : {}), fired: 0 } as const;
    let rec: TimerRecord;
    if (spec.cron) {
      // Only a zone the timer was given is kept with it; without one it follows the default (decision 0270).
      const timezone = spec.timezone || undefined;
      if (timezone) assertTimezone(timezone);
      let next: number | undefined;
      try {
        next = nextCron(spec.cron, this.zoneOf({ timezone }), now);
      } catch (e) {
        throw new ValidationError(`invalid cron pattern ${JSON.stringify(spec.cron)}: ${(e as Error).message}`, { field: 'cron' });
      }
      if (next === undefined) throw new ValidationError(`cron pattern ${JSON.stringify(spec.cron)} never fires`, { field: 'cron' });
      rec = { ...base, kind: 'cron', cron: spec.cron, timezone, nextAt: next };
    } else {
      rec = { ...base, kind: 'once', nextAt: parseWhen(spec.when!, now, this.timeZone()) };
    }
    this.timers.push(rec);
    await this.persist();
    return { ...rec };
  }

  async cancel(id: string): Promise<TimerRecord> {
    const t = this.timers.find((x) => x.id === id);
    if (!t) throw new NotFoundError('timer', id);
    this.remove(id);
    await this.persist();
    return { ...t };
  }

  /**
   * Fires every timer that is due at `now()`; returns how many fired. First, when the default cron
   * zone changed (the person moved, `core.agent.timezone` or `plugin.timer.timezone`), the cron
   * timers without their own zone move their next run to the new zone's wall clock.
   */
  async tick(): Promise<number> {
    const now = this.now();
    if (this.rezone(now)) await this.persist();
    const due = this.timers.filter((t) => t.nextAt <= now);
    if (due.length === 0) return 0;
    for (const t of due) {
      if (t.kind === 'once') this.fire(t);
      else {
        this.fire(t);
        const next = this.safeNext(t, now);
        if (next === undefined) this.remove(t.id);
        else t.nextAt = next;
      }
    }
    await this.persist();
    return due.length;
  }

  private fire(t: TimerRecord, note?: string): void {
    t.lastFiredAt = this.now();
    t.fired++;
    if (t.kind === 'once') this.remove(t.id);
    try {
      this.opts.deliver({ ...t }, note);
    } catch (e) {
      this.opts.log?.warn('timer delivery failed', { id: t.id, error: String(e) });
    }
  }

  /** Recomputes the next run of zone-less cron timers after the default zone changed; true when it did. */
  private rezone(now: number): boolean {
    const zone = this.defaultZone();
    if (this.computedIn === zone) return false;
    const first = this.computedIn === undefined;
    this.computedIn = zone;
    if (first) return false;
    let changed = false;
    for (const t of [...this.timers]) {
      if (t.kind !== 'cron' || canonicalTimeZone(t.timezone) !== undefined) continue;
      const next = this.safeNext(t, now);
      if (next === undefined) this.remove(t.id);
      else t.nextAt = next;
      changed = true;
    }
    return changed;
  }

  private safeNext(t: TimerRecord, after: number): number | undefined {
    try {
      return nextCron(t.cron ?? '', this.zoneOf(t), after);
    } catch (e) {
      this.opts.log?.warn('dropping a cron timer whose pattern no longer parses', { id: t.id, error: String(e) });
      return undefined;
    }
  }

  private remove(id: string): void {
    this.timers = this.timers.filter((x) => x.id !== id);
  }

  private persist(): Promise<void> {
    const snapshot = this.timers.map((t) => ({ ...t }));
    const next = this.chain.then(() => this.opts.store.save(snapshot));
    this.chain = next.catch(() => {});
    return next;
  }
}
