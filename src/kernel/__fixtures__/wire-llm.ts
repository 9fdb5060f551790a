import type { ChatMessage, ChatResponse, StreamPart, ToolCall } from '../../spec/index.js';
import type { LlmPort } from '../ports.js';

/**
 * TEMPORARY stand-in for the ProviderManager while `src/providers` is being written: a tiny
 * OpenAI-chat streaming client over real HTTP. Remove once the harness uses the real manager.
 */
export function wireLlm(baseUrl: string): LlmPort {
  return {
    available: () => true,
    async run(req, opts = {}) {
      const started = performance.now();
      const body = {
        model: 'fake-model',
        stream: true,
        stream_options: { include_usage: true },
        messages: req.messages.map((m: ChatMessage) => ({
          role: m.role,
          content: m.content,
          ...(m.toolCalls?.length ? { tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) } : {}),
          ...(m.toolCallId ? { tool_call_id: m.toolCallId } : {}),
        })),
        ...(req.tools?.length ? { tools: req.tools.map((t) => ({ type: 'function', function: t })) } : {}),
      };
      const res = await fetch(`${baseUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer x' }, body: JSON.stringify(body), signal: opts.signal });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      let text = '';
      let reasoning = '';
      const calls: (ToolCall & { args: string })[] = [];
      let usage = { inputTokens: 0, outputTokens: 0 };
      let finish: ChatResponse['finishReason'] = 'stop';
      const dec = new TextDecoder();
      let buf = '';
      const emit = (p: StreamPart) => opts.onPart?.(p, 'openai');
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buf += dec.decode(chunk, { stream: true });
        let i: number;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const line = buf.slice(0, i).replace(/^data: /, '');
          buf = buf.slice(i + 2);
          if (line === '[DONE]') continue;
          const j = JSON.parse(line);
          if (j.usage) usage = { inputTokens: j.usage.prompt_tokens, outputTokens: j.usage.completion_tokens };
          const c = j.choices?.[0];
          if (!c) continue;
          const d = c.delta ?? {};
          if (d.content) {
            text += d.content;
            emit({ type: 'text-delta', text: d.content });
          }
          if (d.reasoning_content) {
            reasoning += d.reasoning_content;
            emit({ type: 'reasoning-delta', text: d.reasoning_content });
          }
          for (const tc of d.tool_calls ?? []) {
            const slot = (calls[tc.index] ??= { id: '', name: '', arguments: '', args: '' });
            if (tc.id) slot.id = tc.id;
            if (tc.function?.name) slot.name = tc.function.name;
            if (tc.function?.arguments) slot.args += tc.function.arguments;
          }
          if (c.finish_reason) finish = c.finish_reason === 'tool_calls' ? 'tool-calls' : 'stop';
        }
      }
      return {
        text,
        reasoning,
        toolCalls: calls.map((c) => ({ id: c.id, name: c.name, arguments: c.args })),
        usage,
        finishReason: finish,
        provider: 'openai',
        model: 'fake-model',
        latencyMs: performance.now() - started,
      };
    },
  };
}
