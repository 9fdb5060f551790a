import type { Disposer, PluginSDK, TurnOutcome } from '../../sdk/index.js';

/** Where a watched turn's words go as they are produced. */
export interface TurnSink {
  content(text: string): void;
  reasoning(text: string): void;
}

/**
 * Follows one HomeAgent turn on the event bus for an OpenAI-compatible request: text and
 * reasoning deltas of every LLM round (rounds separated by a blank line), messages the model sent
 * to the `openai` output channel during the turn, and token usage summed over the rounds.
 * Sub-agents' events (`<turnId>/…`) are not the answer and are left out.
 */
export class TurnWatch {
  readonly usage = { prompt: 0, completion: 0 };
  /** Everything sent to the sink as content, in order. */
  private sent = '';
  /** Text streamed in the current LLM round. */
  private roundText = '';
  private round: number | undefined;
  private readonly disposers: Disposer[] = [];

  constructor(
    private readonly sdk: PluginSDK,
    readonly turnId: string,
    private readonly sink: TurnSink,
  ) {}

  /** Subscribes to the bus. Call right after `injectInput`: the turn has not started yet. */
  start(): this {
    this.disposers.push(
      this.sdk.subscribe('turn_delta', (e) => {
        if (e.turnId !== this.turnId) return;
        if (e.kind === 'reasoning') {
          this.sink.reasoning(e.text);
          return;
        }
        if (e.round !== this.round) {
          this.round = e.round;
          this.roundText = '';
          if (this.sent) this.emit('\n\n');
        }
        this.roundText += e.text;
        this.emit(e.text);
      }),
      this.sdk.subscribe('agent_llm_chain', (e) => {
        if (e.turnId !== this.turnId) return;
        this.usage.prompt += e.usage.inputTokens;
        this.usage.completion += e.usage.outputTokens;
      }),
    );
    return this;
  }

  /** A message the model sent to this request's channel before its final reply. */
  extra(text: string): void {
    if (!text) return;
    this.emit(`${this.sent ? '\n\n' : ''}${text}`);
    this.roundText = '';
    this.round = undefined;
  }

  /**
   * At the turn's end: sends what the stream has not shown of the final reply — all of it when
   * the last round streamed nothing (a reply set by a stage, the "configure a provider" answer, a
   * provider that does not stream, a reply a `before_output` handler may rewrite: the kernel does
   * not stream those), the rest when the reply extends the streamed text.
   */
  finish(outcome: TurnOutcome): void {
    const final = outcome.text;
    if (!final || final === this.roundText) return;
    if (this.roundText && final.startsWith(this.roundText)) this.emit(final.slice(this.roundText.length));
    else if (!this.roundText) this.emit(`${this.sent ? '\n\n' : ''}${final}`);
  }

  /** All content sent so far (the non-streaming answer). */
  get content(): string {
    return this.sent;
  }

  dispose(): void {
    for (const d of this.disposers.splice(0).reverse()) d();
  }

  private emit(text: string): void {
    if (!text) return;
    this.sent += text;
    this.sink.content(text);
  }
}
