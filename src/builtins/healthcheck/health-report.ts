import type { AgentStatusService, PluginAdminService, PluginInfo, ProviderAdminService, ProviderStatus } from '../../spec/index.js';
import { localStampWithOffset, salvageInWords, systemTimeZone } from '../../spec/index.js';

/** Overall verdict: `ok`, `degraded` (something is off but the agent works), `failing`. */
export type HealthStatus = 'ok' | 'degraded' | 'failing';

/** One self-check. */
export interface HealthReport {
  status: HealthStatus;
  at: number;
  problems: string[];
  process: { pid: number; uptimeSec: number; rssMb: number; heapUsedMb: number; loopLagMs: { mean: number; p99: number; max: number } };
  agent?: { busy: boolean; queued: number; version: string };
  plugins?: { total: number; running: number; failed: { name: string; state: PluginInfo['state']; error?: string }[] };
  providers?: { total: number; ready: number; items: { name: string; state: ProviderStatus['state']; lastError?: string }[] };
}

export interface HealthInputs {
  at: number;
  rssBytes: number;
  heapUsedBytes: number;
  uptimeSec: number;
  loopLagMs: { mean: number; p99: number; max: number };
  plugins?: PluginAdminService;
  providers?: ProviderAdminService;
  agent?: AgentStatusService;
  limits: { maxRssMb: number; maxLoopLagMs: number };
}

const BAD_PLUGIN_STATES: PluginInfo['state'][] = ['failed', 'crashed', 'gave-up'];
const mb = (b: number) => Math.round((b / 1024 / 1024) * 10) / 10;

/**
 * Builds a health report from measurements and the host services (each optional: a missing
 * service is simply not part of the report). Pure, so it is tested without a daemon.
 */
export function buildHealthReport(i: HealthInputs): HealthReport {
  const problems: string[] = [];
  let failing = false;
  const rssMb = mb(i.rssBytes);
  if (rssMb > i.limits.maxRssMb) problems.push(`memory: RSS ${rssMb} MB is over ${i.limits.maxRssMb} MB`);
  if (i.loopLagMs.p99 > i.limits.maxLoopLagMs) problems.push(`event loop: p99 lag ${i.loopLagMs.p99} ms is over ${i.limits.maxLoopLagMs} ms`);
  const report: HealthReport = {
    status: 'ok',
    at: i.at,
    problems,
    process: { pid: process.pid, uptimeSec: Math.round(i.uptimeSec), rssMb, heapUsedMb: mb(i.heapUsedBytes), loopLagMs: i.loopLagMs },
  };
  if (i.agent) {
    const s = i.agent.status();
    report.agent = { busy: s.busy, queued: s.queued, version: s.version };
    // A store found corrupt at start runs empty or with what could be read back of the old file
    // (memory-control, config, graph: decisions 0280, 0310; the old file kept): the person should know.
    for (const a of s.setAside ?? []) {
      const state = a.salvaged ? `running with what could be read back: ${salvageInWords(a.salvaged)}` : 'running empty';
      problems.push(`${a.store} store was corrupt at start: set aside as ${a.file}, ${state}${a.recover ? ` (${a.recover} brings its turns back)` : ''}`);
    }
  }
  if (i.plugins) {
    const all = i.plugins.list();
    const failed = all.filter((p) => p.enabled && BAD_PLUGIN_STATES.includes(p.state)).map((p) => ({ name: p.name, state: p.state, error: p.lastError }));
    for (const f of failed) problems.push(`plugin ${f.name} is ${f.state}${f.error ? `: ${f.error}` : ''}`);
    report.plugins = { total: all.length, running: all.filter((p) => p.state === 'running').length, failed };
  }
  if (i.providers) {
    const all = i.providers.status();
    const items = all.filter((p) => p.enabled).map((p) => ({ name: p.name, state: p.state, lastError: p.lastError }));
    const ready = items.filter((p) => p.state === 'ready').length;
    const configured = all.filter((p) => p.enabled && p.configured).length;
    for (const p of items) if (p.state === 'disabled-auth' || p.state === 'cooling-down') problems.push(`provider ${p.name} is ${p.state}${p.lastError ? `: ${p.lastError}` : ''}`);
    if (configured > 0 && ready === 0) {
      problems.push('no LLM provider is ready');
      failing = true;
    }
    report.providers = { total: all.length, ready, items };
  }
  report.status = failing ? 'failing' : problems.length ? 'degraded' : 'ok';
  return report;
}

/** A short text version for the model and `waiter status`; the time on the wall clock of `zone` (the person's, decision 0270). */
export function formatHealthReport(r: HealthReport, zone: string = systemTimeZone()): string {
  const lines = [
    `health: ${r.status.toUpperCase()} (at ${localStampWithOffset(r.at, zone)})`,
    `process: pid ${r.process.pid}, up ${r.process.uptimeSec}s, RSS ${r.process.rssMb} MB, heap ${r.process.heapUsedMb} MB, loop lag mean ${r.process.loopLagMs.mean} ms / p99 ${r.process.loopLagMs.p99} ms`,
  ];
  if (r.agent) lines.push(`agent: ${r.agent.busy ? 'busy' : 'idle'}, ${r.agent.queued} queued, version ${r.agent.version}`);
  if (r.plugins) lines.push(`plugins: ${r.plugins.running}/${r.plugins.total} running${r.plugins.failed.length ? `, failed: ${r.plugins.failed.map((f) => f.name).join(', ')}` : ''}`);
  if (r.providers) lines.push(`providers: ${r.providers.ready}/${r.providers.items.length} enabled ready`);
  if (r.problems.length) lines.push('problems:', ...r.problems.map((p) => `- ${p}`));
  return lines.join('\n');
}
