import { readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { ConflictError, NotFoundError, ValidationError, writeFileAtomic } from '../../sdk/index.js';

const pinnedSchema = z.object({ id: z.string(), role: z.enum(['user', 'assistant', 'system']), text: z.string(), at: z.number() });
const planMemorySchema = z.object({ id: z.string(), title: z.string(), impressions: z.array(z.string()), tags: z.array(z.string()) });
const planSchema = z.object({
  pinned: z.array(pinnedSchema).default([]),
  memories: z.array(planMemorySchema).default([]),
  injectOnce: z.boolean().default(false),
});
const excludedSchema = z.record(z.string(), z.array(z.string()));
const onceItemSchema = z.object({ id: z.string(), text: z.string().optional(), memoryId: z.string().optional(), at: z.number() });
const onceSchema = z.array(onceItemSchema);

/** A pinned message of the plan. */
export type PinnedMessage = z.infer<typeof pinnedSchema>;
/** A memory chosen for injection (a copy of its meta at the time it was added). */
export type PlanMemory = z.infer<typeof planMemorySchema>;
/** The global injection plan (M-5), shared by all sessions. */
export type Plan = z.infer<typeof planSchema>;
/** An entry of the one-shot queue: free text or a memory id. */
export type OnceItem = z.infer<typeof onceItemSchema>;

const PLAN_FILE = 'plan.json';
const EXCLUDED_FILE = 'excluded.json';
const ONCE_FILE = 'once.json';

function newId(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
}

/**
 * The plan files under `<library>/pinned/` (M-5): `plan.json`, `excluded.json` (turn ids per
 * session) and `once.json` (a global queue cleared after the next injection). Loaded lazily;
 * a corrupt file is renamed aside (`*.corrupt-<time>`), replaced by defaults and logged.
 * Every change is written atomically before the call resolves.
 */
export class PlanStore {
  readonly dir: string;
  private plan: Plan = { pinned: [], memories: [], injectOnce: false };
  private excludedMap: Record<string, string[]> = {};
  /**
   * Every change of the plan made through this API (K-3 history), with the whole plan before and
   * after. Must not throw.
   */
  onChange?: (op: string, before: Plan, after: Plan) => void;

  /** Writes the plan and reports the change (op names what the person did). */
  private async commitPlan(op: string, before: Plan): Promise<void> {
    await this.write(PLAN_FILE, this.plan);
    try {
      this.onChange?.(op, before, structuredClone(this.plan));
    } catch {
      // the history is best effort: the plan itself was written
    }
  }

  /** Puts a whole plan back (undo, K-3); a ConflictError when the plan changed since `expected`. */
  async replace(plan: Plan, expected: Plan): Promise<void> {
    await this.ready();
    if (JSON.stringify(this.plan) !== JSON.stringify(expected)) throw new ConflictError('the plan changed since; undo its later change first', {});
    this.plan = structuredClone(plan);
    await this.write(PLAN_FILE, this.plan);
  }
  private onceQueue: OnceItem[] = [];
  private loading: Promise<void> | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  private readonly log: (msg: string, data?: Record<string, unknown>) => void;

  constructor(root: string, log: (msg: string, data?: Record<string, unknown>) => void = () => undefined) {
    this.dir = join(root, 'pinned');
    this.log = log;
  }

  /** Loads the three files once (cached). */
  ready(): Promise<void> {
    this.loading ??= this.load();
    return this.loading;
  }

  private async readJson<T>(file: string, schema: z.ZodType<T>, fallback: T): Promise<T> {
    const path = join(this.dir, file);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') this.log('plan file unreadable', { file, error: String(e) });
      return fallback;
    }
    let problem: string;
    try {
      const r = schema.safeParse(JSON.parse(text));
      if (r.success) return r.data;
      problem = r.error.issues[0]?.message ?? 'invalid shape';
    } catch (e) {
      problem = String(e);
    }
    const aside = `${path}.corrupt-${Date.now()}`;
    await rename(path, aside).catch(() => undefined);
    this.log('corrupt plan file kept aside, defaults used', { file, aside, problem });
    return fallback;
  }

  private async load(): Promise<void> {
    this.plan = await this.readJson(PLAN_FILE, planSchema, { pinned: [], memories: [], injectOnce: false });
    this.excludedMap = await this.readJson(EXCLUDED_FILE, excludedSchema, {});
    this.onceQueue = await this.readJson(ONCE_FILE, onceSchema, []);
  }

  private write(file: string, value: unknown): Promise<void> {
    const text = `${JSON.stringify(value, null, 2)}\n`;
    const job = this.chain.then(() => writeFileAtomic(join(this.dir, file), text));
    this.chain = job.catch(() => undefined);
    return job;
  }

  /** Waits for pending writes. */
  async flush(): Promise<void> {
    await this.chain;
  }

  /** A copy of the plan. */
  async get(): Promise<Plan> {
    await this.ready();
    return structuredClone(this.plan);
  }

  /** The plan without waiting (valid after ready()). */
  peek(): Plan {
    return this.plan;
  }

  async pin(role: PinnedMessage['role'], text: string): Promise<PinnedMessage> {
    if (!text.trim()) throw new ValidationError('plan.pin: text is empty', { path: 'text' });
    await this.ready();
    const before = structuredClone(this.plan);
    const item: PinnedMessage = { id: newId('p'), role, text, at: Date.now() };
    this.plan.pinned.push(item);
    await this.commitPlan('pin', before);
    return item;
  }

  async unpin(id: string): Promise<void> {
    await this.ready();
    const before = structuredClone(this.plan);
    this.plan.pinned = this.plan.pinned.filter((p) => p.id !== id);
    if (this.plan.pinned.length === before.pinned.length) throw new NotFoundError('pinned message', id);
    await this.commitPlan('unpin', before);
  }

  /** Adds (or refreshes) a memory in the plan. */
  async addMemory(m: PlanMemory): Promise<void> {
    await this.ready();
    const before = structuredClone(this.plan);
    const i = this.plan.memories.findIndex((x) => x.id === m.id);
    const entry = { id: m.id, title: m.title, impressions: [...m.impressions], tags: [...m.tags] };
    if (i >= 0) this.plan.memories[i] = entry;
    else this.plan.memories.push(entry);
    await this.commitPlan('addMemory', before);
  }

  async removeMemory(id: string): Promise<void> {
    await this.ready();
    const before = structuredClone(this.plan);
    this.plan.memories = this.plan.memories.filter((m) => m.id !== id);
    if (this.plan.memories.length === before.memories.length) throw new NotFoundError('planned memory', id);
    await this.commitPlan('removeMemory', before);
  }

  async setInjectOnce(value: boolean): Promise<void> {
    await this.ready();
    const before = structuredClone(this.plan);
    if (this.plan.injectOnce === value) return;
    this.plan.injectOnce = value;
    await this.commitPlan('setInjectOnce', before);
  }

  /** Empties pinned messages and memories and resets injectOnce. */
  async clear(): Promise<void> {
    await this.ready();
    const before = structuredClone(this.plan);
    this.plan = { pinned: [], memories: [], injectOnce: false };
    await this.commitPlan('clear', before);
  }

  // ---- excluded turns ----

  /** Excluded turn ids: of one session, or all by session. */
  async excluded(): Promise<Record<string, string[]>> {
    await this.ready();
    return structuredClone(this.excludedMap);
  }

  /** Synchronous check for the context filter (false until loaded). */
  isExcluded(sessionId: string, turnId: string): boolean {
    return this.excludedMap[sessionId]?.includes(turnId) ?? false;
  }

  /** Records an exclusion; false when it was already excluded. */
  async exclude(sessionId: string, turnId: string): Promise<boolean> {
    await this.ready();
    const list = (this.excludedMap[sessionId] ??= []);
    if (list.includes(turnId)) return false;
    list.push(turnId);
    await this.write(EXCLUDED_FILE, this.excludedMap);
    return true;
  }

  /** Removes an exclusion; false when it was not excluded. */
  async restore(sessionId: string, turnId: string): Promise<boolean> {
    await this.ready();
    const list = this.excludedMap[sessionId] ?? [];
    if (!list.includes(turnId)) return false;
    const next = list.filter((t) => t !== turnId);
    if (next.length) this.excludedMap[sessionId] = next;
    else delete this.excludedMap[sessionId];
    await this.write(EXCLUDED_FILE, this.excludedMap);
    return true;
  }

  // ---- one-shot queue ----

  async once(): Promise<OnceItem[]> {
    await this.ready();
    return structuredClone(this.onceQueue);
  }

  async pushOnce(item: { text?: string; memoryId?: string }): Promise<OnceItem> {
    await this.ready();
    const entry: OnceItem = { id: newId('o'), at: Date.now() };
    if (item.text !== undefined) entry.text = item.text;
    if (item.memoryId !== undefined) entry.memoryId = item.memoryId;
    this.onceQueue.push(entry);
    await this.write(ONCE_FILE, this.onceQueue);
    return entry;
  }

  /**
   * Forget (K-2): drops pinned messages and one-shot items whose text holds one of `texts`, and
   * one-shot items of the given memories. Returns how many went.
   */
  async scrub(holds: (text: string) => boolean, memoryIds: readonly string[] = []): Promise<number> {
    await this.ready();
    const before = structuredClone(this.plan);
    const pinned = this.plan.pinned.filter((p) => !holds(p.text));
    const once = this.onceQueue.filter((o) => !(o.text !== undefined && holds(o.text)) && !(o.memoryId !== undefined && memoryIds.includes(o.memoryId)));
    const n = this.plan.pinned.length - pinned.length + this.onceQueue.length - once.length;
    if (pinned.length !== this.plan.pinned.length) {
      this.plan.pinned = pinned;
      await this.commitPlan('scrub', before);
    }
    if (once.length !== this.onceQueue.length) {
      this.onceQueue = once;
      await this.write(ONCE_FILE, this.onceQueue);
    }
    return n;
  }

  /** Takes and clears the queue (after an injection of any session). */
  async takeOnce(): Promise<OnceItem[]> {
    await this.ready();
    if (this.onceQueue.length === 0) return [];
    const items = this.onceQueue;
    this.onceQueue = [];
    await this.write(ONCE_FILE, this.onceQueue);
    return items;
  }
}
