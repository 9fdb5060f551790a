import type { LlmChainEvent } from '../spec/index.js';
import type { LlmPort } from './ports.js';

type RunResult = Awaited<ReturnType<LlmPort['run']>>;

/** The `agent_llm_chain` event (C-7) of one LLM round: the round's answer plus where it happened. */
export function llmChainEvent(
  res: RunResult,
  where: { turnId: string; sessionId: string; round: number; consolidation: boolean; injected: LlmChainEvent['injected']; at: number },
): LlmChainEvent {
  return {
    ...where,
    provider: res.provider,
    model: res.model,
    text: res.text,
    reasoning: res.reasoning,
    toolCalls: res.toolCalls,
    usage: res.usage,
    finishReason: res.finishReason,
    latencyMs: res.latencyMs,
  };
}
