/**
 * The built-in plugins' questions (`host.confirm`) in the page's language. The daemon asks in
 * English from one builder per kind (src/spec/confirm-questions.ts); the Chinese page recognises
 * each question, and each line of a forget's plan, whole (anchored) and says it in Chinese. The
 * words the question quotes (a memory's title, a command, what a turn said) stay as they are. A
 * question a person's own plugin asks stays in its own words. test/confirm-words.test.ts builds
 * every kind and fails on English left.
 */
import { dict } from '../i18n-dict.js';
import { sayFrom, type Phrase } from './phrasebook.js';

type Lang = 'en' | 'zh';

const zh = dict.zh as Record<string, string>;
/** A reserved tag as the Chinese page calls it (规约 …); a person's own tag as written. */
const tagZh = (tag: string) => zh[`tag.${tag}`] ?? tag;
const tagsZh = (list: string) => list.split(' / ').map(tagZh).join(' / ');
const placesZh = (list: string) => list.split(', ').map((p) => zh[`tier.${p}`] ?? p).join('、');

const QUESTIONS: Phrase[] = [
  [/^Save a memory tagged (.+) \(injected into every new session\)\?$/, (m) => `要保存一条标为“${tagsZh(m[1])}”的记忆吗？（它会注入之后的每个新对话）`],
  [/^An MCP client wants to save a memory tagged (.+) \(injected into every new session\)\. Allow\?$/, (m) => `一个 MCP 客户端想保存一条标为“${tagsZh(m[1])}”的记忆（它会注入之后的每个新对话）。允许吗？`],
  [/^Change the notes of "([\s\S]*)" \(given to the model in every new session or on your turns\)\?$/, (m) => `要修改“${m[1]}”的标注吗？（它会在每个新对话或你的每一轮里交给模型）`],
  [/^Add "([\s\S]*)" to the injection plan \(given to the model on your turns\)\?$/, (m) => `要把“${m[1]}”加入注入计划吗？（它会在你的每一轮里交给模型）`],
  [/^(The assistant|An MCP client) asks to forget (\d+) item\(s\) from every memory tier and the session log\. This cannot be undone\. Forget them\?$/, (m) => `${m[1] === 'The assistant' ? '助手' : '一个 MCP 客户端'}请求从所有记忆层和会话日志中遗忘 ${m[2]} 项。遗忘后无法恢复。要遗忘吗？`],
  [/^Run ([\s\S]+)\?$/, (m) => `要运行 ${m[1]} 吗？`],
  [/^Open a terminal \(([\s\S]+)\)\?$/, (m) => `要打开一个终端（${m[1]}）吗？`],
];

const DETAIL_LINES: Phrase[] = [
  [/^Replace the notes with:$/, () => '把标注替换为：'],
  [/^Append to the notes:$/, () => '在标注后追加：'],
  [/^turn (\S+) \(quotes what was said\) \[([^\]]*)\]: ([\s\S]*)$/, (m) => `轮次 ${m[1]}（引用了要遗忘的内容）［${placesZh(m[2])}］：${m[3]}`],
  [/^turn (\S+) \[([^\]]*)\]: ([\s\S]*)$/, (m) => `轮次 ${m[1]}［${placesZh(m[2])}］：${m[3]}`],
  [/^fact #(\d+) \(kept(, without the turn it came from)?\): ([\s\S]*)$/, (m) => `事实 #${m[1]}（保留${m[2] ? '，不再关联它所来自的对话' : ''}）：${m[3]}`],
  [/^fact #(\d+): ([\s\S]*)$/, (m) => `事实 #${m[1]}：${m[2]}`],
  [/^note (\w+):(\S+): ([\s\S]*)$/, (m) => `笔记 ${zh[`tier.${m[1]}`] ?? m[1]}:${m[2]}：${m[3]}`],
  [/^library memory (\S+) "([\s\S]*)"( \(made from what is forgotten\))?$/, (m) => `记忆库里的记忆 ${m[1]}“${m[2]}”${m[3] ? '（由要遗忘的内容生成）' : ''}`],
  [/^… and (\d+) more turns that quote it$/, (m) => `…… 还有 ${m[1]} 个引用它的轮次`],
  [/^… and (\d+) more turns$/, (m) => `…… 还有 ${m[1]} 个轮次`],
  [/^… and (\d+) more facts$/, (m) => `…… 还有 ${m[1]} 条事实`],
  [/^… and (\d+) more library memories$/, (m) => `…… 还有 ${m[1]} 条记忆库里的记忆`],
];

/** The built-in plugins that ask with the builders of src/spec/confirm-questions.ts. */
const BUILT_IN_ASKERS = new Set(['memory-manager', 'mcp-server', 'cmd', 'agentcli']);


/** A confirmation's question as the person reads it in `lang` (a person's own plugin asks in its own words). */
export function confirmTitleInWords(title: string, plugin: string, lang: Lang): string {
  return lang === 'zh' && BUILT_IN_ASKERS.has(plugin) ? (sayFrom(QUESTIONS, title) ?? title) : title;
}

/**
 * A confirmation's detail in `lang`: the lines the daemon writes itself (a forget's plan, the lead
 * of a change of notes) in Chinese, anything else — quoted content — as it is. Only the built-in
 * plugins' details are read line by line; another plugin's detail is its own.
 */
export function confirmDetailInWords(detail: string, plugin: string, lang: Lang): string {
  if (lang !== 'zh' || !BUILT_IN_ASKERS.has(plugin)) return detail;
  return detail
    .split('\n')
    .map((line) => sayFrom(DETAIL_LINES, line) ?? line)
    .join('\n');
}
