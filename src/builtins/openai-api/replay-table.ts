import { createHash } from 'node:crypto';
import { OpenAiApiError } from './openai-error.js';

/** The header of the IETF draft: a client's key for one request, the same on each of its retries. */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** The OpenAI SDKs (Stainless-generated) number their attempts of one request: 0, then 1, 2 … on retries. */
export const RETRY_COUNT_HEADER = 'x-stainless-retry-count';

/** Token usage of an answer, as the API reports it. */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** How a request's turn ended: what its retries answer. */
export type Settled = { ok: true; content: string; reasoning: string; usage: Usage } | { ok: false; error: OpenAiApiError };

/** One request under an idempotency key: its answer's identity and, once the turn ends, its result. */
export interface ReplayEntry {
  readonly fingerprint: string;
  readonly id: string;
  readonly created: number;
  readonly model: string;
  readonly headers: Record<string, string>;
  readonly result: Promise<Settled>;
}

/** What `claim` gives: the earlier attempt to answer from, or this request's hold on the key. */
export interface Claim {
  prior?: ReplayEntry;
  /** This request's turn ended: its retries get this. Settles once. */
  settle(s: Settled): void;
  /** This request started no turn (it was refused): a retry is a new attempt. */
  release(): void;
  /** The turn this request started (a forget of it drops the answer, decision 0430). */
  started(turnId: string): void;
}

interface Slot {
  entry: ReplayEntry;
  settle(s: Settled): void;
  /** When the turn ended (ms), for expiry; undefined while it runs. */
  settledAt?: number;
  turnId?: string;
  /** The answer's text once ended (a forget quoting it drops the entry). */
  text?: string;
}

/** A key of printable ASCII, as the SDKs make them (`stainless-node-retry-<uuid>`); at most 255 characters. */
const KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * Recent chat requests by key, so that a retry gets the first attempt's answer. Each request is
 * a HomeAgent turn that the session log keeps, so a retry must not start a second turn with the
 * same words: it waits for the first attempt's answer (still running or ended) and gets that.
 * Two kinds of key: the client's `Idempotency-Key` (IETF draft "The Idempotency-Key HTTP Header
 * Field"; sent again with a different body it is the client's mistake, 422), and, for the OpenAI
 * SDKs that send none but retry a request that timed out or lost its connection, the request's
 * fingerprint — matched only by an attempt the SDK numbers as a retry, so the owner saying "yes"
 * twice is two turns. Bounded in entries; an ended entry is forgotten after `ttlMs`, a running
 * one only once it has ended.
 */
export class ReplayTable {
  private readonly slots = new Map<string, Slot>();

  constructor(private readonly opts: { maxEntries: number; ttlMs: number; now?: () => number }) {}

  /**
   * The table key of a request with this fingerprint, and whether it may take the place of an
   * earlier request under that key (a first attempt without `Idempotency-Key` is a new request
   * even when its words repeat an earlier one).
   */
  static slotOf(req: Request, fingerprint: string): { key: string; replace: boolean } {
    const key = ReplayTable.keyOf(req);
    if (key !== undefined) return { key: `key:${key}`, replace: false };
    const attempt = Number(req.headers.get(RETRY_COUNT_HEADER) ?? '0');
    return { key: `body:${fingerprint}`, replace: !(attempt > 0) };
  }

  /** The request's `Idempotency-Key`, or undefined when it sent none; a malformed key is a 400. */
  static keyOf(req: Request): string | undefined {
    const key = req.headers.get(IDEMPOTENCY_HEADER);
    if (key === null) return undefined;
    if (!KEY.test(key)) throw OpenAiApiError.invalid('the Idempotency-Key header must be 1 to 255 printable ASCII characters', null, 'invalid_idempotency_key');
    return key;
  }

  /** What identifies a request's content: its body and the session header it names. */
  static fingerprint(body: Uint8Array, session: string | null): string {
    return createHash('sha256')
      .update(session ?? '')
      .update('\n')
      .update(body)
      .digest('hex');
  }

  /**
   * The earlier attempt under `key` (`prior`), or else this request's claim on the key, made
   * with `make()`'s identity: the caller then owes `settle(…)` when its turn ends, or
   * `release()` if no turn started.
   */
  claim(key: string, fingerprint: string, make: () => Omit<ReplayEntry, 'fingerprint' | 'result'>, opts: { replace?: boolean } = {}): Claim {
    this.expire();
    const prior = this.slots.get(key);
    if (prior && !opts.replace) {
      if (prior.entry.fingerprint !== fingerprint) {
        throw new OpenAiApiError(422, 'this Idempotency-Key was already used for a different request; send a new key for a new request', 'invalid_request_error', 'idempotency_key_reused');
      }
      return { prior: prior.entry, settle: () => {}, release: () => {}, started: () => {} };
    }
    let resolve!: (s: Settled) => void;
    const result = new Promise<Settled>((r) => (resolve = r));
    const slot: Slot = {
      entry: { ...make(), fingerprint, result },
      settle: (s) => {
        if (slot.settledAt !== undefined) return;
        slot.settledAt = this.now();
        if (s.ok) slot.text = `${s.content}\n${s.reasoning}`;
        resolve(s);
      },
    };
    this.slots.set(key, slot);
    this.evict();
    return {
      settle: slot.settle,
      // Only this request's own slot: a later request may have taken the key since.
      release: () => {
        if (this.slots.get(key) === slot) this.slots.delete(key);
      },
      started: (turnId) => {
        slot.turnId = turnId;
      },
    };
  }

  /**
   * A forget (decision 0430): the answers of the forgotten turns, and those quoting what was said
   * there, go — a retry would otherwise be answered with a forgotten reply for up to `ttlMs`.
   * Returns how many.
   */
  dropForgotten(turnIds: ReadonlySet<string>, quotes: readonly string[]): number {
    let n = 0;
    for (const [k, s] of this.slots) {
      if ((s.turnId !== undefined && turnIds.has(s.turnId)) || (s.text !== undefined && quotes.some((q) => s.text!.includes(q)))) {
        this.slots.delete(k);
        n++;
      }
    }
    return n;
  }

  get size(): number {
    return this.slots.size;
  }

  clear(): void {
    this.slots.clear();
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  private expire(): void {
    const cutoff = this.now() - this.opts.ttlMs;
    for (const [k, s] of this.slots) if (s.settledAt !== undefined && s.settledAt <= cutoff) this.slots.delete(k);
  }

  /** Past the bound, the oldest ended entries go first; running ones stay (their retries may come). */
  private evict(): void {
    if (this.slots.size <= this.opts.maxEntries) return;
    for (const [k, s] of this.slots) {
      if (this.slots.size <= this.opts.maxEntries) return;
      if (s.settledAt !== undefined) this.slots.delete(k);
    }
  }
}
