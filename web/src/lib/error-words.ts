/**
 * The daemon's errors in the page's language. The daemon answers every error with a stable `code`,
 * JSON `details` and an English reason (src/spec/errors); the page says it in Chinese when the
 * person reads Chinese:
 *  1. the reasons a person meets in the WebUI's own forms (settings, knowledge, people, providers,
 *     the library, chat, import) are recognised whole and said in Chinese;
 *  2. a code with one meaning (NOT_FOUND with what it was, a full disk, a wrong passphrase …) gets a
 *     Chinese sentence, and the English reason follows in brackets when it says more;
 *  3. anything else is the English reason, with zod's fixed forms translated (zod-words.ts).
 * test/error-words.test.ts keeps (1) in step with the daemon: it makes these errors with the
 * daemon's own code and checks that each is said in Chinese.
 */
import { sayFrom, type Phrase } from './phrasebook.js';
import { zodInWords } from './zod-words.js';

type Lang = 'en' | 'zh';

export interface ErrorParts {
  code?: string;
  message: string;
  details?: Record<string, unknown>;
}

const q = (s: string) => `“${s}”`;

/** Why a PDF could not be read (KNOWLEDGE_FILE_UNREADABLE). */
const PDF_WHY: Phrase[] = [
  [/^it is password-protected$/, () => '它有密码保护'],
  [/^it is damaged or not a PDF$/, () => '文件已损坏，或不是 PDF'],
  [/^reading it took longer than ([\d.]+) s \(core\.media\.pdf_timeout_ms\)$/, (m) => `读取超过了 ${m[1]} 秒的时限（设置 core.media.pdf_timeout_ms）`],
  [/^it needs more memory than the reader has$/, () => '它需要的内存超过了阅读器的上限'],
  [/^reading it was cancelled$/, () => '读取被取消了'],
  [/^the reader was busy with other files; try again in a moment$/, () => '阅读器正忙于读取其他文件，请稍后再试'],
  [/^pdf\.js failed on it$/, () => 'PDF 阅读器读取失败'],
];
function pdfWhy(why: string): string {
  return sayFrom(PDF_WHY, why) ?? why;
}

/** Why an HTML file could not be read (KNOWLEDGE_FILE_UNREADABLE, src/media/knowledge-file-text.ts). */
const HTML_WHY: Phrase[] = [
  [/^reading it took longer than ([\d.]+) s \(core\.media\.html_timeout_ms\)$/, (m) => `读取超过了 ${m[1]} 秒的时限（设置 core.media.html_timeout_ms）`],
  [/^it needs more memory than the reader has$/, () => '它需要的内存超过了阅读器的上限'],
  [/^reading it was cancelled$/, () => '读取被取消了'],
  [/^the reader was busy with other files; try again in a moment$/, () => '阅读器正忙于读取其他文件，请稍后再试'],
  [/^the reader failed on it$/, () => '网页阅读器读取失败'],
];
function htmlWhy(why: string): string {
  return sayFrom(HTML_WHY, why) ?? why;
}

/** Why a memory file was read only in part (the library's `frontMatterError`), in Chinese. */
const FILE_WHY: Phrase[] = [
  [/^the file is not UTF-8 text/, () => '文件不是 UTF-8 文本（可能是二进制文件或其他编码）'],
  [/^the front matter is not valid YAML: (.*)$/s, (m) => `开头的属性（front matter）不是合法的 YAML：${m[1]}`],
  [/^the front matter is not a list of properties$/, () => '开头的属性（front matter）不是属性列表'],
];
/** A memory file's `frontMatterError` in the page's language. */
export function fileErrorInWords(reason: string, lang: Lang): string {
  return lang === 'zh' ? (sayFrom(FILE_WHY, reason) ?? reason) : reason;
}

/**
 * The outbound proxy (decision 0670): why a proxy URL is refused, and a request that failed at the
 * proxy — alone, after an LLM source's "<name>: network error: ", or after Telegram's "Telegram <method>: ".
 */
const PROXY_PHRASES: Phrase[] = [
  [/^a proxy is an http:\/\/ or https:\/\/ URL with a host and port, such as "http:\/\/127\.0\.0\.1:7890" \("" = none\)$/, () => '代理应为带主机和端口的 http:// 或 https:// 地址，例如 “http://127.0.0.1:7890”（留空表示不用代理）'],
  [/^a SOCKS proxy is not supported: give the HTTP port of the proxy/, () => '不支持 SOCKS 代理：请填写代理的 HTTP 端口（Clash、V2Ray 都提供，例如 “http://127.0.0.1:7890”）'],
  [/^a proxy URL ends after its host and port/, () => '代理地址写到主机和端口为止，例如 “http://127.0.0.1:7890”（不能带路径、查询参数或 #）'],
  [
    /^(?:(Telegram \S+(?: download)?): |(\S+): network error: )?the proxy (\S+) could not be reached \(([^)]+)\) on the way to (\S+): check that it runs, or change the "Outbound proxy" setting \(core\.network\.proxy\)$/,
    (m) => `${m[1] ? `${m[1]}：` : m[2] ? `${m[2]}：` : ''}连不上代理 ${m[3]}（${m[4]}），无法访问 ${m[5]}：请确认代理在运行，或修改“出站代理”设置（core.network.proxy）`,
  ],
  [
    /^(?:(Telegram \S+(?: download)?): |(\S+): network error: )?the proxy (\S+) refused to open a tunnel to (\S+) \(([^)]+)\): check its rules and login, or change the "Outbound proxy" setting \(core\.network\.proxy\)$/,
    (m) => `${m[1] ? `${m[1]}：` : m[2] ? `${m[2]}：` : ''}代理 ${m[3]} 拒绝建立到 ${m[4]} 的隧道（${m[5]}）：请检查代理的规则和账号密码，或修改“出站代理”设置（core.network.proxy）`,
  ],
];

/** A proxy failure or a refused proxy URL in Chinese (undefined: the text is not one). */
export function proxyInWords(text: string): string | undefined {
  return sayFrom(PROXY_PHRASES, text.trim());
}

/** Whole reasons, as the daemon writes them (anchored), and how they read in Chinese. */
const PHRASES: Phrase[] = [
  ...PROXY_PHRASES,
  // chat and sessions
  [/^the message is empty$/, () => '消息是空的'],
  [/^a turn of this session is still running: wait for it or interrupt it first$/, () => '这个对话还有一轮正在进行：请等它结束，或先打断它'],
  [/^this turn has no message of the person to send again$/, () => '这一轮没有可以重新发送的用户消息'],
  [/^input text is longer than (\d+) characters$/, (m) => `消息太长：最多 ${m[1]} 个字符`],
  // the library and the plan
  [/^memory (\S+) is disabled and cannot be added to the plan$/, (m) => `记忆 ${m[1]} 已关闭，不能加入注入计划`],
  [/^memory (\S+) is disabled$/, (m) => `记忆 ${m[1]} 已关闭`],
  [/^memory (\S+) exists and its snapshot is immutable$/, (m) => `记忆 ${m[1]} 已存在，它的快照保存后不可修改`],
  [/^the snapshot of a memory is immutable/, () => '记忆的快照保存后不可修改（批注和标签可以改）'],
  [/^the (\w+) of a memory is immutable$/, (m) => `记忆的 ${m[1]} 不可修改`],
  [/^memory\.save: snapshot is empty$/, () => '快照是空的'],
  [/^a memory cannot link to itself$/, () => '记忆不能链接到自己'],
  [/^memory (\S+) cannot be changed here until its file is fixed: (.+) \((memories\/\S+)\)$/s, (m) => `记忆 ${m[1]} 的文件需要先修好才能在这里修改：${fileErrorInWords(m[2], 'zh')}（${m[3]}）`],
  [/^the plan changed since; undo its later change first$/, () => '注入计划之后又改过：请先撤销后来的改动'],
  [/^plan\.pin: text is empty$/, () => '要固定的文本是空的'],
  // knowledge
  [/^a knowledge entry named "(.+)" exists already: open it to edit it, or choose another name$/, (m) => `已有名为${q(m[1])}的知识条目：打开它来编辑，或换一个名字`],
  [/^knowledge entry "(.+)" already exists$/, (m) => `已有名为${q(m[1])}的知识条目`],
  // knowledge: a file added to it (the WebUI's "Add from file…", src/media/knowledge-file-text.ts)
  [/^(.+) is not a file the knowledge base can read: add Markdown, plain text, PDF or HTML \((.+)\)$/, (m) => `${q(m[1])}不是知识库能读取的文件：请添加 Markdown、纯文本、PDF 或 HTML 文件（${m[2].replace(/, /g, '、')}）`],
  [/^(.+) has no text to read: its pages are pictures only \(a scan\); nothing was stored$/, (m) => `${q(m[1])}里没有可读的文字：它的页面只是图片（扫描件）。没有保存任何内容`],
  [/^(.+) has no text; nothing was stored$/, (m) => `${q(m[1])}里没有文字。没有保存任何内容`],
  [/^the text of (.+) is ([\d.]+) MB; a knowledge entry holds at most (\d+) MB$/, (m) => `${q(m[1])}的文字有 ${m[2]} MB，一个知识条目最多 ${m[3]} MB`],
  [/^(.+) is ([\d.]+) MB; a knowledge entry holds at most (\d+) MB$/, (m) => `${q(m[1])}有 ${m[2]} MB，一个知识条目最多 ${m[3]} MB`],
  [/^(.+) is over (\d+) MB, the most a file added to the knowledge base may be$/, (m) => `${q(m[1])}超过 ${m[2]} MB：添加到知识库的文件最大 ${m[2]} MB`],
  [/^(.+) could not be read as a PDF: (.+)$/, (m) => `${q(m[1])}无法作为 PDF 读取：${pdfWhy(m[2])}`],
  [/^(.+) could not be read as HTML: (reading it took longer than [\d.]+ s \(core\.media\.html_timeout_ms\)|it needs more memory than the reader has|reading it was cancelled|the reader was busy with other files; try again in a moment|the reader failed on it)$/, (m) => `${q(m[1])}无法作为网页读取：${htmlWhy(m[2])}`],
  [/^invalid knowledge name "(.*?)": use (?:1–64 )?letters, digits, spaces, "_", "-", "\." \(no path separators or "\.\."\)$/, (m) => `知识条目名${q(m[1])}不可用：只能用字母、数字、空格和 “_” “-” “.”，最多 64 个字符（不能含路径分隔符或 “..”）`],
  // people
  [/^a name is 1 to 100 characters without control characters$/, () => '名字为 1 到 100 个字符，不能含控制字符'],
  [/^not a speaker id: (.+) \(expected <platform>:<user id>, e\.g\. telegram:42\)$/, (m) => `不是有效的账号 id：${m[1]}（格式为 <应用>:<用户 id>，例如 telegram:42）`],
  [/^some ids are already linked to (.+); unlink them first$/, (m) => `有的账号 id 已经关联到 ${m[1]}：请先在那里取消关联`],
  [/^(.+) already belongs? to (.+); unlink (it|them) there first, or add (?:it|them) to that person$/, (m) => `${m[1]} 已属于 ${m[2]}：请先在那里取消关联，或把${m[3] === 'it' ? '它' : '它们'}加到那个人名下`],
  [/^(\S+) is not a Telegram user: a Telegram user id is a number, such as telegram:123456789$/, (m) => `${m[1]} 不是 Telegram 用户：Telegram 用户 id 是一个数字，例如 telegram:123456789`],
  [/^(\S+) is not a QQ user: a QQ user is a QQ number, such as qq:123456789$/, (m) => `${m[1]} 不是 QQ 用户：应为 QQ 号，例如 qq:123456789`],
  [/^(\S+) would never match: write it as (\S+)$/, (m) => `${m[1]} 永远匹配不上：请写成 ${m[2]}`],
  [/^give 1 to 50 speaker ids to link$/, () => '请给出 1 到 50 个要关联的账号 id'],
  // settings (whole reasons and the texts of the settings' own rules)
  [/^unknown time zone "(.+)" \(use an IANA name such as Asia\/Shanghai\)$/, (m) => `未知的时区${q(m[1])}（请用 IANA 名称，例如 Asia/Shanghai）`],
  [/^unknown time zone: use an IANA name such as Europe\/Berlin or Asia\/Shanghai, or "" for the system time zone$/, () => '未知的时区：请用 IANA 名称，例如 Asia/Shanghai 或 Europe/Berlin；留空（""）表示跟随系统'],
  [/^a \.md or \.txt file inside the data folder, such as "persona\.md" or "personas\/work\.md" \(not an absolute path, no "\.\."\)$/, () => '应为数据文件夹里的 .md 或 .txt 文件，例如 “persona.md” 或 “personas/work.md”（不能是绝对路径，不能含 “..”）'],
  [/^a Telegram user id is a number such as "(\d+)" \(or "telegram:\d+", as in your own ids\)$/, (m) => `Telegram 用户 id 是一个数字，例如 “${m[1]}”（也可以写成 “telegram:${m[1]}”，与你自己的 id 写法相同）`],
  [/^a QQ number such as "(\d+)" \(or "qq:\d+", as in your own ids\)$/, (m) => `应为 QQ 号，例如 “${m[1]}”（也可以写成 “qq:${m[1]}”，与你自己的 id 写法相同）`],
  [/^a WebSocket URL, ws:\/\/ or wss:\/\/, such as "ws:\/\/127\.0\.0\.1:3001"$/, () => '应为 WebSocket 地址（ws:// 或 wss://），例如 “ws://127.0.0.1:3001”'],
  [/^"private:<QQ number>" or "group:<group number>", such as "private:123456789", or "" for your own QQ number$/, () => '应为 “private:<QQ 号>” 或 “group:<群号>”，例如 “private:123456789”；留空（""）表示你自己的 QQ 号'],
  [/^an id is the chat app and your id there, such as "telegram:42" or "qq:10001"$/, () => 'id 由聊天应用和你在其中的账号组成，例如 “telegram:42” 或 “qq:10001”'],
  [/^unknown setting (\S+)$/, (m) => `没有这个设置：${m[1]}`],
  // plugins and LLM sources
  [/^(\S+) is built in and cannot be removed \(disable it instead\)$/, (m) => `${m[1]} 是内置插件，不能移除（可以停用它）`],
  [/^"(.+)" is a built-in source: its label and model list are fixed$/, (m) => `${q(m[1])}是内置来源：名称和模型列表是固定的`],
  [/^"(.+)" is a built-in source; disable it instead \(enabled = false\)$/, (m) => `${q(m[1])}是内置来源，不能删除：可以停用它（enabled = false）`],
  [/^an LLM source named "(.+)" already exists$/, (m) => `已有名为${q(m[1])}的 LLM 来源`],
  [/^source names are lower-case letters, digits, - and _ \(at most 32\)$/, () => '来源名称只能用小写字母、数字、“-” 和 “_”，最多 32 个字符'],
  [/^the base URL must be http\(s\)$/, () => '地址必须以 http:// 或 https:// 开头'],
  [/^Invalid URL$/, () => '不是有效的网址：请写完整，例如 “http://127.0.0.1:8000/v1”'],
  [/^an API key is ASCII letters, digits and punctuation, without spaces inside: check what was pasted/, () => 'API key 只能包含英文字母、数字和标点，中间不能有空格：请检查粘贴的内容（可能混进了全角空格或中文字符）'],
  [/^expected a duration such as "45s", "30m", "2h", "1h30m"$/, () => '应为时长，例如 “45s”、“30m”、“2h”、“1h30m”'],
  // LLM sources
  [/^All LLM sources failed:\s*([\s\S]+)$/, (m) => `所有 LLM 来源都失败了：\n${m[1]}`],
  [/^(\S+) has no API key: add one in the WebUI \(Settings → LLM providers\) or with `(.+)`$/, (m) => `${m[1]} 还没有 API key：请在 WebUI 的“设置 → LLM 来源”里添加，或运行 \`${m[2]}\``],
  [/^(\S+) has no model: pick one in the WebUI \(Settings → LLM providers lists what the server offers\) or with `(.+)`$/, (m) => `${m[1]} 还没有设置模型：请在 WebUI 的“设置 → LLM 来源”里选一个（那里列出服务器提供的模型），或运行 \`${m[2]}\``],
  // export and import
  [/^the passphrase does not open this archive$/, () => '口令打不开这个存档'],
  [/^this archive is encrypted: give its passphrase$/, () => '这个存档是加密的：请输入它的口令'],
  [/^the passphrase must not be empty$/, () => '口令不能为空'],
  [/^another export or import is running; try again when it has finished$/, () => '另一个导出或导入正在进行：等它结束后再试'],
  [/^this is not a HomeAgent export \((.+)\)$/, () => '这不是 HomeAgent 的导出文件'],
  [/^the archive is empty$/, () => '存档是空的'],
  [/^(?:the (?:encrypted )?archive is cut short.*|the archive is cut short \(its zip directory is missing\): copy or download it again)$/, () => '存档不完整（被截断了）：请重新复制或下载'],
  [/^the disk of the data folder is full; free some space and try again$/, () => '数据文件夹所在的磁盘满了：请腾出空间后再试'],
];

/**
 * A plugin package (.hmap) refused: what a person is told first, in both languages, before the
 * daemon's reason (which names the entry, the limit, the manifest's field).
 */
const HMAP_EN: Record<string, string> = {
  HMAP_BAD_ARCHIVE: 'This file is not a plugin package (a .hmap file is a zip archive)',
  HMAP_PATH_ESCAPE: 'The package has a file that would be written outside its plugin folder, so it was refused',
  HMAP_SYMLINK: 'The package holds a link to another file, so it was refused',
  HMAP_TOO_LARGE: 'The package is too large',
  HMAP_TOO_MANY_FILES: 'The package has too many files',
  HMAP_BAD_MANIFEST: "The package's plugin.json is missing or not right",
};

/** A code with one meaning: its sentence (the English reason follows in brackets). */
const CODES: Record<string, string> = {
  HMAP_BAD_ARCHIVE: '这个文件不是插件包（.hmap 文件是 zip 压缩包）',
  HMAP_PATH_ESCAPE: '插件包里有文件会写到插件文件夹之外，已拒绝',
  HMAP_SYMLINK: '插件包里有指向其他文件的链接，已拒绝',
  HMAP_TOO_LARGE: '插件包太大',
  HMAP_TOO_MANY_FILES: '插件包里的文件太多',
  HMAP_BAD_MANIFEST: '插件包的 plugin.json 缺失或有误',
  NETWORK: '连接不到 HomeAgent：它可能没有在运行（npm start），或连接断了',
  FORBIDDEN: '不允许这样做',
  CONFLICT: '与现有内容冲突',
  PAYLOAD_TOO_LARGE: '内容太大',
  PROVIDER_NO_KEY: '这个 LLM 来源还没有 API key',
  PROVIDER_NO_MODEL: '这个 LLM 来源还没有设置模型',
  NO_PROVIDER_CONFIGURED: '还没有可用的 LLM 来源：请在设置里添加 API key，或启动本地 Ollama',
  ALL_PROVIDERS_FAILED: '所有 LLM 来源都失败了',
  MEMORY_UNAVAILABLE: '记忆图谱暂时不可用',
  KNOWLEDGE_UNAVAILABLE: '知识库暂时不可用',
  KNOWLEDGE_FILE_UNSUPPORTED: '知识库读不了这种文件：请添加 Markdown、纯文本、PDF 或 HTML 文件',
  KNOWLEDGE_FILE_EMPTY: '文件里没有文字，没有保存任何内容',
  KNOWLEDGE_FILE_TOO_LARGE: '文件或其中的文字太大',
  KNOWLEDGE_FILE_UNREADABLE: '无法读取这个文件',
  TRANSFER_CORRUPT: '存档已损坏',
  TRANSFER_TRUNCATED: '存档不完整',
  TRANSFER_NOT_AN_EXPORT: '这不是 HomeAgent 的导出文件',
  TRANSFER_FORMAT_TOO_NEW: '这个导出文件来自更新版本的 HomeAgent：请先更新再导入',
  TRANSFER_SCHEMA_TOO_NEW: '这个导出文件来自更新版本的 HomeAgent：请先更新再导入',
  TRANSFER_FORMAT_UNSUPPORTED: '这个导出文件的格式太旧，已不再支持',
  TRANSFER_NO_SPACE: '磁盘空间不足',
  TRANSFER_TOO_LARGE: '存档太大',
  TRANSFER_TOO_MANY_FILES: '存档里的文件太多',
  TRANSFER_PATH_ESCAPE: '存档里有指向数据文件夹之外的路径，已拒绝',
  TRANSFER_SYMLINK: '存档里有链接或设备文件，已拒绝',
  TRANSFER_BUSY: '另一个导出或导入正在进行',
  TRANSFER_NOT_FOUND: '找不到这个导出或导入任务',
  TRANSFER_APPLY_FAILED: '导入失败',
  TRANSFER_WRONG_PASSPHRASE: '口令不对',
  TRANSFER_PASSPHRASE_REQUIRED: '这个存档是加密的：请输入口令',
};

/** The fields of an LLM source form, in Chinese. */
const SOURCE_FIELDS: Record<string, string> = { name: '名称', label: '显示名称', api: 'API 类型', adapter: '适配器', baseUrl: '地址', apiKey: ' API key ', model: '模型', models: '模型列表', options: '选项' };

/** What a NOT_FOUND names (details.what), in Chinese. */
const WHAT: Record<string, string> = {
  session: '对话',
  memory: '记忆',
  turn: '对话轮次',
  plugin: '插件',
  'knowledge entry': '知识条目',
  'LLM source': 'LLM 来源',
  timer: '定时任务',
  setting: '设置',
  'config key': '设置',
  person: '人',
  document: '文档',
  entity: '实体',
  fact: '事实',
  relation: '关系',
  change: '改动',
  'planned memory': '计划中的记忆',
  'pinned message': '固定的消息',
  'pending plugin install': '待安装的插件',
  'linked speaker id': '关联的账号 id',
  'output channel': '输出渠道',
  confirmation: '确认请求',
  skill: '技能',
};

/** `e` as the person reads it in `lang`. */
export function errorInWords(e: ErrorParts, lang: Lang): string {
  // A package's reason is the installer's ("hmap: entry … escapes …"): said after the sentence, without its prefix.
  const reason = e.code?.startsWith('HMAP_') ? e.message.trim().replace(/^hmap: /, '') : e.message.trim();
  if (lang !== 'zh') {
    const said = zodInWords(reason, 'en');
    const lead = e.code ? HMAP_EN[e.code] : undefined;
    // "the file is not a zip archive" says no more than the sentence.
    return lead ? (/^the file is not a zip archive$/.test(said) ? lead : `${lead} (${said})`) : said;
  }
  const whole = sayFrom(PHRASES, reason);
  if (whole !== undefined) return whole;
  // "invalid value for <key>: <why>" (a setting), "invalid request: <field>: <why>" (a route's
  // body), and a list item's "<index>: <why>" or "\"<value>\": <why>": what it names as it is,
  // the why in Chinese when known.
  const invalid = /^invalid value for (\S+): ([\s\S]+)$/.exec(reason);
  if (invalid) return `${invalid[1]} 的值无效：${errorInWords({ message: invalid[2] }, 'zh')}`;
  const source = /^invalid LLM source(?: \((\w+)\))?: ([\s\S]+)$/.exec(reason);
  if (source) return `LLM 来源${source[1] ? `的${SOURCE_FIELDS[source[1]] ?? ` ${source[1]} `}` : ''}无效：${errorInWords({ message: source[2] }, 'zh')}`;
  const request = /^invalid request: ([^\s:]+): ([\s\S]+)$/.exec(reason);
  if (request) return `请求里的 ${request[1]} 无效：${errorInWords({ message: request[2] }, 'zh')}`;
  const item = /^(\d+|"[^"]*"): ([\s\S]+)$/.exec(reason);
  if (item) return `${/^\d+$/.test(item[1]) ? `第 ${Number(item[1]) + 1} 项` : item[1].replace(/^"|"$/g, '“').replace(/“$/, '”')}：${errorInWords({ message: item[2] }, 'zh')}`;
  const d = e.details ?? {};
  if (e.code === 'NOT_FOUND' && typeof d.what === 'string' && typeof d.id === 'string') {
    const what = WHAT[d.what] ?? d.what;
    return `找不到${/^[A-Za-z]/.test(what) ? ' ' : ''}${what}：${d.id}`;
  }
  if (e.code === 'PAYLOAD_TOO_LARGE' && typeof d.limitBytes === 'number') return `内容太大：上限是 ${sizeOf(d.limitBytes)}`;
  // A refused package: the sentence, and the entry it names (the English reason says no more to a Chinese reader).
  if (e.code?.startsWith('HMAP_') && e.code !== 'HMAP_BAD_MANIFEST' && CODES[e.code]) return typeof d.entry === 'string' ? `${CODES[e.code]}（${d.entry}）` : CODES[e.code];
  const lead = e.code ? CODES[e.code] : undefined;
  const said = zodInWords(reason, 'zh');
  if (!lead) return said;
  return said && said !== lead ? `${lead}（${said}）` : lead;
}

function sizeOf(n: number): string {
  if (n >= 1 << 20) return `${Math.round((n / (1 << 20)) * 10) / 10} MB`;
  if (n >= 1 << 10) return `${Math.round(n / (1 << 10))} KB`;
  return `${n} 字节`;
}
