import { monitorEventLoopDelay } from 'node:perf_hooks';
import { z } from 'zod';
import { definePlugin } from '../../sdk/index.js';
import type { ConfigKeyDef, PluginDefinition } from '../../sdk/index.js';
import { jsonOk, personTimeZone, safeHandler, toolParameters } from '../shared/index.js';
import { buildHealthReport, formatHealthReport, type HealthReport } from './health-report.js';

const settings: Record<string, ConfigKeyDef> = {
  interval_ms: { default: 60_000, description: 'How often the self-check runs', schema: z.number().int().min(1000).max(86_400_000) },
  max_rss_mb: { default: 1024, description: 'Resident memory above this is reported as a problem', schema: z.number().int().min(16).max(1_000_000) },
  max_loop_lag_ms: { default: 200, description: 'Event-loop p99 delay above this is reported as a problem', schema: z.number().int().min(1).max(600_000) },
  notify_owner: { default: true, description: 'Tell the owner on their default channel (core.notify.channel) when the health status changes', schema: z.boolean() },
};

/**
 * Builds the `healthcheck` plugin (P-7): a periodic self-check (event-loop lag, memory, plugin
 * and provider states), logged when its status changes and published as `custom:health`;
 * the tool `health_report` and `GET /api/v1/health`.
 */
export function createHealthcheckPlugin(opts: { now?: () => number } = {}): PluginDefinition & { last(): HealthReport | undefined } {
  let last: HealthReport | undefined;
  const def = definePlugin({
    name: 'healthcheck',
    description: 'Periodic self-check of the daemon, plugins and providers',
    settings,
    start(sdk) {
      const s = sdk.settings();
      const now = opts.now ?? Date.now;
      const lag = monitorEventLoopDelay({ resolution: 20 });
      lag.enable();
      const ms = (ns: number) => (Number.isFinite(ns) ? Math.round(ns / 1e5) / 10 : 0);
      const check = (): HealthReport => {
        const mem = process.memoryUsage();
        const r = buildHealthReport({
          at: now(),
          rssBytes: mem.rss,
          heapUsedBytes: mem.heapUsed,
          uptimeSec: process.uptime(),
          loopLagMs: { mean: ms(lag.mean), p99: ms(lag.percentile(99)), max: ms(lag.max) },
          plugins: sdk.use('host.plugins'),
          providers: sdk.use('host.providers'),
          agent: sdk.use('host.agent'),
          limits: { maxRssMb: s.get<number>('max_rss_mb'), maxLoopLagMs: s.get<number>('max_loop_lag_ms') },
        });
        if (last && last.status !== r.status) {
          const log = r.status === 'ok' ? sdk.log.info : sdk.log.warn;
          log.call(sdk.log, `health ${last.status} → ${r.status}`, { problems: r.problems });
          // A heartbeat notice (R-6): the owner hears of it where they are, without an LLM turn.
          const notify = sdk.use('host.notify');
          if (notify && s.get<boolean>('notify_owner')) {
            const text = r.status === 'ok' ? `HomeAgent is healthy again (was ${last.status}).` : `HomeAgent health: ${r.status}.\n${r.problems.map((p) => `- ${p}`).join('\n')}`;
            void notify.send({ text, source: 'healthcheck', meta: { status: r.status } }).catch((e) => sdk.log.warn('could not send the health notice', { error: String(e) }));
          }
        }
        last = r;
        sdk.publish('custom:health', r);
        return r;
      };
      let timer: NodeJS.Timeout | undefined;
      const arm = () => {
        if (timer) clearInterval(timer);
        timer = setInterval(() => {
          try {
            check();
          } catch (e) {
            sdk.log.error('health check failed', { error: String(e) });
          }
          lag.reset();
        }, s.get<number>('interval_ms'));
        timer.unref?.();
      };
      arm();
      sdk.onDispose(s.onChange((k) => k === 'interval_ms' && arm()));
      sdk.onDispose(() => {
        if (timer) clearInterval(timer);
        lag.disable();
      });
      sdk.registerTool({
        name: 'health_report',
        description: 'Check HomeAgent itself: memory, event-loop lag, plugin and LLM provider states.',
        parameters: toolParameters(z.object({})),
        handler: () => formatHealthReport(check(), personTimeZone(sdk)),
      });
      sdk.registerRoute({ method: 'GET', path: '/api/v1/health', handler: safeHandler(() => jsonOk(check())) });
    },
  });
  return Object.assign(def, { last: () => last });
}

/** The healthcheck plugin. */
export const healthcheckPlugin = createHealthcheckPlugin();
