/** `agentcli` built-in plugin (P-7). */
export { agentcliPlugin as default, agentcliPlugin, createAgentcliPlugin, AGENTCLI_SOURCE } from './agentcli-plugin.js';
export { TerminalManager, type TerminalInfo, type TerminalLimits } from './terminal-manager.js';
export { OutputRing, stripAnsi } from './output-ring.js';
