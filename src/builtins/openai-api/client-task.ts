import type { PluginSDK } from '../../sdk/index.js';

/**
 * A chat app's own background task, not something the person said: Open WebUI asks the chat's model
 * for a title, tags and follow-up questions with a template that starts `### Task:` and quotes the
 * conversation in `<chat_history>` (its defaults, `DEFAULT_*_PROMPT_TEMPLATE`). Run as a HomeAgent
 * turn, each would be stored as a message of the person's and distilled into memory ("the user
 * wants a 3-5 word title …"). Both markers must be there: a person who pastes one of them is still
 * talking to the agent.
 */
export function isClientTask(text: string): boolean {
  return /^\s*#{2,4}\s*Task:/im.test(text) && /<chat_history>/i.test(text);
}

/**
 * Answers a client task with one plain LLM call — no session, no memory, no tools, nothing
 * recorded — on the same LLM sources and fallback as a turn.
 */
export async function answerClientTask(sdk: PluginSDK, text: string, signal: AbortSignal): Promise<{ content: string; usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } }> {
  const r = await sdk.llm().chat({ messages: [{ role: 'user', content: text }] }, { signal });
  const prompt = r.usage?.inputTokens ?? 0;
  const completion = r.usage?.outputTokens ?? 0;
  return { content: r.text, usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } };
}
