import { chatRequestOf, type RecordedChatRequest } from './chat-request-of.js';
import { startFakeLlm, type FakeLlm, type FakeReply, type RecordedRequest } from './fake-llm/index.js';

/**
 * One scripted answer: text and/or tool calls (arguments as an object or JSON text), optionally
 * reasoning, or a failure the fake server plays (`status` ≥ 400 with the vendor's error body,
 * `hang`, `delayMs`, `chunkDelayMs`).
 */
export type ScriptedReply = Omit<FakeReply, 'toolCalls'> & {
  toolCalls?: { name: string; arguments?: Record<string, unknown> | string; id?: string }[];
};

const toFake = (r: ScriptedReply): FakeReply => ({ ...r, toolCalls: r.toolCalls?.map((c) => ({ ...c, arguments: c.arguments ?? {} })) });

/**
 * A scripted LLM for plugin tests: a handle on a fake LLM server that speaks the real wire
 * formats over loopback HTTP. `createTestHost` starts it and points a real provider manager
 * (the shipped Lua OpenAI adapter) at it, so every LLM call of the test crosses HTTP. Each chat
 * request takes the next queued reply (default: the text "ok").
 *
 * @example
 * ```ts
 * const llm = new ScriptedLlm([{ toolCalls: [{ name: 'hello_say' }] }, { text: 'done' }]);
 * const t = await createTestHost({ plugins: [myPlugin], llm });
 * await t.send('say hello');
 * assert.equal(llm.requests[1].messages.at(-1)?.role, 'tool');
 * ```
 */
export class ScriptedLlm {
  private readonly pending: FakeReply[] = [];
  private starting: Promise<FakeLlm> | undefined;
  private fake: FakeLlm | undefined;

  /**
   * @param replies queued answers, in order.
   * @param isAvailable false: the test host configures no LLM source, so the agent's turns fail
   *   with NO_PROVIDER_CONFIGURED as they would for a user without a key.
   */
  constructor(
    replies: ScriptedReply[] = [],
    private readonly isAvailable = true,
  ) {
    this.pending.push(...replies.map(toFake));
  }

  /** Queues more answers (before or after the server started). */
  enqueue(...replies: ScriptedReply[]): void {
    const r = replies.map(toFake);
    if (this.fake) this.fake.enqueue(...r);
    else this.pending.push(...r);
  }

  /** Whether the test host should configure an LLM source for this server. */
  available(): boolean {
    return this.isAvailable;
  }

  /** Starts the fake server on 127.0.0.1 (port 0) and hands it the queued replies. Idempotent. */
  start(): Promise<FakeLlm> {
    this.starting ??= startFakeLlm().then((fake) => {
      this.fake = fake;
      fake.enqueue(...this.pending.splice(0));
      return fake;
    });
    return this.starting;
  }

  /** The running fake server (raw recorded requests, `setDefault`, `setEmbedding` …). */
  get server(): FakeLlm {
    if (!this.fake) throw new Error('ScriptedLlm: the fake LLM server is not started (await llm.start() or createTestHost)');
    return this.fake;
  }

  /** Base URL of the fake server, e.g. `http://127.0.0.1:40123` (OpenAI-style APIs live under `/v1`). */
  get url(): string {
    return this.server.url;
  }

  /** Every HTTP request the fake server received, as sent on the wire. */
  get recorded(): RecordedRequest[] {
    return this.fake?.requests ?? [];
  }

  /**
   * The chat requests the server received, translated back into the normalized shape
   * (`messages`, `tools`, `model` …), oldest first. Embedding and other requests are left out.
   */
  get requests(): RecordedChatRequest[] {
    return this.recorded.map(chatRequestOf).filter((r): r is RecordedChatRequest => r !== undefined);
  }

  /** Stops the server; safe to call twice. Recorded requests stay readable. */
  async close(): Promise<void> {
    const fake = this.starting && (await this.starting.catch(() => undefined));
    await fake?.close();
  }
}
