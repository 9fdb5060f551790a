/**
 * Human labels and help for the settings pages (W-4). The daemon describes every key in English
 * (`description`, kept beside its schema); this table gives known keys a short label in both
 * languages and a Chinese help text. A key not in the table gets a label made from its last part
 * and the daemon's description as help, so a new key is never shown bare.
 */
import type { Lang } from '../../i18n';

/** [English label, Chinese label, Chinese help (English help is the daemon's description)]. */
type Entry = [string, string, string?];

const KEYS: Record<string, Entry> = {
  'core.agent.name': ['Agent name', '智能体名称', '智能体称呼自己的名字'],
  'core.agent.persona_file': ['Persona file', '人设文件', '人设文件路径，相对于数据文件夹'],
  'core.agent.max_tool_rounds': ['Tool rounds per turn', '每轮最多工具回合', '一轮对话中带工具调用的 LLM 请求最多几次'],
  'core.agent.stage_timeout_ms': ['Stage time limit (ms)', '阶段处理时限（毫秒）', '一个阶段处理器最长运行时间'],
  'core.agent.tool_result_chars': ['Tool result length (characters)', '工具结果长度（字）', '模型读取的一次工具结果最多多少字，超出部分会被截掉并注明'],
  'core.agent.tool_timeout_ms': ['Tool call time limit (ms)', '工具调用时限（毫秒）', '一次工具调用最长运行时间'],
  'core.agent.llm_timeout_ms': ['LLM call time limit (ms)', 'LLM 调用时限（毫秒）', '一次 LLM 调用最长时间'],
  'core.agent.consolidation_max_rounds': ['Consolidation rounds', '整理任务最多回合', '内部整理（合并、复核记忆）一轮最多几次 LLM 请求'],
  'core.agent.timeline_chars': ['Timeline length (characters)', '时间线长度（字）', '写进系统提示的上下文时间线最多多少字'],
  'core.agent.stream': ['Stream replies', '流式输出', '回复边生成边显示'],
  'core.agent.language': ['Reply language', '回复语言', 'BCP 47 语言标签，如 "zh-CN"；"auto" 表示跟随用户'],
  'core.agent.timezone': ['Time zone', '时区', 'IANA 时区名（如 Asia/Shanghai）：智能体和你看到的时间、回忆里的“周二”“昨天”、未设时区的定时器都按它算（空 = 系统时区）'],
  'core.context.top_k': ['Context window size', '上下文窗口条数', '相关性上下文中保留的事件数'],
  'core.context.save_debounce_ms': ['Context save delay (ms)', '上下文保存延迟（毫秒）', '上下文文件合并写入的等待时间'],
  'core.memory.distill_interval': ['Distill every', '提炼间隔', '对话多久提炼一次为记忆（如 "30m"、"2h"）'],
  'core.memory.archive_interval': ['Archive every', '归档间隔', '冷记忆多久归档一次'],
  'core.memory.archive_batch': ['Archive batch', '每次归档条数', '归档任务每次提炼并移入冷归档的冷文档数'],
  'core.memory.warm_max_docs': ['Warm max docs', '温层文档上限', '温层（内存中）最多保留的文档数；超出的最久未用文档移入冷归档'],
  'core.memory.merge_interval': ['Merge every', '合并间隔', '相似记忆多久合并一次'],
  'core.memory.review_interval': ['Review every', '复核间隔', '记忆多久复核一次'],
  'core.memory.rule_distill_interval': ['Rule distill every', '规则提炼间隔', '规则提炼多久运行一次'],
  'core.memory.rule_retention_days': ['Rule sources kept (days)', '规则来源保留天数', '规则提炼的来源保留多少天'],
  'core.memory.cold_after_hours': ['Cold after (hours)', '转冷时间（小时）', '多久没被读取的记忆算作冷记忆'],
  'core.memory.cold_max_access': ['Cold if read at most', '转冷读取次数上限', '读取次数不超过这个数的记忆才会转冷'],
  'core.memory.merge_threshold': ['Merge similarity', '合并相似度', '相似度高于此值（0…1）的记忆会被合并'],
  'core.memory.recall_depth': ['Recall depth (hops)', '回忆深度（跳）', '从知识图谱回忆时沿关系走几步'],
  'core.memory.library_dir': ['Library folder', '记忆库文件夹', '记忆库所在文件夹，相对于数据文件夹'],
  'core.memory.embedding_max_words': ['Embedder vocabulary', '嵌入词表上限', '本地嵌入器词表的最大词数'],
  'core.memory.embedding_model_path': ['Local embedding model', '本地嵌入模型', '本地嵌入模型文件夹（空 = 不用）'],
  'core.memory.embedding_download_url': ['Vector file download', '词向量下载地址', '缺少词向量文件时从哪里下载：空 = 按文件名；以 "/" 结尾 = 镜像文件夹；其他 = 文件本身'],
  'core.memory.embedding_api.base_url': ['Embeddings API URL', '嵌入 API 地址', 'OpenAI 兼容的 embeddings API 基础地址（空 = 不用）'],
  'core.memory.embedding_api.model': ['Embeddings API model', '嵌入 API 模型', 'embeddings API 上的模型名'],
  'core.memory.embedding_api.api_key': ['Embeddings API key', '嵌入 API 密钥', 'embeddings API 的密钥'],
  'core.docs.auto_inject_top': ['Related documents in prompt', '提示中的相关文档数', '自动写进系统提示的相关记忆文档数'],
  'core.knowledge.top_k': ['Knowledge hits in prompt', '提示中的知识条数', '写进系统提示的知识库命中数'],
  'core.textlog.rotate_bytes': ['Text log rotation size (bytes)', '文本日志轮转大小（字节）', 'logs/text.jsonl 超过这个大小就轮转'],
  'core.textlog.keep_files': ['Text log files kept', '文本日志保留份数', '保留多少个轮转后的文本日志'],
  'core.identity.owner_ids': ['Your ids on chat apps', '你在聊天应用里的 ID', '你在各聊天渠道上的 ID（如 "telegram:42"、"qq:10001"）：你在那里的对话能看到完整时间线，其他人的对话只看到自己的'],
  'core.network.proxy': ['Outbound proxy', '出站代理', '访问 LLM 来源和 Telegram 机器人接口时经过的 HTTP(S) 代理，例如 “http://127.0.0.1:7890”（Clash、V2Ray 的本地端口）；可写成 “http://用户名:密码@主机:端口”。留空 = 使用环境变量 HTTPS_PROXY / HTTP_PROXY（如有，并遵循 NO_PROXY）；“direct” = 从不使用代理。本机和局域网地址总是直连；web_fetch 不走代理'],
  'core.notify.channel': ['Default channel for notices', '主动消息的默认渠道', '定时器结果、通知等主动消息发往哪里：webui（附浏览器通知）、telegram、qq…（在 Telegram 或 QQ 开始的对话就在那里回复）'],
  'core.llm.order': ['Source order', 'LLM 来源顺序', '依次尝试的 LLM 来源（C-6）；未列出的排在后面'],
  'core.llm.custom_sources': ['Your own sources', '自定义来源', '你添加的 LLM 来源（名称、显示名、模型列表）；在「LLM 来源」页添加或编辑'],
  'core.llm.cooldown_ms': ['Cool-down after failures (ms)', '失败后冷却（毫秒）', '失败的来源被跳过多久'],
  'core.llm.failure_threshold': ['Failures before cool-down', '冷却前的连续失败数', '来源连续失败几次后进入冷却'],
  'core.llm.idle_timeout_ms': ['Stream silence limit (ms)', '流式静默上限（毫秒）', '流式输出两段之间最长的停顿'],
  'core.llm.timeout_ms': ['LLM request time limit (ms)', 'LLM 请求时限（毫秒）', '一次 LLM 请求（从响应头到最后一个字节）最长时间'],
  'core.log.keep_files': ['Daemon log files kept', '守护进程日志保留份数', '保留多少个轮转后的守护进程日志'],
  'core.log.level': ['Log level', '日志级别', '守护进程的日志级别'],
  'core.log.rotate_bytes': ['Daemon log rotation size (bytes)', '守护进程日志轮转大小（字节）', '守护进程日志超过这个大小就轮转'],
  'core.media.max_pdf_pages': ['PDF pages read', 'PDF 最多读取页数', '附件 PDF 最多读取多少页'],
  'core.media.html_timeout_ms': ['HTML reading time limit (ms)', '网页读取时限（毫秒）', '把一个 HTML 网页读成文字最长多久（web_fetch 读取的网页、添加到知识库的 HTML 文件）；超时就停止读取'],
  'core.media.pdf_timeout_ms': ['PDF reading time limit (ms)', 'PDF 读取时限（毫秒）', '读出一个 PDF 的文字最长多久（附件里的 PDF、添加到知识库的 PDF）；超时就停止读取'],
  'core.media.text_budget_chars': ['File text per message (characters)', '每条消息的附件文字上限（字）', '附件（文本、Markdown、代码、PDF 文字、转写）进入模型的总字数；超出部分截断，完整文件保留在 media 文件夹'],
  'core.media.transcription.language': ['Audio language', '音频语言', '音频的 ISO-639-1 语言代码（空 = 自动识别）'],
  'core.media.transcription.model': ['Speech-to-text model', '语音转文字模型', '空 = 来源 options.transcription_model，否则 whisper-1'],
  'core.media.transcription.source': ['Transcription source', '转写使用的来源', '转写音频附件的 LLM 来源（空 = 第一个可转写的可用来源）'],
  'core.plugins.ready_wait_ms': ['Wait for plugins (ms)', '等待插件就绪（毫秒）', 'homed 报告就绪前最多等插件多久；更慢的插件继续在后台启动'],
  'core.plugins.start_timeout_ms': ['Plugin start time limit (ms)', '插件启动时限（毫秒）', '一个插件启动超过这个时间就标记为失败'],
  'core.subagent.max_rounds': ['Sub-agent rounds', '子智能体最多回合', '子智能体最多几次 LLM 请求'],
  'core.subagent.timeout_ms': ['Sub-agent time limit (ms)', '子智能体时限（毫秒）', '子智能体最长运行时间'],
  'core.webui.token': ['Access token', '访问令牌', 'WebUI 与 HTTP API 的访问令牌'],
  'plugin.webui.host': ['Listen address', '监听地址', 'WebUI 监听的地址（非回环地址必须设置令牌）'],
  'plugin.webui.port': ['Port', '端口', 'WebUI 端口（0 = 任意空闲端口）'],
  'plugin.webui.token': ['Access token', '访问令牌', 'WebUI 与 HTTP API 的访问令牌（不绑定回环地址时必须设置）'],
  'plugin.webui.heartbeat_ms': ['Event stream heartbeat (ms)', '事件流心跳（毫秒）', 'SSE 心跳间隔'],
  'plugin.webui.confirm_timeout_ms': ['Confirmation wait (ms)', '确认等待（毫秒）', '需要确认的操作在 WebUI 里等待回答多久，超时算拒绝'],
  'plugin.webui.web_root': ['Web app folder', '网页应用文件夹', '构建好的网页应用文件夹（空 = 包内 dist/web）'],
  'plugin.webui.app_origins': ['Allowed chat-app origins', '允许的聊天应用来源', '可以带令牌调用 OpenAI 兼容 API（/v1/）和 MCP（/mcp）的浏览器或桌面聊天应用的 Origin'],
  'plugin.telegram.bot_token': ['Bot token', '机器人令牌', '@BotFather 给的令牌（"123456:ABC…"）；空 = 关闭 Telegram'],
  'plugin.telegram.allowed_user_ids': ['Allowed users', '允许的用户', '可以私聊智能体的 Telegram 用户 ID（其他人只收到一次礼貌拒绝，不保留任何内容）'],
  'plugin.telegram.api_root': ['Bot API server', 'Bot API 服务器', '本地 telegram-bot-api 服务器或官方服务器'],
  'plugin.telegram.max_file_mb': ['Largest download (MB)', '最大下载（MB）', '从 Telegram 下载的图片、语音或文件最大多少 MB（Telegram 对机器人上限 20）'],
  'plugin.telegram.notify_chat_id': ['Chat for notices', '主动消息发往的对话', 'Telegram 为默认渠道时主动消息发到哪个对话（空 = 你自己的 Telegram id，来自 设置 → 人物；没有则留在网页界面）'],
  'plugin.telegram.poll_timeout_s': ['Long-poll wait (s)', '长轮询等待（秒）', 'getUpdates 长轮询等待时间'],
  'plugin.qq.mode': ['Connection mode', '连接方式', '如何连接 OneBot v11 实现（NapCat、Lagrange）：关闭；正向 = HomeAgent 连接它的 WebSocket；反向 = 它连接 HomeAgent'],
  'plugin.qq.ws_url': ['WebSocket URL (forward)', 'WebSocket 地址（正向）', '正向模式：NapCat / Lagrange 的 WebSocket 服务器'],
  'plugin.qq.access_token': ['Access token', '访问令牌', 'OneBot 访问令牌，与 NapCat / Lagrange 中一致（反向模式必填）'],
  'plugin.qq.allowed_user_ids': ['Allowed QQ users', '允许的 QQ 用户', '可以私聊智能体的 QQ 号（其他人只收到一次礼貌拒绝，不保留任何内容）'],
  'plugin.qq.allowed_group_ids': ['Allowed groups', '允许的群', '智能体在这些群里被 @ 或被回复时作答（其余的忽略且不保留）'],
  'plugin.qq.max_image_mb': ['Largest image (MB)', '最大图片（MB）', '从 QQ 下载的图片最大多少 MB'],
  'plugin.qq.max_message_chars': ['Longest message', '最长消息', 'QQ 消息最长多少字；更长的回复会拆开'],
  'plugin.qq.messages_per_minute': ['Messages per minute', '每分钟消息数', '每个对话每分钟接收多少条消息，超出的丢弃'],
  'plugin.qq.notify_target': ['Target for notices', '主动消息发往', 'QQ 为默认渠道时主动消息发往 "private:<QQ号>" 或 "group:<群号>"（空 = 你自己的 QQ 号，来自 设置 → 人物；没有则留在网页界面）'],
  'plugin.qq.reverse_host': ['Listen address (reverse)', '监听地址（反向）', '反向模式：HomeAgent 监听的地址（实现不在别的机器上就保持回环地址）'],
  'plugin.qq.reverse_path': ['WebSocket path (reverse)', 'WebSocket 路径（反向）', '反向模式：WebSocket 地址的路径'],
  'plugin.qq.reverse_port': ['Listen port (reverse)', '监听端口（反向）', '反向模式：HomeAgent 监听的端口（0 = 任意空闲端口）'],
  'plugin.qq.send_interval_ms': ['Send interval (ms)', '发送间隔（毫秒）', '两条发往 QQ 的消息之间至少隔多久（风控）'],
  // The built-in tool plugins (Settings → Plugins, each card's settings).
  'plugin.web.allow_private': ['Private addresses allowed', '允许的内网地址', 'web_fetch 可以访问的非公网地址（IP 或 CIDR 网段，如 192.168.1.20、10.0.0.0/8）；空 = 只访问公网，不碰家庭网络、本机和云元数据'],
  'plugin.web.max_bytes': ['Largest download (bytes)', '最大下载（字节）', 'web_fetch 下载一个网页最多多少字节（解压后），超出部分截掉'],
  'plugin.web.timeout_ms': ['Web time limit (ms)', '网络时限（毫秒）', '一次 web_fetch 下载（含重定向）或一次 web_search 最长多久；把网页读成文字另有时限 core.media.html_timeout_ms'],
  'plugin.web.max_redirects': ['Redirects followed', '最多跟随重定向', 'web_fetch 最多跟随几次重定向（每个目标都像第一个一样检查）'],
  'plugin.web.max_chars': ['Page text length (characters)', '网页文字长度（字）', 'web_fetch 交给模型的网页文字最多多少字'],
  'plugin.web.user_agent': ['User-Agent', 'User-Agent', 'web_fetch 发送的 User-Agent 请求头'],
  'plugin.web.search_provider': ['Search service', '搜索服务', 'web_search 使用的服务："searxng"、"brave"、"tavily"，或 ""（不提供 web_search 工具）'],
  'plugin.web.search_endpoint': ['Search service URL', '搜索服务地址', 'SearXNG 实例地址（如 http://nas.local:8888），或 brave / tavily 的其他 API 地址（"" = 官方地址）'],
  'plugin.web.search_api_key': ['Search API key', '搜索 API 密钥', 'Brave Search 或 Tavily 的 API 密钥（SearXNG 可不填）'],
  'plugin.web.search_max_results': ['Search results', '搜索结果数', 'web_search 返回多少条结果'],
  'plugin.cmd.allowlist': ['Allowed programs', '允许的程序', 'cmd_run 不经询问即可启动的程序（确切名称或路径）。这是规则而不是沙箱：列出的程序能做它的选项允许的任何事，不要加入会运行其他程序的程序（git 的别名和钩子、find -exec、env、shell、解释器）'],
  'plugin.cmd.confirm': ['Ask first', '何时先询问', '何时先问你："never"（不在允许列表中的一律拒绝）、"outside-allowlist"（不在列表中的先问）、"always"（总是先问）。没有可交互的确认服务时，需要确认的命令会被拒绝'],
  'plugin.cmd.timeout_ms': ['Command time limit (ms)', '命令时限（毫秒）', '命令（及其子进程）运行超过这个时间就被结束'],
  'plugin.cmd.max_output_bytes': ['Output kept (bytes)', '保留输出（字节）', '保留的输出（stdout + stderr）字节数，超出部分截掉并注明'],
  'plugin.cmd.cwd': ['Working folder', '工作文件夹', '默认工作文件夹（空 = 数据文件夹；相对路径在数据文件夹内）'],
  'plugin.files.roots': ['Allowed folders', '允许的文件夹', 'files_* 工具可以访问的文件夹（相对路径在数据文件夹内）'],
  'plugin.files.max_read_bytes': ['Largest read (bytes)', '最大读取（字节）', 'files_read 一次返回、files_search 一次扫描的最大字节数'],
  'plugin.files.max_write_bytes': ['Largest write (bytes)', '最大写入（字节）', 'files_write 写出的文件最大多少字节'],
  'plugin.files.max_list_entries': ['Entries listed', '列出条目上限', 'files_list 最多返回多少条'],
  'plugin.files.max_search_files': ['Files searched', '搜索文件上限', 'files_search 最多查看多少个文件'],
  'plugin.files.max_journal_file_bytes': ['Largest undoable file (bytes)', '可撤销的最大文件（字节）', '超过这个大小的文件不会被覆盖或删除（撤销副本会太大）'],
  'plugin.files.journal_max_entries': ['Changes kept', '保留的更改数', '更改记录保留多少条（最旧的连同原内容一起丢弃）'],
  'plugin.timer.timezone': ['Timer time zone', '定时器时区', 'cron 定时器的默认 IANA 时区（空 = 你的时区 core.agent.timezone）'],
  'plugin.timer.tick_ms': ['Check interval (ms)', '检查间隔（毫秒）', '多久检查一次到期的定时器'],
  'plugin.timer.max_timers': ['Most timers', '定时器上限', '同时最多存在多少个定时器'],
  'plugin.healthcheck.interval_ms': ['Check every (ms)', '自检间隔（毫秒）', '多久运行一次自检'],
  'plugin.healthcheck.max_rss_mb': ['Memory limit (MB)', '内存上限（MB）', '常驻内存超过这个值就报告问题'],
  'plugin.healthcheck.max_loop_lag_ms': ['Event-loop delay limit (ms)', '事件循环延迟上限（毫秒）', '事件循环 p99 延迟超过这个值就报告问题'],
  'plugin.healthcheck.notify_owner': ['Tell me on changes', '状态变化时通知我', '健康状态变化时，在你的默认渠道（core.notify.channel）告诉你'],
  'plugin.mcp.servers': ['MCP servers', 'MCP 服务器', 'MCP 服务器：[{name, command, args?, env?, cwd?} | {name, url, headers?}]（加 enabled:false 可保留配置但不启用）'],
  'plugin.mcp.call_timeout_ms': ['Tool call time limit (ms)', '工具调用时限（毫秒）', '一次 MCP 工具调用最长多久'],
  'plugin.mcp.reconnect_base_ms': ['First reconnect delay (ms)', '首次重连延迟（毫秒）', '服务器断开后第一次重连前等多久（每次失败加倍）'],
  'plugin.mcp.reconnect_max_ms': ['Longest reconnect delay (ms)', '最长重连延迟（毫秒）', '重连等待最长多久'],
  'plugin.openai-api.model_id': ['Model name', '模型名称', '客户端选择 HomeAgent 时用的模型名（GET /v1/models 列出它）'],
  'plugin.openai-api.keep_alive_ms': ['Keep-alive (ms)', '保活间隔（毫秒）', '流式回复静默时（工具运行中）每隔多久发一条 SSE 注释'],
  'plugin.agentcli.programs': ['Terminal programs', '终端程序', 'terminal_open 可以启动的程序（第一个为默认）。它们是真正的 shell：智能体能运行它们能运行的任何东西'],
  'plugin.agentcli.confirm_open': ['Ask before each terminal', '每个终端前先询问', '每开一个新终端前先问你（WebUI 确认）；没有打开的 WebUI 时拒绝。关闭后智能体——或它读到的文字——可以不经询问启动 shell'],
  'plugin.agentcli.max_sessions': ['Most terminals', '终端上限', '同时运行的终端会话最多几个'],
  'plugin.agentcli.buffer_chars': ['Output kept (characters)', '保留输出（字）', '每个会话保留多少字的输出（更早的丢弃）'],
  'plugin.agentcli.cwd': ['Working folder', '工作文件夹', '新会话的工作文件夹（空 = 数据文件夹）'],
  'plugin.agentcli.idle_timeout_ms': ['Idle close (ms)', '空闲关闭（毫秒）', '会话无人使用这么久就关闭'],
  'plugin.agentcli.notify_on_exit': ['Tell the agent on exit', '结束时告诉智能体', '会话自行结束时告诉智能体（一条来源为 agentcli 的系统输入）'],
  'plugin.pluginmgr.max_install_bytes': ['Largest package (bytes)', '最大插件包（字节）', 'POST /api/v1/plugins/install 接受的 .hmap 包最大多少字节'],
};

/** The per-source keys `core.llm.sources.<name>.<field>`: labelled by their field. */
const SOURCE_FIELDS: Record<string, Entry> = {
  adapter: ['Adapter', '适配器', 'Lua 适配器（adapters 文件夹中的文件名，不含 .lua）'],
  api_key: ['API key', 'API 密钥', '这个来源的 API 密钥（不会显示）'],
  base_url: ['API base URL', 'API 基础地址', 'API 的基础地址'],
  enabled: ['Use this source', '启用此来源', '关闭后不再尝试这个来源'],
  model: ['Model', '模型', '使用的模型'],
  options: ['Adapter options', '适配器选项', 'Lua 脚本中的 cfg.options，如 {"api_version": "…"}'],
};

/** Group headings of the general settings (`core.<group>`). */
const GROUPS: Record<string, [string, string]> = {
  'core.agent': ['Agent', '智能体'],
  'core.context': ['Context window', '上下文窗口'],
  'core.memory': ['Memory', '记忆'],
  'core.docs': ['Documents', '文档'],
  'core.knowledge': ['Knowledge', '知识库'],
  'core.textlog': ['Text log', '文本日志'],
  'core.identity': ['Identity', '身份'],
  'core.notify': ['Notices', '主动消息'],
  'core.network': ['Network', '网络'],
  'core.llm': ['LLM sources', 'LLM 来源'],
  'core.log': ['Daemon log', '守护进程日志'],
  'core.media': ['Attachments', '附件'],
  'core.plugins': ['Plugins', '插件'],
  'core.subagent': ['Sub-agents', '子智能体'],
  'core.webui': ['WebUI', 'WebUI'],
};

/**
 * The choices of the settings with a fixed set of values that are words of the code ("forward",
 * "debug"), as the page says them; the value stored is still the code's word.
 */
const CHOICES: Record<string, Record<string, [en: string, zh: string]>> = {
  'core.log.level': { debug: ['debug (everything)', '调试（全部记录）'], info: ['info', '一般信息'], warn: ['warnings and errors', '警告和错误'], error: ['errors only', '仅错误'] },
  'plugin.cmd.confirm': { never: ['never: refuse what is not allowed', '从不：不在列表中的拒绝'], 'outside-allowlist': ['programs not on the list', '不在列表中的程序'], always: ['always', '总是'] },
  'plugin.web.search_provider': { '': ['none (no web_search)', '无（不提供 web_search）'] },
  'plugin.qq.mode': { off: ['off', '关闭'], forward: ['forward: HomeAgent connects to it', '正向：HomeAgent 连接它'], reverse: ['reverse: it connects to HomeAgent', '反向：它连接 HomeAgent'] },
};

/** One choice of a setting with fixed values in the page's language (a value the table lacks as it is). */
export function choiceLabel(key: string, value: string, lang: Lang): string {
  const c = CHOICES[key]?.[value];
  return c ? c[lang === 'zh' ? 1 : 0] : value;
}

/** `max_tool_rounds` → "Max tool rounds". */
function humanize(part: string): string {
  const s = part.replace(/[_-]+/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase().trim();
  return s ? s[0].toUpperCase() + s.slice(1) : part;
}

/** The table entry of a key (a per-source key by its field). */
function entryOf(key: string): Entry | undefined {
  const src = /^core\.llm\.sources\.[^.]+\.([a-z_]+)$/.exec(key);
  return src ? SOURCE_FIELDS[src[1]] : KEYS[key];
}

/** Label and help of a setting in a language; unknown keys fall back to their name and the daemon's description. */
export function settingLabel(key: string, description: string, lang: Lang): { label: string; help: string } {
  // The spec ids in descriptions ("(C-4)") are for developers.
  description = description.replace(/\s*\([A-Z]-\d+\)/g, '');
  const e = entryOf(key);
  if (!e) return { label: humanize(key.split('.').at(-1) ?? key), help: description };
  return lang === 'zh' ? { label: e[1], help: e[2] ?? description } : { label: e[0], help: description };
}

/** Heading of a group of the general settings (`core.agent` → "Agent"). */
export function groupLabel(group: string, lang: Lang): string {
  const g = GROUPS[group];
  return g ? (lang === 'zh' ? g[1] : g[0]) : humanize(group.split('.').at(-1) ?? group);
}

/** Whether the table knows a key (tests check every key the daemon has in the general page). */
export function knownSetting(key: string): boolean {
  return entryOf(key) !== undefined;
}
