import { join } from 'node:path';
import { writeFileAtomic } from '../../sdk/index.js';
import type { Conversation, Speaker } from '../../spec/index.js';
import { readJsonFile } from '../shared/index.js';

/**
 * Who created a timer (decision 0360): it fires as a turn of that same speaker in that same
 * conversation, so it sees and may call what its creator's turn could — no more.
 */
export interface TimerCreator {
  /** Whether the creating turn was the owner's. */
  owner: boolean;
  speaker?: Speaker;
  conversation?: Conversation;
  /** The turn that set it: a forget of that turn takes the reminder too (decision 0400). */
  turnId?: string;
}

/** One timer as persisted. */
export interface TimerRecord {
  id: string;
  kind: 'cron' | 'once';
  /** Cron pattern (5–7 fields, croner syntax) for `cron` timers. */
  cron?: string;
  /** IANA time zone of the cron pattern (empty = system). */
  timezone?: string;
  /** Next time it fires (epoch ms); for `once`, the due time. */
  nextAt: number;
  text: string;
  sessionId: string;
  /** `input`: a new system input; `interrupt`: an interrupt (aborts/queues into a running turn). */
  delivery: 'input' | 'interrupt';
  createdAt: number;
  /** Absent on timers created before decision 0360: see the timer plugin's `legacyCreator`. */
  creator?: TimerCreator;
  lastFiredAt?: number;
  fired: number;
}

/**
 * A reminder that fired and has not reached a session log yet (decision 0390): kept in timers.json
 * from the moment it fires until its input is recorded, so a kill in between loses nothing — the
 * next start delivers it.
 */
export interface FiredReminder {
  /** `<timer id>#<fire count>`: one fire of one timer; travels in the input's meta as `timerFire`. */
  key: string;
  /** The timer as it was when it fired (a one-shot is gone from the list by then). */
  timer: TimerRecord;
  note?: string;
  firedAt: number;
}

interface TimerFile {
  version: 1;
  timers: TimerRecord[];
  undelivered?: FiredReminder[];
}

/** Timers in `<dataDir>/timers.json`, written atomically after every change. */
export class TimerStore {
  private readonly path: string;

  constructor(dataDir: string) {
    this.path = join(dataDir, 'timers.json');
  }

  async load(onCorrupt?: (movedTo: string) => void): Promise<{ timers: TimerRecord[]; undelivered: FiredReminder[] }> {
    const f = await readJsonFile<TimerFile>(this.path, { version: 1, timers: [] }, (m) => onCorrupt?.(m));
    const ok = (t: TimerRecord | undefined) => !!t && typeof t.id === 'string' && typeof t.nextAt === 'number';
    return {
      timers: Array.isArray(f.timers) ? f.timers.filter(ok) : [],
      undelivered: Array.isArray(f.undelivered) ? f.undelivered.filter((r) => r && typeof r.key === 'string' && typeof r.firedAt === 'number' && ok(r.timer)) : [],
    };
  }

  save(timers: TimerRecord[], undelivered: FiredReminder[] = []): Promise<void> {
    return writeFileAtomic(this.path, JSON.stringify({ version: 1, timers, ...(undelivered.length ? { undelivered } : {}) } satisfies TimerFile, null, 1));
  }
}
