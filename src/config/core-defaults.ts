import { z } from 'zod';
import { API_KEY_PROBLEM, apiKeyProblem, isTimeZone, speakerIdProblem, type ConfigKeyDef, type ConfigValue } from '../spec/index.js';
import { durationSchema } from './duration.js';
import { isPersonaPath } from './persona-path.js';
import { proxyUrlProblem } from '../net/index.js';

function key<T extends ConfigValue>(schema: z.ZodType<T>, def: T, description: string, extra: Partial<ConfigKeyDef<T>> = {}): ConfigKeyDef {
  return { schema, default: def, description, ...extra } as unknown as ConfigKeyDef;
}

const int = (min: number, max: number) => z.number().int().min(min).max(max);
const ratio = () => z.number().min(0).max(1);
const duration = (def: string, description: string) => key(durationSchema(), def, `${description} (duration such as "30m", "2h")`);

/**
 * The core keys of HomeAgent (`core.*`, G-1) with defaults, schemas and descriptions. LLM source
 * keys are registered by `src/providers`; plugin keys by each plugin.
 */
export function coreConfigDefaults(): Record<string, ConfigKeyDef> {
  return {
    // agent (C-)
    'core.agent.name': key(z.string().min(1).max(64), 'HomeAgent', 'Name the agent uses for itself'),
    'core.agent.persona_file': key(
      z
        .string()
        .min(1)
        .max(300)
        .refine(isPersonaPath, 'a .md or .txt file inside the data folder, such as "persona.md" or "personas/work.md" (not an absolute path, no "..")'),
      'persona.md',
      'Persona file (the system prompt the agent is given), relative to the data folder; read again within seconds of a change',
      { privileged: true },
    ),
    'core.agent.max_tool_rounds': key(int(1, 100), 8, 'Most LLM rounds with tool calls in one turn'),
    'core.agent.stage_timeout_ms': key(int(100, 600_000), 10_000, 'Time limit of one plugin stage handler in ms'),
    'core.agent.tool_result_chars': key(int(1_000, 10_000_000), 100_000, 'Most characters of one tool result the model reads; the rest is cut, and the result says so'),
    'core.agent.tool_timeout_ms': key(int(100, 3_600_000), 120_000, 'Time limit of one tool call in ms'),
    'core.agent.llm_timeout_ms': key(int(1_000, 3_600_000), 180_000, 'Time limit of one LLM call in ms'),
    'core.agent.consolidation_max_rounds': key(int(1, 100), 8, 'Most LLM rounds of a consolidation turn'),
    'core.agent.timeline_chars': key(int(500, 1_000_000), 12_000, 'Characters of the context timeline rendered into the system prompt'),
    'core.agent.stream': key(z.boolean(), true, 'Stream LLM output to channels as it arrives'),
    'core.agent.language': key(z.string().min(1).max(32), 'auto', 'Reply language (BCP 47 tag such as "zh-CN", or "auto" to follow the user)'),
    'core.agent.timezone': key(
      z.string().max(64).refine((v) => v === '' || isTimeZone(v), { message: 'unknown time zone: use an IANA name such as Europe/Berlin or Asia/Shanghai, or "" for the system time zone' }),
      '',
      'IANA time zone of the person: the times the model and you read, the days recall counts, cron timers without their own zone ("" = system time zone)',
    ),
    // context (T-)
    'core.context.top_k': key(int(1, 1000), 40, 'Events kept in the relevance context window'),
    'core.context.save_debounce_ms': key(int(0, 600_000), 5_000, 'Debounce of saving the context file in ms'),
    // memory (T-, M-)
    'core.memory.distill_interval': duration('30m', 'How often conversation is distilled into memories'),
    'core.memory.archive_interval': duration('60m', 'How often cold memories are archived'),
    'core.memory.merge_interval': duration('120m', 'How often similar memories are merged'),
    'core.memory.review_interval': duration('120m', 'How often memories are reviewed'),
    'core.memory.rule_distill_interval': duration('10m', 'How often rules are distilled'),
    'core.memory.rule_retention_days': key(int(1, 3650), 7, 'Days rule sources are kept'),
    'core.memory.cold_after_hours': key(int(1, 87_600), 72, 'Hours without access after which a memory is cold'),
    'core.memory.cold_max_access': key(int(0, 1_000_000), 2, 'A memory accessed at most this often counts as cold'),
    'core.memory.archive_batch': key(int(1, 100_000), 500, 'Cold documents the archive loop distills and moves to the cold archive per run'),
    'core.memory.warm_max_docs': key(int(100, 10_000_000), 5_000, 'Most documents kept in the warm tier (in memory); the least recently used beyond it move to the cold archive'),
    'core.memory.merge_threshold': key(ratio(), 0.75, 'Similarity above which memories are merged (0…1)'),
    'core.memory.recall_depth': key(int(0, 10), 2, 'Graph hops followed when recalling memories'),
    'core.memory.library_dir': key(z.string().min(1), 'memory', 'Memory library folder, relative to the data folder', { privileged: true }),
    'core.memory.embedding_max_words': key(int(1_000, 10_000_000), 200_000, 'Vocabulary size cap of the local embedder'),
    'core.memory.embedding_model_path': key(z.string(), '', 'Local embedding model folder ("" = none)', { privileged: true }),
    'core.memory.embedding_download_url': key(z.union([z.literal(''), z.url()]), '', 'Where a missing vector file is downloaded from: "" = by its name (ConceptNet Numberbatch or fastText); a URL ending in "/" = a mirror folder with the usual file names; any other URL = the file itself', { privileged: true }),
    'core.memory.embedding_api.base_url': key(z.union([z.literal(''), z.url()]), '', 'OpenAI-compatible embeddings API base URL ("" = none)', { privileged: true }),
    'core.memory.embedding_api.model': key(z.string(), '', 'Embedding model name at the embeddings API'),
    'core.memory.embedding_api.api_key': key(z.string().refine((k) => !apiKeyProblem(k), API_KEY_PROBLEM), '', 'API key of the embeddings API', { secret: true, env: 'HOMEAGENT_EMBEDDING_API_KEY' }),
    // documents / knowledge (T-10)
    'core.docs.auto_inject_top': key(int(0, 50), 3, 'Related documents injected into the system prompt'),
    'core.knowledge.top_k': key(int(1, 100), 5, 'Knowledge hits injected into the system prompt'),
    // sessions and text log (C-9)
    'core.textlog.rotate_bytes': key(int(4_096, 1 << 30), 16 * 1024 * 1024, 'Size at which logs/text.jsonl is rotated, in bytes'),
    'core.textlog.keep_files': key(int(1, 1000), 10, 'Rotated text log files kept'),
    // people on chat channels
    'core.identity.owner_ids': key(z.array(z.string().regex(/^[A-Za-z0-9_-]{1,64}:[^\s]{1,100}$/, 'an id is the chat app and your id there, such as "telegram:42" or "qq:10001"').superRefine((id, ctx) => { const problem = speakerIdProblem(id); if (problem) ctx.addIssue({ code: 'custom', message: problem }); })).max(100), [], 'Your own ids on chat channels ("telegram:42", "qq:10001"): your chats there see the whole conversation timeline; anyone else\'s chat sees only its own', { privileged: true }),
    // proactive messages
    'core.notify.channel': key(z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/), 'webui', 'Output channel that timer results, notices and other proactive messages go to: webui (with a browser notification), telegram, qq … (a chat started in Telegram or QQ is answered there)', { privileged: true }),
    // outbound network (decision 0670)
    'core.network.proxy': key(
      z
        .string()
        .max(2048)
        .superRefine((v, ctx) => {
          const problem = v.trim() === 'direct' ? undefined : proxyUrlProblem(v);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        }),
      '',
      'HTTP(S) proxy that requests to LLM sources and the Telegram Bot API go through, such as "http://127.0.0.1:7890" (Clash, V2Ray); optionally "http://user:password@host:port". "" = the HTTPS_PROXY / HTTP_PROXY environment variables if set (NO_PROXY is followed), "direct" = never a proxy. Loopback and private addresses are always reached directly; web_fetch never uses the proxy',
      // Where the API keys go: a prompt-injected model or an MCP client must not send them through a proxy it chose.
      { privileged: true },
    ),
    // webui (W-)
    // (host, port and token are the webui plugin's own settings: plugin.webui.host / port / token)
    // attachments (C-11)
    'core.media.text_budget_chars': key(int(0, 2_000_000), 24_000, 'Characters of attached files (text, Markdown, code, PDF text, transcripts) that reach the model with one message; the rest is cut, and the whole file stays in the media folder'),
    'core.media.max_pdf_pages': key(int(1, 10_000), 200, 'Pages of an attached PDF that are read at most'),
    'core.media.html_timeout_ms': key(
      int(1_000, 600_000),
      15_000,
      'Time limit of reading one HTML page into text (web_fetch\'s pages, HTML files added to the knowledge base), in ms; the reader runs beside the daemon and is stopped when a page takes longer',
      // A protection against hostile pages: the model may not raise it (decision 0580).
      { privileged: true },
    ),
    'core.media.pdf_timeout_ms': key(
      int(1_000, 600_000),
      60_000,
      'Time limit of reading one PDF\'s text (attached files, PDFs added to the knowledge base), in ms; the reader runs beside the daemon and is stopped when a PDF takes longer',
      // A protection against hostile files, as html_timeout_ms is: the model may not raise it (decision 0630).
      { privileged: true },
    ),
    'core.media.transcription.source': key(z.string().max(64), '', 'LLM source that transcribes audio attachments ("" = the first ready source that offers it: the OpenAI API, or a source whose options name a transcription_model)'),
    'core.media.transcription.model': key(z.string().max(200), '', 'Speech-to-text model ("" = the source\'s options.transcription_model, else whisper-1)'),
    'core.media.transcription.language': key(z.string().max(16), '', 'Language of the audio as an ISO-639-1 code ("" = detect)'),
    // plugins (P-)
    'core.plugins.start_timeout_ms': key(int(1_000, 600_000), 30_000, 'Time limit of one plugin\'s start, in ms; a plugin that takes longer is marked failed'),
    'core.plugins.ready_wait_ms': key(int(0, 60_000), 3_000, 'How long homed waits for its plugins before it reports ready, in ms; slower plugins go on starting and their state settles in the plugin list'),
    // daemon logs (C-12)
    'core.log.level': key(z.enum(['debug', 'info', 'warn', 'error']), 'info', 'Daemon log level'),
    'core.log.rotate_bytes': key(int(4_096, 1 << 30), 10 * 1024 * 1024, 'Size at which daemon logs are rotated, in bytes'),
    'core.log.keep_files': key(int(1, 1000), 5, 'Rotated daemon log files kept'),
    // sub-agents (C-10)
    'core.subagent.max_rounds': key(int(1, 100), 6, 'Most LLM rounds of a sub-agent'),
    'core.subagent.timeout_ms': key(int(1_000, 3_600_000), 300_000, 'Time limit of a sub-agent in ms'),
  };
}
