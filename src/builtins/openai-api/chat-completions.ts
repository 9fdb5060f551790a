import { randomBytes } from 'node:crypto';
import type { PluginSDK, TurnOutcome } from '../../sdk/index.js';
import { readRawBody } from '../shared/index.js';
import { parseChatCompletion, planTurn, SESSION_HEADER, sessionFor } from './chat-request.js';
import { OpenAiApiError, openAiErrorResponse, toOpenAiError, toOpenAiResponse } from './openai-error.js';
import { ReplayTable, type Claim, type ReplayEntry, type Settled, type Usage } from './replay-table.js';
import { ChunkStream } from './chunk-stream.js';
import { answerClientTask, isClientTask } from './client-task.js';
import { TurnWatch, type TurnSink } from './turn-watch.js';

/** Input source and output channel of turns started through the OpenAI-compatible API. */
export const OPENAI_SOURCE = 'openai';

/** What the chat-completions handler needs from its plugin. */
export interface CompletionsDeps {
  sdk: PluginSDK;
  /** Model ids this daemon answers as (`GET /v1/models`). */
  models(): string[];
  /** Largest request body (inline images included). */
  maxBodyBytes: number;
  /** SSE comment sent while a turn is silent (tools running), in ms. */
  keepAliveMs(): number;
  /** Open requests by turn id, for messages the model sends to the `openai` channel. */
  open: Map<string, TurnWatch>;
  /** Requests by idempotency key: a client's retry gets the first request's answer, not a second turn. */
  replays: ReplayTable;
}

/**
 * Sent with the error of a turn that ran: the turn and the words that started it are in the
 * session already, so the SDKs must not retry it as a new request (they honour this header).
 */
const NO_RETRY = { 'x-should-retry': 'false' };

function usageOf(w: TurnWatch): Usage {
  return { prompt_tokens: w.usage.prompt, completion_tokens: w.usage.completion, total_tokens: w.usage.prompt + w.usage.completion };
}

/** A turn that did not produce an answer, as the OpenAI-style error the client reports. */
function turnError(outcome: TurnOutcome): OpenAiApiError | undefined {
  if (outcome.status === 'ok' || outcome.status === 'short-circuit') return undefined;
  const code = outcome.error?.code ?? (outcome.status === 'aborted' ? 'ABORTED' : 'TURN_FAILED');
  const message = outcome.error?.code === 'NO_PROVIDER_CONFIGURED' ? outcome.text || outcome.error.message : (outcome.error?.message ?? outcome.text) || 'the turn failed';
  const status = code === 'NO_PROVIDER_CONFIGURED' || outcome.status === 'aborted' ? 503 : 502;
  return OpenAiApiError.of(status, message, code);
}

async function readBody(req: Request, limit: number): Promise<{ bytes: Uint8Array; json: unknown }> {
  const type = (req.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (type && type !== 'application/json') throw new OpenAiApiError(415, `${type} bodies are not accepted: send the body as JSON with the header Content-Type: application/json`, 'invalid_request_error', 'unsupported_media_type');
  const bytes = await readRawBody(req, limit);
  const text = Buffer.from(bytes).toString('utf8');
  try {
    return { bytes, json: JSON.parse(text) as unknown };
  } catch (e) {
    throw OpenAiApiError.invalid(`the body is not valid JSON: ${(e as Error).message}`, null, 'invalid_json');
  }
}

/** An error response of a turn that ran (never retried as a new request). */
function turnErrorResponse(err: OpenAiApiError, headers: Record<string, string>): Response {
  return openAiErrorResponse(err.status, err.message, err.type, err.apiCode, err.param, { ...headers, ...NO_RETRY }, err.homeagentCode);
}

/**
 * `POST /v1/chat/completions` (R-1): one request is one full HomeAgent turn — memory injection,
 * tools, the LLM chain shown live in the WebUI — in the session the request names. Answers a
 * `chat.completion`, or with `stream: true` `chat.completion.chunk` events (`data: {…}` …
 * `data: [DONE]`) as the turn produces text; reasoning streams as `reasoning_content`.
 */
export async function chatCompletions(deps: CompletionsDeps, req: Request): Promise<Response> {
  let claimed: Claim | undefined;
  try {
    ReplayTable.keyOf(req);
    const raw = await readBody(req, deps.maxBodyBytes);
    const body = parseChatCompletion(raw.json);
    if (!deps.models().includes(body.model)) {
      throw new OpenAiApiError(404, `the model '${body.model}' does not exist; this daemon answers as ${deps.models().map((m) => `'${m}'`).join(', ')} (GET /v1/models)`, 'invalid_request_error', 'model_not_found', 'model');
    }
    const plan = planTurn(body.messages);
    if (!body.stream && plan.attachments.length === 0 && isClientTask(plan.text) && deps.sdk.llm().available()) {
      // A chat app's title / tags / follow-ups request: answered without a turn, so it is neither
      // a message of the person's nor memory (client-task.ts).
      const r = await answerClientTask(deps.sdk, plan.text, req.signal);
      const o = { id: `chatcmpl-${randomBytes(12).toString('hex')}`, created: Math.floor(Date.now() / 1000), model: body.model };
      return new Response(completionJson(o, r.content, '', r.usage), { status: 200, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-homeagent-client-task': '1' } });
    }
    const sessionId = sessionFor(req.headers.get(SESSION_HEADER), body.user);
    const includeUsage = body.stream_options?.include_usage === true;
    const id = `chatcmpl-${randomBytes(12).toString('hex')}`;
    const created = Math.floor(Date.now() / 1000);
    // Claimed before any await, so a retry racing the first attempt finds it.
    const fingerprint = ReplayTable.fingerprint(raw.bytes, req.headers.get(SESSION_HEADER));
    const slot = ReplayTable.slotOf(req, fingerprint);
    const claim = deps.replays.claim(slot.key, fingerprint, () => ({ id, created, model: body.model, headers: { 'x-homeagent-session': sessionId } }), { replace: slot.replace });
    if (claim.prior) return replay(deps, claim.prior, body.stream === true, includeUsage);
    claimed = claim;
    const { sdk } = deps;
    // The session is not created here: the kernel creates it (named after the first message) once
    // it has accepted the input, so a refused request (too long, empty …) leaves no empty session.
    const known = await sdk.sessions().get(sessionId);
    const meta = {
      openai: {
        instructions: plan.instructions || undefined,
        // A transcript of the client's earlier messages matters only where HomeAgent has no memory of them.
        history: !known || known.turns === 0 ? plan.history || undefined : undefined,
        client: (req.headers.get('user-agent') ?? '').slice(0, 80) || undefined,
      },
    };
    const ticket = sdk.injectInput({ sessionId, source: OPENAI_SOURCE, channel: OPENAI_SOURCE, text: plan.text, attachments: plan.attachments.length ? plan.attachments : undefined, trigger: 'user', meta });
    claim.started(ticket.turnId);
    const headers = { 'x-homeagent-session': sessionId, 'x-homeagent-turn': ticket.turnId, 'cache-control': 'no-store' };
    const settle = claim.settle;
    claimed = undefined;
    if (!body.stream) return await answer(deps, ticket, { id, created, model: body.model, headers, settle });
    // Without any LLM source the turn can only fail (unless a stage answers it): its error is an
    // HTTP status (503) as without `stream`, not a 200 stream that carries it as an event.
    if (!sdk.llm().available()) return await answer(deps, ticket, { id, created, model: body.model, headers, settle, asStream: { includeUsage } });
    return stream(deps, ticket, { id, created, model: body.model, headers, includeUsage, settle });
  } catch (e) {
    // Refused before a turn started: a retry with this key is a new attempt.
    claimed?.release();
    return toOpenAiResponse(e);
  }
}

interface ReplyOpts {
  id: string;
  created: number;
  model: string;
  headers: Record<string, string>;
  /** Hands the turn's end to the request's retries (a no-op without an idempotency key). */
  settle(s: Settled): void;
  /** The client asked for a stream: a successful answer is sent as one (errors stay a status). */
  asStream?: { includeUsage: boolean };
}

function completionJson(o: { id: string; created: number; model: string }, content: string, reasoning: string, usage: Usage): string {
  const message: Record<string, unknown> = { role: 'assistant', content, refusal: null };
  if (reasoning) message.reasoning_content = reasoning;
  return JSON.stringify({ id: o.id, object: 'chat.completion', created: o.created, model: o.model, choices: [{ index: 0, message, logprobs: null, finish_reason: 'stop' }], usage, system_fingerprint: null });
}

async function answer(deps: CompletionsDeps, ticket: { turnId: string; done: Promise<TurnOutcome> }, o: ReplyOpts): Promise<Response> {
  let reasoning = '';
  const watch = new TurnWatch(deps.sdk, ticket.turnId, { content: () => {}, reasoning: (t) => void (reasoning += t) }).start();
  deps.open.set(ticket.turnId, watch);
  try {
    const outcome = await ticket.done;
    const err = turnError(outcome);
    if (err) {
      o.settle({ ok: false, error: err });
      return turnErrorResponse(err, o.headers);
    }
    watch.finish(outcome);
    const usage = usageOf(watch);
    o.settle({ ok: true, content: watch.content, reasoning, usage });
    if (o.asStream) return settledStream(deps, o, Promise.resolve({ ok: true, content: watch.content, reasoning, usage }), o.asStream.includeUsage).response(o.headers);
    return new Response(completionJson(o, watch.content, reasoning, usage), { status: 200, headers: { ...o.headers, 'content-type': 'application/json; charset=utf-8' } });
  } catch (e) {
    // The turn was started (its words are in the session) and then failed.
    const err = toOpenAiError(e);
    o.settle({ ok: false, error: err });
    return turnErrorResponse(err, o.headers);
  } finally {
    deps.open.delete(ticket.turnId);
    watch.dispose();
  }
}

/**
 * A retry of a request already under way or answered (same `Idempotency-Key`, same body): the
 * first request's answer, with its id, once its turn has ended — streamed as one chunk if the
 * retry asks for a stream. No turn starts.
 */
function replay(deps: CompletionsDeps, prior: ReplayEntry, streamed: boolean, includeUsage: boolean): Response | Promise<Response> {
  const headers = { ...prior.headers, 'cache-control': 'no-store', 'idempotent-replayed': 'true' };
  if (!streamed) {
    return prior.result.then((s) =>
      s.ok ? new Response(completionJson(prior, s.content, s.reasoning, s.usage), { status: 200, headers: { ...headers, 'content-type': 'application/json; charset=utf-8' } }) : turnErrorResponse(s.error, headers),
    );
  }
  return settledStream(deps, prior, prior.result, includeUsage).response(headers);
}

/** A turn's end (once known) as a stream: the whole answer as one chunk, or the error event. */
function settledStream(deps: CompletionsDeps, ident: { id: string; created: number; model: string }, result: Promise<Settled>, includeUsage: boolean): ChunkStream {
  const out = new ChunkStream(ident, { keepAliveMs: deps.keepAliveMs() });
  void result.then((s) => {
    if (s.ok) {
      if (s.reasoning) out.chunk({ reasoning_content: s.reasoning });
      if (s.content) out.chunk({ content: s.content });
      out.chunk({}, 'stop');
      if (includeUsage) out.usage(s.usage);
    } else out.error(s.error);
    out.end();
  });
  return out;
}

function stream(deps: CompletionsDeps, ticket: { turnId: string; done: Promise<TurnOutcome> }, o: ReplyOpts & { includeUsage: boolean }): Response {
  let reasoning = '';
  const end = () => {
    deps.open.delete(ticket.turnId);
    watch.dispose();
  };
  // The client going away stops the sending; the turn itself runs to its end and stays in memory.
  const out = new ChunkStream(o, { keepAliveMs: deps.keepAliveMs(), onCancel: end });
  const sink: TurnSink = {
    content: (t) => out.chunk({ content: t }),
    reasoning: (t) => {
      reasoning += t;
      out.chunk({ reasoning_content: t });
    },
  };
  const watch = new TurnWatch(deps.sdk, ticket.turnId, sink).start();
  deps.open.set(ticket.turnId, watch);
  void ticket.done.then(
    (outcome) => {
      const err = turnError(outcome);
      if (err) {
        o.settle({ ok: false, error: err });
        out.error(err);
      } else {
        watch.finish(outcome);
        o.settle({ ok: true, content: watch.content, reasoning, usage: usageOf(watch) });
        out.chunk({}, 'stop');
        if (o.includeUsage) out.usage(usageOf(watch));
      }
      end();
      out.end();
    },
    (e: unknown) => {
      const err = toOpenAiError(e);
      o.settle({ ok: false, error: err });
      out.error(err);
      end();
      out.end();
    },
  );
  return out.response(o.headers);
}
