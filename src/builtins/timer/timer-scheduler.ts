import { randomBytes } from 'node:crypto';
import { Cron } from 'croner';
import { canonicalTimeZone, localStampWithOffset, NotFoundError, systemTimeZone, ValidationError } from '../../spec/index.js';
import type { FiredReminder, TimerCreator, TimerRecord, TimerStore } from './timer-store.js';
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
  /**
   * Delivers a due timer; `note` explains a late (missed) delivery. May return a promise that
   * resolves once the reminder is recorded (its input in a session log): until then it stays in
   * timers.json as fired-not-delivered, and a restart delivers it again with `fire.restarted`
   * (decision 0390). A rejected promise keeps it for the next start.
   */
  deliver: (timer: TimerRecord, note: string | undefined, fire: { key: string; firedAt: number; restarted: boolean }) => unknown;
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
  /** Fired, not yet recorded by whoever it was delivered to (persisted: decision 0390). */
  private undelivered: FiredReminder[] = [];
  /** Keys of fires handed to `deliver` and not settled yet. */
  private readonly handed = new Set<string>();
  private readonly deliveries = new Set<Promise<unknown>>();
  private closed = false;
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
  async open(beforeDelivery?: () => Promise<void>): Promise<number> {
    const loaded = await this.opts.store.load((m) => this.opts.log?.warn('timers file was corrupt; kept aside', { movedTo: m }));
    this.timers = loaded.timers;
    this.undelivered = [...loaded.undelivered];
    // Loaded, nothing delivered yet: a forget finished at start drops what it owes here first
    // (decision 0420), so a reminder it took is not delivered as missed.
    if (beforeDelivery) await beforeDelivery();
    // Fired before a stop (a kill) and never recorded: delivered now, once (decision 0390).
    const carried = [...this.undelivered];
    const now = this.now();
    let missed = 0;
    const fired: FiredReminder[] = [];
    for (const t of [...this.timers]) {
      if (t.nextAt > now) continue;
      if (t.kind === 'once') {
        missed++;
        fired.push(this.fire(t, `missed while HomeAgent was not running; it was due at ${localStampWithOffset(t.nextAt, this.timeZone())}`));
      } else {
        const next = this.safeNext(t, now);
        if (next === undefined) this.remove(t.id);
        else t.nextAt = next;
      }
    }
    this.computedIn = this.defaultZone();
    await this.persist();
    for (const f of carried) this.deliver(f, true);
    for (const f of fired) this.deliver(f, false);
    return missed + carried.length;
  }

  /** Resolves once every delivery started so far has settled (tests; a clean stop). */
  async settled(): Promise<void> {
    while (this.deliveries.size) await Promise.allSettled([...this.deliveries]);
    await this.chain;
  }

  /**
   * Stops saving: a delivery recorded after this leaves its fire in `undelivered`, and the next
   * start finds its input in the log and does not deliver it again. Waits for the save in flight.
   * Safe to call twice.
   */
  async close(): Promise<void> {
    this.closed = true;
    await this.chain;
  }

  /** Reminders fired and not yet recorded (decision 0390). */
  pending(): FiredReminder[] {
    return this.undelivered.map((f) => ({ ...f, timer: { ...f.timer } }));
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
    const fired: FiredReminder[] = [];
    for (const t of due) {
      fired.push(this.fire(t));
      if (t.kind === 'cron') {
        const next = this.safeNext(t, now);
        if (next === undefined) this.remove(t.id);
        else t.nextAt = next;
      }
    }
    // Saved as fired-not-delivered before it is delivered: a kill from here on loses nothing, and
    // a reminder already recorded in a session log is never left due in timers.json (decision 0390).
    await this.persist();
    for (const f of fired) this.deliver(f, false);
    return due.length;
  }

  /** Marks a timer fired: a one-shot leaves the list, and the fire waits in `undelivered` until recorded. */
  private fire(t: TimerRecord, note?: string): FiredReminder {
    t.lastFiredAt = this.now();
    t.fired++;
    if (t.kind === 'once') this.remove(t.id);
    const f: FiredReminder = { key: `${t.id}#${t.fired}`, timer: { ...t }, ...(note ? { note } : {}), firedAt: t.lastFiredAt };
    this.undelivered.push(f);
    return f;
  }

  /** Hands a fire to `deliver`; once that resolves (recorded), it leaves timers.json. */
  private deliver(f: FiredReminder, restarted: boolean): void {
    // Dropped by a forget while it waited for the save before delivery (decision 0400).
    if (!this.undelivered.some((x) => x.key === f.key)) return;
    this.handed.add(f.key);
    let r: unknown;
    try {
      r = this.opts.deliver({ ...f.timer }, f.note, { key: f.key, firedAt: f.firedAt, restarted });
    } catch (e) {
      // A delivery that throws at once would throw again at every start: it is dropped, as before.
      this.opts.log?.warn('timer delivery failed', { id: f.timer.id, error: String(e) });
      r = undefined;
    }
    const done = Promise.resolve(r).then(
      () => {
        this.undelivered = this.undelivered.filter((x) => x.key !== f.key);
        return this.persist();
      },
      (e: unknown) => this.opts.log?.warn('a reminder could not be recorded; it is delivered again at the next start', { id: f.timer.id, error: String(e) }),
    );
    const tracked = done.catch((e: unknown) => this.opts.log?.warn('could not save timers after a delivery', { id: f.timer.id, error: String(e) }));
    this.deliveries.add(tracked);
    void tracked.finally(() => {
      this.deliveries.delete(tracked);
      this.handed.delete(f.key);
    });
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

  /**
   * Drops every timer, and every fire not yet delivered, that `match` names (a forget, decision
   * 0400); returns how many went. Saved before it resolves.
   */
  async drop(match: (t: TimerRecord) => boolean): Promise<number> {
    const before = this.timers.length + this.undelivered.length;
    this.timers = this.timers.filter((t) => !match(t));
    // A fire already handed to `deliver` is on its way (in the session log soon): not counted.
    this.undelivered = this.undelivered.filter((f) => this.handed.has(f.key) || !match(f.timer));
    const n = before - this.timers.length - this.undelivered.length;
    if (n) await this.persist();
    return n;
  }

  private remove(id: string): void {
    this.timers = this.timers.filter((x) => x.id !== id);
  }

  private persist(): Promise<void> {
    if (this.closed) return Promise.resolve();
    const snapshot = this.timers.map((t) => ({ ...t }));
    const fired = this.undelivered.map((f) => ({ ...f }));
    const next = this.chain.then(() => this.opts.store.save(snapshot, fired));
    this.chain = next.catch(() => {});
    return next;
  }
}
