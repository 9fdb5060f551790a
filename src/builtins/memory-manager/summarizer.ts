import type { ChatMessage, LlmAPI, SessionsAPI } from '../../sdk/index.js';
import { NotFoundError, ValidationError } from '../../sdk/index.js';
import { NoProviderError } from '../../spec/index.js';
import { MemoryManagerError } from './errors.js';
import { clip } from './injection-budget.js';
import { TAG_SUMMARY, type MemoryRecord } from './memory-file.js';
import { buildTurns, type Turn } from './session-turns.js';

/** Progress of a summary run (callback and `custom:memory-manager.progress`). */
export interface SummaryProgress {
  sessionId: string;
  phase: 'turns' | 'grouping' | 'summarizing' | 'saving' | 'done';
  done: number;
  total: number;
  message: string;
}

/** The six-part summary the LLM returns for a group of turns. */
export interface SummaryParts {
  user: string;
  thinking: string;
  processing: string;
  result: string;
}

export interface SummarizeArgs {
  sessionId: string;
  /** Only the last N (not excluded) turns. */
  lastN?: number;
  /** Let the LLM group consecutive turns of one task. */
  merge?: boolean;
}

export interface SummarizeDeps {
  sessions: SessionsAPI;
  llm: LlmAPI;
  excluded(sessionId: string): Promise<string[]>;
  /** Saves all summaries at once (nothing is written when anything failed before). */
  saveAll(inputs: Record<string, unknown>[]): Promise<MemoryRecord[]>;
}

const TURN_CHARS = 3000;

/** The memory title of a summary: `会话总结（<session> · 轮次 X-Y）`. */
export function summaryTitle(session: string, from: number, to: number): string {
  return `会话总结（${session} · 轮次 ${from}-${to}）`;
}

/** Extracts the first JSON object or array of an LLM answer (code fences and prose tolerated). */
export function extractJson(text: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  const body = (fenced ? fenced[1] : text).trim();
  try {
    return JSON.parse(body);
  } catch {}
  const starts = [body.indexOf('{'), body.indexOf('[')].filter((i) => i >= 0);
  if (!starts.length) throw new Error('no JSON in the answer');
  const start = Math.min(...starts);
  const end = Math.max(body.lastIndexOf('}'), body.lastIndexOf(']'));
  return JSON.parse(body.slice(start, end + 1));
}

/** Validates `{user, thinking, processing, result}`; throws on any missing part. */
export function parseSummaryParts(text: string): SummaryParts {
  const v = extractJson(text) as Record<string, unknown>;
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('answer is not a JSON object');
  const out: Record<string, string> = {};
  for (const k of ['user', 'thinking', 'processing', 'result']) {
    const x = v[k];
    if (typeof x === 'string') out[k] = x.trim();
    else if (Array.isArray(x)) out[k] = x.map(String).join('\n');
    else throw new Error(`missing "${k}"`);
  }
  return out as unknown as SummaryParts;
}

/** Validates a grouping answer `{"groups": [[1,2],[3]]}` over `count` turns (consecutive, complete, in order). */
export function parseGroups(text: string, count: number): number[][] {
  const v = extractJson(text) as unknown;
  const groups = Array.isArray(v) ? v : (v as { groups?: unknown })?.groups;
  if (!Array.isArray(groups) || !groups.length) throw new Error('no "groups" array');
  let expect = 1;
  const out: number[][] = [];
  for (const g of groups) {
    if (!Array.isArray(g) || !g.length) throw new Error('a group is not a non-empty array');
    for (const n of g) {
      if (n !== expect) throw new Error(`groups must list turns 1..${count} consecutively (expected ${expect}, got ${JSON.stringify(n)})`);
      expect++;
    }
    out.push(g as number[]);
  }
  if (expect !== count + 1) throw new Error(`groups cover ${expect - 1} of ${count} turns`);
  return out;
}

function turnText(t: Turn, i: number): string {
  const parts = [`【第 ${i} 条 · 轮次 ${t.n}】`, `用户：${clip(t.user, TURN_CHARS).text}`];
  if (t.tools.length) parts.push(`工具：${clip(t.tools.join('\n'), TURN_CHARS).text}`);
  parts.push(`助手：${clip(t.assistant, TURN_CHARS).text}`);
  return parts.join('\n');
}

async function askJson<T>(llm: LlmAPI, messages: ChatMessage[], parse: (text: string) => T, what: string): Promise<T> {
  let lastError = '';
  for (let attempt = 0; attempt < 2; attempt++) {
    const msgs = attempt === 0 ? messages : [...messages, { role: 'user' as const, content: `上一次的回答不是有效 JSON（${lastError}）。请只输出符合要求的 JSON。` }];
    const res = await llm.chat({ messages: msgs, temperature: 0.2 });
    try {
      return parse(res.text);
    } catch (e) {
      lastError = (e as Error).message;
    }
  }
  throw new MemoryManagerError('MM_LLM_BAD_JSON', `the LLM returned malformed JSON for the ${what} twice (${lastError}); nothing was saved`, { what });
}

/**
 * Session summary (M-8): turns (excluded skipped) → optional LLM grouping → one LLM summary per
 * group → all saved as `会话总结` memories at the end (nothing is written on any failure).
 */
export async function summarizeSession(deps: SummarizeDeps, args: SummarizeArgs, onProgress: (p: SummaryProgress) => void = () => undefined): Promise<{ summaries: MemoryRecord[]; count: number }> {
  const { sessionId } = args;
  if (!deps.llm.available()) {
    throw new NoProviderError('session summaries need an LLM, and none is configured (set DEEPSEEK_API_KEY, OPENAI_API_KEY, ANTHROPIC_API_KEY or a local Ollama); nothing was saved');
  }
  const info = await deps.sessions.get(sessionId);
  if (!info) throw new NotFoundError('session', sessionId);
  const excluded = new Set(await deps.excluded(sessionId));
  // Excluded and forgotten turns are not summarized (M-9, K-2).
  let turns = buildTurns(await deps.sessions.events(sessionId), excluded).filter((t) => !t.excluded && !t.forgotten);
  if (args.lastN !== undefined) turns = turns.slice(-Math.max(1, args.lastN));
  if (!turns.length) throw new ValidationError(`session ${sessionId} has no turns to summarize`, { path: 'sessionId' });
  const report = (phase: SummaryProgress['phase'], done: number, total: number, message: string) => onProgress({ sessionId, phase, done, total, message });
  report('turns', turns.length, turns.length, `${turns.length} 轮`);

  let groups: number[][] = turns.map((_, i) => [i + 1]);
  if (args.merge && turns.length > 1) {
    report('grouping', 0, 1, '按事务合并连续轮次');
    groups = await askJson(
      deps.llm,
      [
        { role: 'system', content: '你把对话轮次按事务分组：同一件事的连续轮次归为一组。只输出 JSON：{"groups": [[1,2],[3]]}，编号是给出的条目序号，必须按顺序、连续、覆盖全部条目。' },
        { role: 'user', content: turns.map((t, i) => turnText(t, i + 1)).join('\n\n') },
      ],
      (text) => parseGroups(text, turns.length),
      'grouping',
    );
    report('grouping', 1, 1, `${groups.length} 组`);
  }

  const session = info.title?.trim() || sessionId;
  const inputs: Record<string, unknown>[] = [];
  for (const [gi, g] of groups.entries()) {
    report('summarizing', gi, groups.length, `总结第 ${gi + 1}/${groups.length} 组`);
    const gTurns = g.map((i) => turns[i - 1]);
    const parts = await askJson(
      deps.llm,
      [
        { role: 'system', content: '你为一段对话写总结。只输出 JSON：{"user": 用户诉求, "thinking": 思考与判断, "processing": 处理过程, "result": 结果与结论}，四个字段都是字符串。' },
        { role: 'user', content: gTurns.map((t, i) => turnText(t, i + 1)).join('\n\n') },
      ],
      parseSummaryParts,
      'summary',
    );
    const from = gTurns[0].n;
    const to = gTurns[gTurns.length - 1].n;
    inputs.push({
      title: summaryTitle(session, from, to),
      snapshot: [`**用户**：${parts.user}`, `**思考**：${parts.thinking}`, `**处理**：${parts.processing}`, `**结果**：${parts.result}`]
        .join('\n\n')
        // An LLM echoing the notes marker on its own line must not split the file.
        .replace(/^[ \t]*<!-- notes -->[ \t]*$/gm, '<!-- notes（引用） -->'),
      impressions: ['会话总结', `会话 ${sessionId}`],
      tags: [TAG_SUMMARY],
      source: { sessionId, seqs: gTurns.flatMap((t) => t.seqs) },
      // One speaker for the whole group of turns is recorded; several (a group chat) are not one "who".
      ...(gTurns.every((t) => t.speaker && t.speaker.id === gTurns[0].speaker?.id) ? { speaker: gTurns[0].speaker } : {}),
      ...(gTurns[0].conversation ? { conversation: gTurns[0].conversation } : {}),
    });
  }
  report('saving', 0, inputs.length, '保存');
  const summaries = await deps.saveAll(inputs);
  report('done', summaries.length, summaries.length, `已保存 ${summaries.length} 条会话总结`);
  return { summaries, count: summaries.length };
}
