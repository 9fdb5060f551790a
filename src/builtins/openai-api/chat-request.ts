import { createHash } from 'node:crypto';
import { z } from 'zod';
import { OpenAiApiError } from './openai-error.js';

const textPart = z.object({ type: z.literal('text'), text: z.string() });
const imagePart = z.object({ type: z.literal('image_url'), image_url: z.union([z.string(), z.object({ url: z.string(), detail: z.string().optional() })]) });
const otherPart = z.object({ type: z.string() }).loose();
const content = z.union([z.string(), z.array(z.union([textPart, imagePart, otherPart])), z.null()]);

const message = z
  .object({
    role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
    content: content.optional(),
    name: z.string().optional(),
  })
  .loose();

/**
 * The request body of `POST /v1/chat/completions` as far as HomeAgent reads it. Other
 * parameters (`temperature`, `max_tokens`, `tools` …) are accepted and ignored: the daemon's own
 * provider settings and tools decide (decision 0040). Lenient on unknown fields (clients send many),
 * strict on the types of those read.
 */
export const chatCompletionSchema = z
  .object({
    model: z.string().min(1, 'model must not be empty'),
    messages: z.array(message).min(1, 'messages must hold at least one message'),
    stream: z.boolean().nullish(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).loose().nullish(),
    user: z.string().max(256).nullish(),
    n: z.number().int().nullish(),
  })
  .loose();

export type ChatCompletionBody = z.infer<typeof chatCompletionSchema>;
type Message = z.infer<typeof message>;

/** An image a client sent inline (`data:` URL), as a turn attachment. */
export interface Attachment {
  mimeType: string;
  data: string;
  name?: string;
}

/** What a request becomes: the new input of a HomeAgent turn and what goes with it. */
export interface TurnPlan {
  /** The newest user message: the turn's input. */
  text: string;
  attachments: Attachment[];
  /** The client's system / developer messages, for this turn only. */
  instructions: string;
  /** Earlier user/assistant messages as a transcript (used only for a session HomeAgent has not seen). */
  history: string;
}

/** Most characters of client instructions and of an earlier transcript handed to one turn. */
export const INSTRUCTIONS_MAX_CHARS = 8_000;
export const HISTORY_MAX_CHARS = 8_000;

/**
 * Parses the body; a wrong or missing field → a 400 OpenAI-style error naming the parameter
 * (`param`), as OpenAI answers it.
 */
export function parseChatCompletion(body: unknown): ChatCompletionBody {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw OpenAiApiError.invalid('the request body must be a JSON object', null, 'invalid_type');
  const r = chatCompletionSchema.safeParse(body);
  if (!r.success) {
    const issue = r.error.issues[0];
    const param = issue?.path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('') || null;
    const missing = issue?.code === 'invalid_type' && (body as Record<string, unknown>)[String(issue.path[0])] === undefined && issue.path.length === 1;
    throw OpenAiApiError.invalid(
      missing ? `you must provide the '${param}' parameter` : `invalid '${param ?? 'body'}': ${issue?.message ?? 'invalid value'}`,
      param,
      missing ? 'missing_required_parameter' : issue?.code === 'invalid_type' || issue?.code === 'invalid_union' ? 'invalid_type' : 'invalid_value',
    );
  }
  if (r.data.n != null && r.data.n !== 1) throw OpenAiApiError.invalid('only n=1 is supported: each request is one HomeAgent turn', 'n', 'unsupported_value');
  return r.data;
}

function partsText(c: Message['content']): string {
  if (typeof c === 'string') return c;
  if (!Array.isArray(c)) return '';
  return c
    .map((p) => (p.type === 'text' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : ''))
    .filter(Boolean)
    .join('\n');
}

const DATA_URL = /^data:([a-z]+\/[a-z0-9.+-]+);base64,([A-Za-z0-9+/=\s]+)$/i;

function imagesOf(c: Message['content'], index: number): Attachment[] {
  if (!Array.isArray(c)) return [];
  const out: Attachment[] = [];
  for (const [i, p] of c.entries()) {
    if (p.type === 'text') {
      if (typeof (p as { text?: unknown }).text !== 'string') throw OpenAiApiError.invalid('a text part needs a string "text"', `messages[${index}].content[${i}].text`, 'invalid_type');
      continue;
    }
    if (p.type !== 'image_url') throw OpenAiApiError.invalid(`content parts of type '${p.type}' are not supported (text and image_url are)`, `messages[${index}].content[${i}].type`, 'unsupported_value');
    const raw = (p as z.infer<typeof imagePart>).image_url;
    const url = typeof raw === 'string' ? raw : raw.url;
    const m = DATA_URL.exec(url);
    // A remote URL would make the daemon fetch an address the client chose: images come inline.
    if (!m || !m[1].toLowerCase().startsWith('image/')) throw OpenAiApiError.invalid('images must be inline data: URLs (data:image/png;base64,…); HomeAgent does not download image URLs', `messages[${index}].content[${i}].image_url`, 'unsupported_value');
    out.push({ mimeType: m[1].toLowerCase(), data: m[2].replace(/\s+/g, ''), name: `image-${i + 1}` });
  }
  return out;
}

/** The last `max` characters of `text`, cut at a line start where possible. */
function tail(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(text.length - max);
  const nl = cut.indexOf('\n');
  return `…${nl >= 0 && nl < max / 2 ? cut.slice(nl) : cut}`;
}

/**
 * Maps the client's `messages` onto one HomeAgent turn (decision 0040): the daemon keeps its own
 * memory of every session, so only the newest user message is new input. System and developer
 * messages become instructions for this turn; earlier user/assistant messages become a
 * transcript that is shown to the model only when HomeAgent has not seen the session before
 * (a conversation started elsewhere). Tool messages are the client's own and are skipped.
 */
export function planTurn(messages: Message[]): TurnPlan {
  const lastIndex = messages.length - 1;
  const last = messages[lastIndex];
  if (last.role !== 'user') throw OpenAiApiError.invalid(`the last message must have role 'user' (got '${last.role}'): HomeAgent answers the newest user message`, `messages[${lastIndex}].role`);
  const attachments = imagesOf(last.content, lastIndex);
  const text = partsText(last.content).trim();
  if (!text && attachments.length === 0) throw OpenAiApiError.invalid('the last user message is empty', `messages[${lastIndex}].content`);
  const instructions = messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => partsText(m.content).trim())
    .filter(Boolean)
    .join('\n\n');
  const history = messages
    .slice(0, lastIndex)
    .filter((m) => m.role === 'user' || m.role === 'assistant')
    .map((m) => `${m.role}: ${partsText(m.content).trim()}`)
    .filter((l) => !/^\w+: $/.test(l))
    .join('\n');
  return { text, attachments, instructions: instructions.slice(0, INSTRUCTIONS_MAX_CHARS), history: tail(history, HISTORY_MAX_CHARS) };
}

const SESSION_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/** The channels of the owner's own conversations, which a request may continue by name. */
const OWN_CHANNELS = ['openai', 'webui', 'cli'];

/** The header that names the HomeAgent session of a request explicitly. */
export const SESSION_HEADER = 'x-homeagent-session';

/**
 * The session a request's turn belongs to: the `X-HomeAgent-Session` header when present (a
 * full session id such as `webui:…` continues that session — the owner's own, of the WebUI,
 * `waiter` or this API; a bare name becomes `openai:<name>`),
 * else `openai:<user>` from the body's `user` field, else `openai:default`. A `user` outside the
 * session-id alphabet is kept readable and made unique with a short hash.
 */
export function sessionFor(header: string | null, user: string | null | undefined): string {
  const h = header?.trim();
  if (h) {
    const id = h.includes(':') ? h : `openai:${h}`;
    if (!SESSION_ID.test(id) || id.includes('..')) throw OpenAiApiError.invalid(`invalid ${SESSION_HEADER} header: use 1-128 of A-Z a-z 0-9 _ . : -`, SESSION_HEADER);
    // The owner's own conversations only: a chat app's (someone's Telegram or QQ chat) or the
    // daemon's notices would take a turn of the owner's that was never said there.
    const channel = id.slice(0, id.indexOf(':'));
    if (!OWN_CHANNELS.includes(channel)) throw OpenAiApiError.invalid(`${SESSION_HEADER} names a ${channel} conversation: the API continues only your own (${OWN_CHANNELS.map((c) => `${c}:…`).join(', ')}); to name a conversation of the API, give a name without ":" (kitchen is openai:kitchen)`, SESSION_HEADER);
    return id;
  }
  const u = user?.trim();
  if (!u) return 'openai:default';
  const clean = u.replace(/[^A-Za-z0-9_.-]+/g, '_').replace(/\.{2,}/g, '.').slice(0, 80);
  if (clean === u) return `openai:${clean}`;
  return `openai:${clean}-${createHash('sha256').update(u).digest('hex').slice(0, 8)}`;
}
