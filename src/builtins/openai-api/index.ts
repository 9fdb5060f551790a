/**
 * `openai-api` built-in plugin: HomeAgent as an OpenAI-compatible chat API, so chat apps
 * (Open WebUI, Chatbox, LobeChat …) and the `openai` SDKs can add it as a provider. Base URL
 * `http://127.0.0.1:8765/v1`, API key = the daemon's token (`<data>/auth-token`); the routes live
 * under `/v1/`, behind the same guard as every API route (token, same-origin only).
 */
import { z } from 'zod';
import { Cap, definePlugin, type PluginDefinition, type StageContext } from '../../sdk/index.js';
import { chatCompletions, OPENAI_SOURCE, type CompletionsDeps } from './chat-completions.js';
import { openAiErrorResponse } from './openai-error.js';
import { ReplayTable } from './replay-table.js';
import type { TurnWatch } from './turn-watch.js';

const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;

/** Builds the plugin; each call has its own open-request table. */
export function createOpenaiApiPlugin(): PluginDefinition {
  const open = new Map<string, TurnWatch>();
  // The SDKs retry within seconds to minutes (their default timeout is 10 min); an hour covers it.
  const replays = new ReplayTable({ maxEntries: 1_000, ttlMs: 60 * 60_000 });
  return definePlugin({
    name: 'openai-api',
    description: 'OpenAI-compatible chat API (/v1/models, /v1/chat/completions) answered by full HomeAgent turns',
    settings: {
      model_id: { default: 'homeagent', description: 'The model name clients pick for HomeAgent (GET /v1/models lists it)', schema: z.string().regex(MODEL_ID) },
      keep_alive_ms: { default: 15_000, description: 'While a streamed turn is silent (tools running), an SSE comment is sent this often', schema: z.number().int().min(1000).max(300_000) },
    },
    start(sdk) {
      const started = Math.floor(Date.now() / 1000);
      // A forget drops the kept answers of its turns (decision 0430): a retry would bring one back.
      const mc = sdk.use('host.memory-control');
      if (mc) {
        sdk.onDispose(
          mc.registerForgetParticipant('openai-replays', {
            inMemoryOnly: true,
            find: async () => [],
            describe: async () => [],
            remove: async () => ({ removed: 0, texts: [] }),
            scrub: async (texts, turnIds) => replays.dropForgotten(new Set(turnIds), texts),
          }),
        );
      }
      const models = () => [String(sdk.settings().get('model_id') ?? 'homeagent')];
      const deps: CompletionsDeps = { sdk, models, maxBodyBytes: 20 * 1024 * 1024, keepAliveMs: () => Number(sdk.settings().get('keep_alive_ms') ?? 15_000), open, replays };
      const model = (id: string) => ({ id, object: 'model', created: started, owned_by: 'homeagent' });
      sdk.registerRoute({ method: 'GET', path: '/v1/models', handler: () => Response.json({ object: 'list', data: models().map(model) }) });
      sdk.registerRoute({
        method: 'GET',
        path: '/v1/models/:model',
        handler: (_req, p) => (models().includes(p.model) ? Response.json(model(p.model)) : openAiErrorResponse(404, `the model '${p.model}' does not exist`, 'invalid_request_error', 'model_not_found', 'model')),
      });
      sdk.registerRoute({ method: 'POST', path: '/v1/chat/completions', handler: (req) => chatCompletions(deps, req) });
      sdk.registerOutputChannel(OPENAI_SOURCE, Cap.Text, 'An OpenAI-compatible API client (a chat app such as Open WebUI or Chatbox): your reply is the answer to its request.', (msg) => {
        // The final reply comes from the turn's outcome; other messages join the open answer.
        if ((msg.meta as { status?: unknown }).status !== undefined) return;
        const watch = msg.turnId ? open.get(msg.turnId) : undefined;
        if (watch) watch.extra(msg.payload);
        else sdk.log.info('a message for the openai channel had no open request to join', { sessionId: msg.sessionId });
      });
      // The client's system messages (and, for a session HomeAgent has not seen, its earlier
      // messages) reach the model for this turn only, marked as what they are. The kernel puts a
      // stage's system text into the leading system message (strict chat templates want it first).
      sdk.registerStage('pre_action', (ctx: StageContext) => {
        if (ctx.input.source !== OPENAI_SOURCE) return;
        const m = (ctx.input.meta as { openai?: { instructions?: unknown; history?: unknown } } | undefined)?.openai;
        if (typeof m?.instructions === 'string' && m.instructions) {
          ctx.messages.push({ role: 'system', source: 'openai-api', content: `【客户端指令 / Instructions from the chat client for this reply】\n${m.instructions}` });
        }
        if (typeof m?.history === 'string' && m.history) {
          ctx.messages.push({ role: 'system', source: 'openai-api', content: `【客户端中的先前对话 / Earlier conversation in the chat client, before HomeAgent took part】\n${m.history}` });
        }
      });
    },
    stop() {
      open.clear();
      replays.clear();
    },
  });
}

export default createOpenaiApiPlugin();

export { OpenAiApiError, openAiErrorResponse } from './openai-error.js';
export { ReplayTable, IDEMPOTENCY_HEADER } from './replay-table.js';
export { parseChatCompletion, planTurn, sessionFor, SESSION_HEADER, type TurnPlan } from './chat-request.js';
