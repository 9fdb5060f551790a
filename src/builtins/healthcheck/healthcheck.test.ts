import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildHealthReport, createHealthcheckPlugin, formatHealthReport, healthcheckPlugin } from './index.js';
import type { AgentStatusService, PluginAdminService, PluginInfo, ProviderAdminService, ProviderStatus } from '../../spec/index.js';
import { createTestHost } from '../../sdk/testing/index.js';
import { definePlugin } from '../../sdk/index.js';
import { callRoute } from '../__fixtures__/call-route.js';

const base = { at: 0, rssBytes: 100 * 1024 * 1024, heapUsedBytes: 50 * 1024 * 1024, uptimeSec: 10, loopLagMs: { mean: 1, p99: 5, max: 9 }, limits: { maxRssMb: 1024, maxLoopLagMs: 200 } };
const plugin = (name: string, state: PluginInfo['state'], lastError?: string): PluginInfo => ({ name, kind: 'builtin', enabled: true, state, lastError, restarts: 0, tools: [] });
const provider = (name: string, state: ProviderStatus['state']): ProviderStatus => ({ name, adapter: 'openai', model: 'm', baseUrl: 'x', enabled: true, configured: state !== 'unconfigured', state, consecutiveFailures: 0 });
const plugins = (list: PluginInfo[]) => ({ list: () => list }) as unknown as PluginAdminService;
const providers = (list: ProviderStatus[]) => ({ status: () => list }) as unknown as ProviderAdminService;

test('buildHealthReport: ok, degraded by a failed plugin / memory / loop lag, failing when no configured provider is ready', () => {
  assert.equal(buildHealthReport({ ...base, plugins: plugins([plugin('a', 'running')]), providers: providers([provider('p', 'ready')]) }).status, 'ok');
  const d = buildHealthReport({ ...base, plugins: plugins([plugin('a', 'running'), plugin('b', 'crashed', 'boom')]) });
  assert.equal(d.status, 'degraded');
  assert.deepEqual(d.problems, ['plugin b is crashed: boom']);
  assert.equal(buildHealthReport({ ...base, rssBytes: 2048 * 1024 * 1024 }).status, 'degraded');
  assert.match(buildHealthReport({ ...base, loopLagMs: { mean: 100, p99: 500, max: 900 } }).problems[0], /p99 lag 500 ms/);
  const f = buildHealthReport({ ...base, providers: providers([provider('p', 'disabled-auth'), provider('q', 'unconfigured')]) });
  assert.equal(f.status, 'failing');
  assert.ok(f.problems.includes('no LLM provider is ready'));
  // nothing configured at all is not a failure: the daemon runs without a key
  assert.equal(buildHealthReport({ ...base, providers: providers([provider('q', 'unconfigured')]) }).status, 'ok');
  assert.match(formatHealthReport(d), /health: DEGRADED[\s\S]*- plugin b is crashed: boom/);
});

test('healthcheck plugin in the real host: GET /api/v1/health and health_report see a failed plugin', async (t) => {
  const broken = definePlugin({ name: 'broken', start() { throw new Error('cannot start'); } });
  const host = await createTestHost({ plugins: [healthcheckPlugin, broken] });
  t.after(() => host.close());
  const r = await callRoute(host.host.routes.list(), 'GET', '/api/v1/health');
  assert.equal(r.status, 200);
  const v = r.json.value as { status: string; problems: string[]; plugins: { failed: { name: string }[] } };
  assert.equal(v.status, 'degraded');
  assert.deepEqual(v.plugins.failed.map((p) => p.name), ['broken']);
  assert.match(await host.callTool('health_report'), /plugin broken is failed/);
});

test('R-6: a health change is a notice on the owner’s default channel (no LLM turn); turning notify_owner off silences it', async (t) => {
  const got: { payload: string; sessionId: string; meta: Record<string, unknown> }[] = [];
  const inbox = definePlugin({
    name: 'inbox',
    start(sdk) {
      sdk.registerOutputChannel('webui', 1, 'test inbox', (m) => void got.push(m));
    },
  });
  const host = await createTestHost({ plugins: [inbox, createHealthcheckPlugin()] });
  t.after(() => host.close());
  await host.callTool('health_report');
  assert.equal(got.length, 0, `the first report is no change: ${JSON.stringify(got)}`);
  await host.config.set('plugin.healthcheck.max_rss_mb', 16);
  await host.callTool('health_report');
  for (let i = 0; i < 100 && got.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(got.length, 1);
  assert.match(got[0].payload, /^HomeAgent health: degraded\.\n- memory: RSS .* is over 16 MB/);
  assert.equal(got[0].sessionId, 'system:notices');
  assert.equal(got[0].meta.proactive, true);
  assert.equal(host.llm.requests.length, 0);
  await host.config.set('plugin.healthcheck.max_rss_mb', 1024);
  await host.callTool('health_report');
  for (let i = 0; i < 100 && got.length === 1; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(got[1].payload, 'HomeAgent is healthy again (was degraded).');
  await host.config.set('plugin.healthcheck.notify_owner', false);
  await host.config.set('plugin.healthcheck.max_rss_mb', 16);
  await host.callTool('health_report');
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(got.length, 2);
  assert.deepEqual((await host.sessions.events('system:notices')).map((e) => e.kind), ['system', 'system']);
});

test('D6: a store set aside at start makes the report degraded and names the file and the recovery command', () => {
  const agent = (setAside: ReturnType<AgentStatusService['status']>['setAside']) => ({ status: () => ({ busy: false, queued: 0, startedAt: 0, version: '1', homeDir: '/h', pid: 1, setAside }) }) as unknown as AgentStatusService;
  assert.equal(buildHealthReport({ ...base, agent: agent([]) }).status, 'ok');
  const r = buildHealthReport({ ...base, agent: agent([{ store: 'documents', file: '/h/documents/documents.db.corrupt-5', at: 5, recover: 'waiter memory reindex' }, { store: 'memory-control', file: '/h/memory-control.db.corrupt-5', at: 5 }]) });
  assert.equal(r.status, 'degraded');
  assert.deepEqual(r.problems, [
    'documents store was corrupt at start: set aside as /h/documents/documents.db.corrupt-5, running empty (waiter memory reindex brings its turns back)',
    'memory-control store was corrupt at start: set aside as /h/memory-control.db.corrupt-5, running empty',
  ]);
  // Decision 0280: memory-control says what it read back of the old file.
  const salvaged = buildHealthReport({ ...base, agent: agent([{ store: 'memory-control', file: '/h/memory-control.db.corrupt-5', at: 5, salvaged: { read: 53, kept: 53, skipped: 0, tables: {}, tombstones: 12, tombstonesLostAtMost: 0, exclusions: 1, changes: 40, unreadablePages: 1 } }]) });
  assert.deepEqual(salvaged.problems, ['memory-control store was corrupt at start: set aside as /h/memory-control.db.corrupt-5, running with what could be read back: 12 forget tombstones (none lost), 1 excluded turns, 40 history entries; 1 damaged page could not be read']);
});

test('0310: a salvaged config.db or graph.db says in the report how many rows came back, by what they are, and which settings were dropped (by key)', () => {
  const agent = (setAside: ReturnType<AgentStatusService['status']>['setAside']) => ({ status: () => ({ busy: false, queued: 0, startedAt: 0, version: '1', homeDir: '/h', pid: 1, setAside }) }) as unknown as AgentStatusService;
  const r = buildHealthReport({
    ...base,
    agent: agent([
      {
        store: 'config',
        file: '/h/config.db.corrupt-5',
        at: 5,
        salvaged: { read: 44, kept: 41, skipped: 3, unreadablePages: 2, droppedKeys: ['core.agent.max_tool_rounds'], tables: { config: { read: 30, kept: 29, skipped: 1 }, config_webui: { read: 4, kept: 4, skipped: 0 }, people: { read: 10, kept: 8, skipped: 2 } } },
      },
      { store: 'graph', file: '/h/graph.db.corrupt-5', at: 5, salvaged: { read: 300, kept: 300, skipped: 0, unreadablePages: 0, tables: { entities: { read: 100, kept: 100, skipped: 0 }, relations: { read: 200, kept: 200, skipped: 0 } } } },
    ]),
  });
  assert.equal(r.status, 'degraded');
  assert.deepEqual(r.problems, [
    'config store was corrupt at start: set aside as /h/config.db.corrupt-5, running with what could be read back: 41 of 44 rows (33 settings, 8 people); 3 left out: invalid, or belonging to a row that was lost; settings dropped as they no longer fit their key: core.agent.max_tool_rounds; 2 damaged pages could not be read: what they held is lost',
    'graph store was corrupt at start: set aside as /h/graph.db.corrupt-5, running with what could be read back: 300 of 300 rows (100 entities, 200 facts)',
  ]);
});
