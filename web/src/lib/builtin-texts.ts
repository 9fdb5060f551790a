/**
 * Chinese for what the daemon says in English about its built-ins: the plugins' descriptions (the
 * Plugins page), the seeded LLM sources' names and the adapters' (the LLM sources page). The
 * channels' states are worded from codes (`channel-words.ts`, decision 0680). The English comes from the server as it is; a plugin installed
 * later, a source the person added, or a text not listed here is shown as the server wrote it.
 * Product names (OpenAI, DeepSeek, Telegram …) stay as they are in both languages (decision 0530).
 */

export const PLUGIN_ZH: Record<string, string> = {
  agentcli: '供智能体使用的终端（PTY）会话',
  cfgmgr: '通过 HTTP 和工具读取、修改设置',
  cli: '供 waiter 命令行使用的 Unix 套接字服务',
  cmd: '运行命令（不经 shell）：白名单、确认策略、超时和输出上限',
  files: '允许的文件夹内的文件操作，每次写入和删除都可撤销',
  healthcheck: '定期自检守护进程、插件和 LLM 来源',
  mcp: 'MCP 客户端：已配置的 MCP 服务器的工具成为智能体的工具',
  'mcp-server': '记忆的 MCP 服务器（搜索、读取、保存到记忆库、知识库），地址 /mcp，或通过 `waiter mcp`',
  'memory-manager': '精选记忆库：兼容 Obsidian 的记忆、注入计划、会话总结、排除对话轮次',
  'openai-api': '兼容 OpenAI 的聊天 API（/v1/models、/v1/chat/completions），由完整的 HomeAgent 轮次回答',
  pluginmgr: '通过 HTTP 安装、启用、停用、重载和删除插件',
  qq: '通过 OneBot v11（NapCat、Lagrange）接入 QQ',
  skills: '在系统提示中列出技能（SKILL.md），需要时再载入它们的说明',
  telegram: 'Telegram 渠道：通过机器人与智能体私聊',
  timer: 'Cron 与一次性提醒，到时注入输入或打断',
  web: 'web_fetch（把网页读成文本，默认只访问公网地址）和 web_search（SearXNG、Brave 或 Tavily）',
  webui: 'WebUI：在浏览器中聊天、查看记忆面板、图谱和设置',
};

/** A built-in plugin's description in the page's language (the server's text otherwise). */
export function pluginDescription(lang: 'zh' | 'en', name: string, description: string | undefined): string | undefined {
  return lang === 'zh' && description ? (PLUGIN_ZH[name] ?? description) : description;
}

/**
 * The seeded sources whose English name carries English words (src/providers/provider-config.ts):
 * the name a Chinese user knows them by. DeepSeek, OpenAI, Anthropic and Google Gemini are the
 * products' own names and stay.
 */
const SOURCE_ZH: Record<string, [english: string, chinese: string]> = {
  qwen: ['Qwen (DashScope)', '通义千问（阿里云百炼 DashScope）'],
  zhipu: ['Zhipu GLM', '智谱 GLM'],
  moonshot: ['Moonshot (Kimi)', '月之暗面 Kimi'],
  ollama: ['Ollama (local)', 'Ollama（本机）'],
};

/** A built-in LLM source's name in the page's language; a source the person added keeps the name they gave it. */
export function sourceLabel(lang: 'zh' | 'en', source: { name: string; label?: string; custom?: boolean }): string {
  const label = source.label ?? source.name;
  const zh = SOURCE_ZH[source.name];
  return lang === 'zh' && !source.custom && zh && zh[0] === label ? zh[1] : label;
}

/** The wire format each adapter speaks (its id is the Lua file's name, which settings and `waiter` take). */
const ADAPTER: Record<string, [english: string, chinese: string]> = {
  'openai-compatible': ['OpenAI-compatible API', 'OpenAI 兼容接口'],
  'openai-responses': ['OpenAI Responses API', 'OpenAI Responses 接口'],
  openai: ['OpenAI API', 'OpenAI 接口'],
  'azure-openai': ['Azure OpenAI API', 'Azure OpenAI 接口'],
  anthropic: ['Anthropic API', 'Anthropic 接口'],
  deepseek: ['DeepSeek API', 'DeepSeek 接口'],
  gemini: ['Gemini API', 'Gemini 接口'],
  ollama: ['Ollama API', 'Ollama 接口'],
};

/** An adapter in words ("OpenAI 兼容接口"); an adapter the person wrote keeps its file name. */
export function adapterLabel(lang: 'zh' | 'en', adapter: string): string {
  const a = ADAPTER[adapter];
  return a ? a[lang === 'zh' ? 1 : 0] : adapter;
}
