/**
 * An import report's notes in the page's language. The daemon writes each note in English from one
 * builder per kind (src/spec/import-notes.ts); the Chinese page recognises each kind whole (the
 * patterns are anchored) and says it in Chinese. A note it does not know stays as the daemon wrote
 * it. test/import-note-words.test.ts builds every kind of note and checks it is said in Chinese.
 */
import { errorInWords } from './error-words.js';
import { sayFrom, type Phrase } from './phrasebook.js';

type Lang = 'en' | 'zh';

const forgetCounts = (m: RegExpExecArray, at: number) => `${m[at]} 轮对话、${m[at + 1]} 条事实、${m[at + 2]} 篇文档`;
const why = (s: string) => (s === 'the memory-control store is not open' ? '记忆控制的存储没有打开' : errorInWords({ message: s }, 'zh'));

const NOTES: Phrase[] = [
  [/^session (\S+) in the archive has (\d+) lines? that could not be read: left out \(the archive still holds them\)$/, (m) => `存档里的对话 ${m[1]} 有 ${m[2]} 行读不出来：这些行没有导入（存档里仍保留着）`],
  [/^session (\S+) here has (\d+) lines? that could not be read: it was kept as it is and the archive's left out$/, (m) => `这里的对话 ${m[1]} 有 ${m[2]} 行读不出来：它保持原样，存档里的这个对话没有导入`],
  [/^session (\S+) here has (\d+) lines? that could not be read: it was kept as it is and the archive's imported beside it$/, (m) => `这里的对话 ${m[1]} 有 ${m[2]} 行读不出来：它保持原样，存档里的这个对话另存为一个新对话`],
  [/^session (\S+) here has turns the archive's does not: overwrite kept it and imported the archive's beside it$/, (m) => `这里的对话 ${m[1]} 有存档里没有的轮次：“覆盖”保留了它，存档里的这个对话另存为一个新对话`],
  [/^(\d+) unreadable documents in the archive were left out$/, (m) => `存档里有 ${m[1]} 篇文档读不出来，没有导入`],
  [/^(\d+) invalid context events in the archive were left out$/, (m) => `存档里有 ${m[1]} 条无效的上下文事件，没有导入`],
  [/^library memory (\S+) would reach every session and its front matter could not be marked disabled: left out \(the archive still holds it\)$/, (m) => `记忆库里的记忆 ${m[1]} 会注入每个对话，但无法把它标为关闭：没有导入（存档里仍保留着）`],
  [/^(\d+) library memor(?:y|ies) of the archive would reach every session \(convention or session summary\): imported disabled — enable each in the library once you have read it, or import again approving them$/, (m) => `存档里有 ${m[1]} 条记忆会注入每个对话（约定或对话摘要）：已导入但处于关闭状态——读过之后在记忆库里逐条开启，或重新导入并同意注入`],
  [/^the archive's injection plan would reach every turn: left out — import again approving it to take it$/, () => '存档里的注入计划会影响每一轮对话：没有导入——如需采用，请重新导入并同意注入'],
  [/^the archive's persona would replace this one and reach every session: left out — import again approving it to take it$/, () => '存档里的人设会替换现在的人设并影响每个对话：没有导入——如需采用，请重新导入并同意注入'],
  [/^setting (\S+) is not known here and was left out$/, (m) => `设置 ${m[1]} 在这里不存在，没有导入`],
  [/^setting (\S+) is a secret and was left out \(secrets are never imported\)$/, (m) => `设置 ${m[1]} 是密钥，没有导入（密钥从不导入）`],
  [/^setting (\S+) says where the other install keeps its persona and was left out \(the persona came as persona\.md\)$/, (m) => `设置 ${m[1]} 指向另一台机器上人设文件的位置，没有导入（人设已作为 persona.md 导入）`],
  [/^(\d+) turn tombstones? of the archive (?:is|are) not recorded here \(turn ids are not the same turns on another install: what was said in them is matched instead\); (?:it only keeps|they only keep) the archive's own forgotten turns out$/, (m) => `存档里有 ${m[1]} 条轮次遗忘记录，这里不记录它们（另一台机器上的轮次 id 指的不是这里的轮次：改为按当时说过的内容来匹配）；它们只让存档那边遗忘的轮次不被导入`],
  [/^(\d+) turns? in the archive (?:was|were) forgotten here, and stays? forgotten: (?:it comes|they come) in as \[forgotten\] in (?:its|their) conversation's log, and what the other parts held of (?:it|them) was left out \(the "forgotten" column\)$/, (m) => `存档里有 ${m[1]} 轮对话已在这里遗忘过，仍保持遗忘：在对话记录里以 [forgotten] 出现，其他部分里与它们有关的内容没有导入（见“已遗忘”一栏）`],
  [/^(\d+) turns? in the archive (?:was|were) forgotten on the install the archive came from, and stays? forgotten: (?:it comes|they come) in as \[forgotten\] in (?:its|their) conversation's log, and what the other parts held of (?:it|them) was left out \(the "forgotten" column\)$/, (m) => `存档里有 ${m[1]} 轮对话已在存档来源的那台机器上遗忘过，仍保持遗忘：在对话记录里以 [forgotten] 出现，其他部分里与它们有关的内容没有导入（见“已遗忘”一栏）`],
  [/^(\d+) replaced turns? of the archive (?:was|were) left out: the archive's conversation does not show (?:it|them) said again \(regenerate, edit-and-resend\)$/, (m) => `存档里有 ${m[1]} 条“已被取代的轮次”记录没有导入：存档里的对话记录看不出它们被重新发送过（重新生成、编辑后重发）`],
  [/^(\d+) replaced turns? of the archive (?:is|are) in a conversation kept as it is here: not recorded \(the turn ids name turns of this install's conversation\)$/, (m) => `存档里有 ${m[1]} 条“已被取代的轮次”记录属于这里保持原样的对话：没有记录（这些轮次 id 指的是这里对话中的轮次）`],
  [/^Lua adapter (\S+) of the archive is code( and differs from the one here)?: it was put in adapters\/imported\/(\S+) of the data folder, where nothing runs it \(an import never puts code into use\) — read it, and move it into adapters\/ to use it$/, (m) => `存档里的 Lua 适配器 ${m[1]} 是代码${m[2] ? '，且和这里的不同' : ''}：已放进数据文件夹的 adapters/imported/${m[3]}，那里的代码不会运行（导入从不启用代码）——读过之后把它移到 adapters/ 才会使用`],
  [/^Lua adapter (\S+) of the archive was left out: (it is larger than 1 MiB|it is not UTF-8 text); the rest was imported$/, (m) => `存档里的 Lua 适配器 ${m[1]} 没有导入：${m[2] === 'it is larger than 1 MiB' ? '它超过 1 MiB' : '它不是 UTF-8 文本'}；其余内容已导入`],
  [/^LLM source (\S+) came in without its API key \(keys never leave the install they were entered on\): enter it in Settings → LLM sources if it uses one$/, (m) => `LLM 来源 ${m[1]} 已导入，但没有 API key（key 从不离开输入它的那台机器）：如果它需要，请在“设置 → LLM 来源”里填写`],
  [/^LLM source (\S+) came in disabled and without its API key \(keys never leave the install they were entered on\): check its address in Settings → LLM sources, enter its key if it uses one, and enable it there — or import again taking privileged settings$/, (m) => `LLM 来源 ${m[1]} 已导入，处于关闭状态，也没有 API key（key 从不离开输入它的那台机器）：请在“设置 → LLM 来源”里核对它的地址，需要的话填写 key，再开启它——或者重新导入并导入特权设置`],
  [/^LLM source (\S+) came in disabled and without its API key: its Lua adapter (\S+) came as code and waits in adapters\/imported\/ — once you have read it and moved it into adapters\/, enter the key and enable the source$/, (m) => `LLM 来源 ${m[1]} 已导入，处于关闭状态，也没有 API key：它的 Lua 适配器 ${m[2]} 是代码，放在 adapters/imported/ 里等你处理——读过并移到 adapters/ 之后，再填写 key、开启这个来源`],
  [/^LLM source (\S+) came in disabled: its Lua adapter (\S+) is neither here nor in the archive$/, (m) => `LLM 来源 ${m[1]} 已导入，处于关闭状态：它的 Lua 适配器 ${m[2]} 这里没有，存档里也没有`],
  [/^LLM source (\S+) in the archive is malformed \(([\s\S]+)\) and was left out; the rest was imported$/, (m) => `存档里的 LLM 来源 ${m[1]} 格式有误（${m[2]}），没有导入；其余内容已导入`],
  [/^LLM source (\S+) in the archive has the name of a built-in source here and was left out$/, (m) => `存档里的 LLM 来源 ${m[1]} 和这里的内置来源同名，没有导入`],
  [/^the archive's list of LLM sources is malformed \(([\s\S]+)\) and was left out; the rest was imported$/, (m) => `存档里的 LLM 来源列表格式有误（${m[1]}），没有导入；其余内容已导入`],
  [/^setting (\S+) names the Lua adapter (\S+), which came as code and waits in adapters\/imported\/: left out$/, (m) => `设置 ${m[1]} 指向 Lua 适配器 ${m[2]}，它是作为代码导入的，放在 adapters/imported/ 里等你处理：这个设置没有导入`],
  [/^session (\S+) was imported as (\S+) \(both kept\)$/, (m) => `对话 ${m[1]} 以 ${m[2]} 的名字导入（两个都保留）`],
  [/^would also forget here what was forgotten on the archive's install: (\d+) turns, (\d+) facts, (\d+) documents(?:, and (\d+) files sent with those turns \(deleted from the data folder\))?$/, (m) => `还会在这里遗忘存档那边遗忘过的内容：${forgetCounts(m, 1)}${m[4] ? `，以及这些轮次里发送的 ${m[4]} 个文件（从数据文件夹中删除）` : ''}`],
  [/^forgotten here too, as on the archive's install: (\d+) turns, (\d+) facts, (\d+) documents$/, (m) => `和存档那边一样，这里也遗忘了：${forgetCounts(m, 1)}`],
  [/^the archive's forgets could not be recorded yet \(([\s\S]+)\); they will be at the next start$/, (m) => `存档带来的遗忘记录暂时没能保存（${why(m[1])}）；下次启动时会再保存`],
  [/^the archive's replaced turns could not be recorded yet \(([\s\S]+)\); they will be at the next start$/, (m) => `存档带来的“已被取代的轮次”记录暂时没能保存（${why(m[1])}）；下次启动时会再保存`],
  [/^the archive's forgets were recorded but could not be applied to what is here yet \(([\s\S]+)\); forget those things again to remove them$/, (m) => `存档带来的遗忘记录已保存，但还没能作用到这里已有的内容上（${why(m[1])}）；请再遗忘一次这些内容来删除它们`],
];

/** One note of an import report as the person reads it in `lang`. */
export function importNoteInWords(note: string, lang: Lang): string {
  if (lang !== 'zh') return note;
  return sayFrom(NOTES, note) ?? note;
}
