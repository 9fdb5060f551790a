import type { ChatMessage, ChatRequest, ToolCall, ToolSpec } from '../../spec/index.js';
import type { RecordedRequest } from './fake-llm/index.js';

/** A chat request as the provider manager was asked for it, read back from the wire. */
export type RecordedChatRequest = Omit<ChatRequest, 'model'> & { model?: string };

/* eslint-disable @typescript-eslint/no-explicit-any -- the body is untrusted wire JSON */

function text(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p: any) => (p && typeof p.text === 'string' ? p.text : '')).join('');
  return '';
}

function message(raw: any): ChatMessage {
  const m: any = raw && typeof raw === 'object' ? raw : {};
  const role = ['system', 'user', 'assistant', 'tool'].includes(m.role) ? (m.role as ChatMessage['role']) : 'user';
  const out: ChatMessage = { role, content: text(m.content) };
  if (role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length) {
    out.toolCalls = m.tool_calls.map((c: any): ToolCall => ({ id: String(c?.id ?? ''), name: String(c?.function?.name ?? ''), arguments: String(c?.function?.arguments ?? '') }));
  }
  if (role === 'assistant' && typeof m.reasoning_content === 'string') out.reasoning = m.reasoning_content;
  if (role === 'tool' && typeof m.tool_call_id === 'string') out.toolCallId = m.tool_call_id;
  if (typeof m.name === 'string') out.name = m.name;
  if (role === 'user' && Array.isArray(m.content)) {
    const attachments = m.content
      .map((p: any) => /^data:([^;,]+);base64,(.*)$/s.exec(String(p?.image_url?.url ?? '')))
      .filter((x: RegExpExecArray | null): x is RegExpExecArray => !!x)
      .map((x: RegExpExecArray) => ({ mimeType: x[1], data: x[2] }));
    if (attachments.length) out.attachments = attachments;
  }
  return out;
}

/**
 * Translates an OpenAI Chat Completions request body the fake server recorded back into the
 * normalized request shape (messages with `toolCalls`/`toolCallId`, tools as `{name, description,
 * parameters}`), so tests can assert on what the agent asked without knowing the wire format.
 * Other formats are not translated: `undefined`.
 */
export function chatRequestOf(r: RecordedRequest): RecordedChatRequest | undefined {
  if (r.format !== 'openai-chat' && r.format !== 'azure') return undefined;
  const b: any = r.body && typeof r.body === 'object' ? r.body : {};
  const out: RecordedChatRequest = { messages: Array.isArray(b.messages) ? b.messages.map(message) : [] };
  if (typeof b.model === 'string') out.model = b.model;
  if (Array.isArray(b.tools) && b.tools.length) {
    out.tools = b.tools.map((t: any): ToolSpec => ({ name: String(t?.function?.name ?? ''), description: String(t?.function?.description ?? ''), parameters: t?.function?.parameters ?? {} }));
  }
  if (typeof b.temperature === 'number') out.temperature = b.temperature;
  const max = b.max_completion_tokens ?? b.max_tokens;
  if (typeof max === 'number') out.maxTokens = max;
  return out;
}
