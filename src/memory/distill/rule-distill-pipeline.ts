import fs from 'node:fs/promises';
import type { ContextEvent, PluginLogger, Triple } from '../../spec/index.js';
import { writeFileAtomic } from '../../fs/index.js';
import { extractFacts } from './rule-distiller.js';
import { OWNER_SPEAKER_ID } from '../../spec/speaker.js';

const DAY = 86_400_000;

export interface RuleDistillPipelineOptions {
  /** Where the graph writes go (GraphDB.commit). */
  commit: (triples: Triple[]) => number | Promise<number>;
  /** The current context timeline. */
  events: () => readonly ContextEvent[];
  /** JSON file with the ids of events already distilled. */
  statePath: string;
  /** Days an event id is remembered (and the age after which events are ignored). Default 7. */
  retentionDays?: number | (() => number);
  speaker?: string;
  now?: () => number;
  log?: PluginLogger;
}

interface State {
  version: 1;
  distilled: Record<string, number>;
}

/**
 * The graph entity of an event's speaker: the display name of a named participant; undefined for
 * the owner (`user`), so the configured speaker entity is used.
 */
export function speakerEntity(e: Pick<ContextEvent, 'speaker'>): string | undefined {
  const s = e.speaker;
  if (!s || s.id === 'user') return undefined;
  return s.name ?? s.id;
}

/**
 * The rule distiller's tick (T-9, seed `distillOnce`): user events of the context that were not
 * distilled yet go through the regex rules; the facts are committed to the graph. Which events were
 * done is kept in a small JSON file for `retentionDays`.
 */
export class RuleDistillPipeline {
  private distilled = new Map<string, number>();
  private loaded = false;
  private readonly now: () => number;

  constructor(private readonly opts: RuleDistillPipelineOptions) {
    this.now = opts.now ?? Date.now;
  }

  private retentionMs(): number {
    const d = typeof this.opts.retentionDays === 'function' ? this.opts.retentionDays() : this.opts.retentionDays;
    return Math.max(1, d ?? 7) * DAY;
  }

  /** Loads the marker file; a missing or unreadable one starts empty (logged when corrupt). */
  async load(): Promise<void> {
    this.loaded = true;
    let text: string;
    try {
      text = await fs.readFile(this.opts.statePath, 'utf8');
    } catch {
      return;
    }
    try {
      const s = JSON.parse(text) as State;
      for (const [id, at] of Object.entries(s.distilled ?? {})) if (typeof at === 'number') this.distilled.set(id, at);
    } catch (e) {
      this.opts.log?.warn(`distill state ${this.opts.statePath} is unreadable; starting over`, { error: (e as Error).message });
    }
  }

  /** True when the event was already distilled (within retention). */
  isDistilled(eventId: string): boolean {
    return this.distilled.has(eventId);
  }

  /** One pass. Returns how many events were read and triples committed. */
  async tick(): Promise<{ events: number; triples: number }> {
    if (!this.loaded) await this.load();
    const now = this.now();
    const horizon = now - this.retentionMs();
    let changed = false;
    for (const [id, at] of this.distilled) {
      if (at < horizon) {
        this.distilled.delete(id);
        changed = true;
      }
    }
    let events = 0;
    const triples: Triple[] = [];
    for (const ev of this.opts.events()) {
      if (ev.kind !== 'user' || ev.timestamp < horizon || this.distilled.has(ev.id)) continue;
      events++;
      // Who said it is recorded with each fact's sources (issue 15): the speaker's id, `user` for the owner.
      const said = ev.speaker?.id ?? OWNER_SPEAKER_ID;
      // A fact holds from when it was said, not from this tick (a move said days ago ends the old place then).
      for (const t of extractFacts(ev.input, { speaker: speakerEntity(ev) ?? this.opts.speaker, refs: [ev.id, ...(ev.refs ?? [])].slice(0, 10) })) triples.push({ ...t, speaker: said, validFrom: ev.timestamp });
      this.distilled.set(ev.id, now);
      changed = true;
    }
    let committed = 0;
    if (triples.length) committed = await this.opts.commit(triples);
    if (changed) await this.save();
    return { events, triples: committed };
  }

  /** Drops the marks of forgotten events (K-2: no id of them is kept). */
  async forget(eventIds: readonly string[]): Promise<void> {
    if (!this.loaded) await this.load();
    let changed = false;
    for (const id of eventIds) changed = this.distilled.delete(id) || changed;
    if (changed) await this.save();
  }

  /** Writes the marker file atomically. */
  async save(): Promise<void> {
    const state: State = { version: 1, distilled: Object.fromEntries(this.distilled) };
    await writeFileAtomic(this.opts.statePath, JSON.stringify(state));
  }
}
