import { contentHash, distinctiveContent, distinctivePair, pairHash } from './tombstone-hash.js';

const has = (x: string | undefined): x is string => typeof x === 'string' && x.trim() !== '';

/**
 * The texts of what a forget removes, sorted by what each is (decision 0320), because each kind is
 * remembered differently:
 *
 * - **said** — what the person said: a turn's message (a window event's input). A distinctive one
 *   gets a content tombstone (its copies elsewhere go too: an imported log under another session
 *   id, a document that holds it) and is searched for as a quote in the logs. So is an interrupt
 *   they typed into the turn (decision 0430). Not the text of a library memory or knowledge entry
 *   they ticked: the agent writes those as often as the person, so it is searched for only in
 *   copies of memory (tool calls and results, injections; decision 0430).
 *   Not a note or a fact's sentence: the model writes those freely (`doc_commit`,
 *   `memory_commit`), and remembered by text they would take whatever else says the same — a
 *   forget wider than the list the person confirmed. They go by their id or hash.
 * - **answers** — what the agent replied in a turn, and what its tools gave it there. Never a
 *   tombstone of its own, never a quote: "Sorry, this turn failed: …" is the reply of countless
 *   turns, the same command output comes back in many. Each is remembered with the turn's message
 *   as a *pair* tombstone, which matches only the same answer to the same message.
 * - **everything else** (titles, notes, fact sentences, tool calls, injections):
 *   goes with its turn's id, and is only used here (history entries that hold it, set-aside
 *   copies, the embedder's cache, sentences the graph keeps).
 */
export class ForgetTexts {
  /** Every text of what goes. */
  readonly all = new Set<string>();
  /** What the person said or wrote (content tombstones, quotes). */
  readonly said = new Set<string>();
  private readonly turns = new Map<string, { messages: Set<string>; replies: Set<string> }>();
  private readonly loose: { message: string; reply: string }[] = [];

  private turn(id: string) {
    let t = this.turns.get(id);
    if (!t) this.turns.set(id, (t = { messages: new Set(), replies: new Set() }));
    return t;
  }

  /** Texts that go with their turn or item only. */
  other(...xs: (string | undefined)[]): void {
    for (const x of xs) if (has(x)) this.all.add(x);
  }

  /** What the person said outside a turn's exchange (a message with no turn, an interrupt). */
  written(...xs: (string | undefined)[]): void {
    for (const x of xs) {
      if (!has(x)) continue;
      this.all.add(x);
      this.said.add(x);
    }
  }

  /** A message of turn `turnId`. */
  message(turnId: string, x: string | undefined): void {
    if (!has(x)) return;
    this.written(x);
    this.turn(turnId).messages.add(x);
  }

  /** A reply of turn `turnId`, or what a tool gave it. */
  reply(turnId: string, x: string | undefined): void {
    if (!has(x)) return;
    this.all.add(x);
    this.turn(turnId).replies.add(x);
  }

  /**
   * A message and its reply as one item carries them (a context event, a document): of a turn,
   * or — a note forgotten by its id — on their own.
   */
  exchange(turnId: string | undefined, message: string | undefined, reply: string | undefined): void {
    if (turnId !== undefined) {
      this.message(turnId, message);
      this.reply(turnId, reply);
      return;
    }
    this.written(message);
    this.other(reply);
    if (has(message) && has(reply)) this.loose.push({ message, reply });
  }

  /** Said texts long enough to be told apart (content tombstones and quotes, the same rule). */
  distinctive(): string[] {
    return [...this.said].filter((x) => distinctiveContent(x));
  }

  /** Every message × reply of each turn (a turn logs one of each, a window event may hold its own), and the loose ones. */
  pairs(): { message: string; reply: string }[] {
    const out = [...this.loose];
    for (const t of this.turns.values()) {
      // A turn with no message (proactive): each reply with "" (distinctive alone; review fix 4).
      const messages = t.messages.size ? [...t.messages] : [''];
      for (const message of messages) for (const reply of t.replies) out.push({ message, reply });
    }
    return out.filter((p) => distinctivePair(p.message, p.reply));
  }

  /** The tombstones these texts leave: content for what was said, pair for each exchange. */
  stones(): { hash: string; kind: 'content' | 'pair' }[] {
    const out = new Map<string, 'content' | 'pair'>();
    for (const x of this.distinctive()) out.set(contentHash(x), 'content');
    for (const p of this.pairs()) out.set(pairHash(p.message, p.reply), 'pair');
    return [...out].map(([hash, kind]) => ({ hash, kind }));
  }
}
