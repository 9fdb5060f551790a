/**
 * The e2e harness: a HomeAgent on loopback with the WebUI, and a browser.
 *
 * Mode `daemon` (the real `startDaemon` from src/daemon with the fake LLM server) is the
 * default, and the suite FAILS when it does not come up. Only with HOMEAGENT_E2E_HOST=mini a
 * mini host runs the real webui and memory-manager plugins on an in-process SDK (its LLM calls
 * also go over HTTP to a fake LLM server) with fake host services. Both serve the built SPA from
 * dist/web (built on demand).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createWebuiPlugin } from '../../../src/builtins/webui/index.js';
import memoryManager from '../../../src/builtins/memory-manager/index.js';
import { authedFetch, createMiniHost, MINI_TOKEN, type MiniHost, type ScriptedTurn } from '../../../src/builtins/webui/__fixtures__/mini-host.js';
import type { PluginDefinition, PluginSDK } from '../../../src/spec/index.js';
import type { TransferServiceOptions } from '../../../src/transfer/index.js';
import { startFakeLlm, type FakeLlm } from '../../fixtures/fake-llm/index.js';
import type { GraphProbe } from '../../../web/src/components/graph/probe.js';
import { fakeChanges, fakeConfig, fakeMemory, fakePlugins, fakeProviders } from './fake-services.js';

/** The graph canvas's test hook. */
declare global {
  interface Window {
    __haGraph?: GraphProbe;
  }
}

export const ROOT = new URL('../../../', import.meta.url).pathname;
export const ARTIFACTS = join(ROOT, 'test-artifacts');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Builds the SPA when dist/web is missing or older than web/src. Test files run two at a time, and
 * a build empties dist/web first: one process builds under a lock folder while the others wait for
 * it, so no page is served from a half-written dist/web (a browser test then waited 60 s for a
 * page that never came).
 */
export function ensureWebBuilt(): void {
  const out = join(ROOT, 'dist', 'web', 'index.html');
  const lock = join(ROOT, 'dist', '.web-build.lock');
  const newest = (dir: string): number => readdirSync(dir, { withFileTypes: true }).reduce((m, e) => Math.max(m, e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs), 0);
  const fresh = () => existsSync(out) && statSync(out).mtimeMs >= newest(join(ROOT, 'web', 'src'));
  const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  for (const deadline = Date.now() + 300_000; ; ) {
    if (fresh() && !existsSync(lock)) return;
    try {
      mkdirSync(join(ROOT, 'dist'), { recursive: true });
      mkdirSync(lock);
    } catch {
      // Another test process is building (or one that died left the lock: taken after 5 min).
      if (Date.now() > deadline || (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 300_000)) rmSync(lock, { recursive: true, force: true });
      sleep(200);
      continue;
    }
    try {
      if (fresh()) return;
      const r = spawnSync(join(ROOT, 'node_modules', '.bin', 'vite'), ['build', '--config', 'web/vite.config.ts', '--logLevel', 'error'], { cwd: ROOT, stdio: 'inherit' });
      if (r.status !== 0) throw new Error('vite build failed');
      return;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

export interface Harness {
  mode: 'mini' | 'daemon';
  url: string;
  home: string;
  /** The API token (the daemon's per-install secret; the mini host's fixed one). */
  token: string;
  /** fetch of the daemon's API as the WebUI does it (Bearer token, JSON bodies). */
  api(path: string, init?: RequestInit): Promise<Response>;
  /** Queue scripted turns (mini mode). */
  script(...turns: ScriptedTurn[]): void;
  /** The mini host (mini mode). */
  host?: MiniHost;
  /** Switches the LLM off/on (mini: the host flag; daemon: the OpenAI source's enabled setting). */
  /** Stops and starts the host on the same port and data folder. */
  restart(): Promise<void>;
  setLlmAvailable(v: boolean): void | Promise<void>;
  /** Daemon mode: a notice through the host's notify service (`Agent.notify`), as a plugin sends one. */
  notify?(text: string, source: string): Promise<{ channel?: string }>;
  /** Daemon mode: every un-scripted LLM answer (summaries …) waits this long first (0 = off). */
  slowLlm?(ms: number): void;
  /** Daemon mode: every un-scripted LLM answer is this HTTP error (0 = back to answering). */
  failLlm?(status: number): void;
  /** Daemon mode: a setting's value as the daemon's config registry has it (`d.config.get`). */
  configValue?(key: string): unknown;
  stop(): Promise<void>;
}

async function startMini(home: string, port: number, llm: { available: boolean }): Promise<{ host: MiniHost; url: string }> {
  const host = createMiniHost({ home });
  host.llmAvailable = llm.available;
  const services = { name: 'host-services', start(sdk: PluginSDK) {
    const config = fakeConfig(home, (key, value) => sdk.publish('config_changed', { key, value }));
    sdk.provide('host.config', config);
    sdk.provide('host.providers', fakeProviders({ configured: () => host.llmAvailable }));
    sdk.provide('host.plugins', fakePlugins(['webui', 'memory-manager', 'cli', 'timer', 'files', 'cfgmgr', 'pluginmgr']));
    sdk.provide('host.memory', fakeMemory());
    sdk.provide('changes', fakeChanges());
  } };
  await host.start(services);
  await host.start(memoryManager);
  const sdk = await host.start(createWebuiPlugin(), { port, heartbeat_ms: 2000 });
  return { host, url: sdk.use('host.agent')!.endpoints().webui! };
}

/**
 * Starts a harness in a fresh temp data folder: the real daemon (throws when it, or one of the
 * plugins the suite needs, does not come up); the mini host only with HOMEAGENT_E2E_HOST=mini.
 */
export interface HarnessOptions {
  /** Runs on the fresh data folder before the host starts (e.g. to put a memory library there). */
  beforeStart?(home: string): void;
  /** Daemon mode: the transfer service's test hooks (e.g. an import held at its commit point). */
  transfer?: TransferServiceOptions;
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  ensureWebBuilt();
  const want = process.env.HOMEAGENT_E2E_HOST ?? 'daemon';
  if (want === 'mini') return startMiniHarness(opts);
  if (want !== 'daemon') throw new Error(`HOMEAGENT_E2E_HOST must be "daemon" (default) or "mini", not ${JSON.stringify(want)}`);
  try {
    return await startDaemonHarness(opts);
  } catch (e) {
    throw new Error(`[e2e] the real daemon did not come up (set HOMEAGENT_E2E_HOST=mini to run against the mini host on purpose): ${(e as Error).message}`, { cause: e });
  }
}

async function startMiniHarness(opts: HarnessOptions): Promise<Harness> {
  const home = mkdtempSync(join(tmpdir(), 'ha-e2e-'));
  opts.beforeStart?.(home);
  const llm = { available: true };
  let { host, url } = await startMini(home, 0, llm);
  const port = Number(new URL(url).port);
  const h: Harness = {
    mode: 'mini',
    get url() {
      return url;
    },
    home,
    token: MINI_TOKEN,
    api: (path, init) => authedFetch(`${url}${path}`, init, MINI_TOKEN),
    get host() {
      return host;
    },
    script: (...turns) => host.script(...turns),
    setLlmAvailable(v) {
      llm.available = v;
      host.llmAvailable = v;
    },
    async restart() {
      await host.stop();
      ({ host, url } = await startMini(home, port, llm));
    },
    async stop() {
      await host.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
  return h;
}

/** Answers the memory manager's summary/grouping prompts with valid JSON, anything else with "ok". */
function defaultReply(req: { body: unknown }) {
  const text = JSON.stringify(req.body ?? '');
  if (/groups/.test(text) && /事务/.test(text)) return { text: '{"groups": [[1]]}' };
  if (/processing/.test(text)) return { text: JSON.stringify({ user: '用户询问天气', thinking: '需要查询', processing: '调用 weather_lookup', result: '上海 21°C' }) };
  return { text: 'ok' };
}

async function startDaemonHarness(opts: HarnessOptions): Promise<Harness> {
  const { startTestDaemon } = await import('../../fixtures/daemon.js');
  const llm: FakeLlm = await startFakeLlm();
  llm.setDefault(defaultReply);
  const home = mkdtempSync(join(tmpdir(), 'ha-e2e-d-'));
  opts.beforeStart?.(home);
  const toolResults: string[] = [];
  let toolsSdk: PluginSDK | undefined;
  const tools: PluginDefinition = {
    name: 'e2e-tools',
    async start(sdk) {
      toolsSdk = sdk;
      sdk.registerTool({ name: 'weather_lookup', description: 'Current weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } } }, handler: () => toolResults.shift() ?? '{}' });
      try {
        await sdk.memory().commit([
          { subject: '小明', predicate: '住在', object: '上海', sentence: '我住在上海' },
          { subject: '小明', predicate: '喜欢', object: '咖啡', sentence: '我喜欢咖啡' },
          { subject: '小明', predicate: '使用', object: 'HomeAgent', sentence: '我每天用 HomeAgent' },
          { subject: 'HomeAgent', predicate: '写于', object: 'TypeScript', sentence: 'HomeAgent is written in TypeScript' },
        ]);
      } catch {}
    },
  };
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${llm.url}/v1`, OLLAMA_HOST: 'http://127.0.0.1:9' };
  const boot = async (port: number) => {
    // With its plugins settled (startTestDaemon): the suite needs them up, and on a loaded machine
    // the WebUI could still be starting when homed said it was ready (no URL yet).
    const d = await startTestDaemon({ homeDir: home, env, webuiPort: port, heartbeats: false, plugins: [tools], ...(opts.transfer ? { transfer: opts.transfer } : {}) });
    // HOMEAGENT_E2E_REQUIRE (comma list) overrides which plugins must run, for debugging one area.
    const required = (process.env.HOMEAGENT_E2E_REQUIRE ?? 'webui,memory-manager,cfgmgr,pluginmgr').split(',');
    const bad = d.registry.list().filter((p) => required.includes(p.name) && p.state !== 'running');
    if (bad.length || !d.url) {
      await d.stop();
      throw new Error(`plugins not running: ${bad.map((p) => `${p.name}: ${p.lastError ?? p.state}`).join('; ') || 'webui has no URL'}`);
    }
    return d;
  };
  let d: Awaited<ReturnType<typeof boot>>;
  try {
    d = await boot(0);
  } catch (e) {
    await llm.close();
    rmSync(home, { recursive: true, force: true });
    throw e;
  }
  const port = Number(new URL(d.url!).port);
  const token = d.authToken;
  const setting = (key: string, value: unknown) => authedFetch(`${d.url}/api/v1/settings/${encodeURIComponent(key)}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ value }) }, token);
  return {
    mode: 'daemon',
    get url() {
      return d.url!;
    },
    home,
    token,
    api: (path, init) => authedFetch(`${d.url}${path}`, init, token),
    script(...turns) {
      for (const t of turns) {
        for (const r of t.rounds ?? []) {
          llm.enqueue({ text: r.text, reasoning: r.reasoning, toolCalls: r.tool ? [{ name: r.tool.name, arguments: r.tool.args }] : undefined, chunkDelayMs: t.chunkMs ?? 15 });
          if (r.tool?.name === 'weather_lookup') toolResults.push(r.tool.result);
        }
      }
    },
    async notify(text, source) {
      const svc = toolsSdk?.use('host.notify');
      if (!svc) throw new Error('host.notify is not provided');
      return svc.send({ text, source });
    },
    slowLlm(ms) {
      llm.setDefault((req) => ({ ...defaultReply(req), delayMs: ms }));
    },
    configValue: (key) => d.config.get(key),
    failLlm(status) {
      llm.setDefault(status ? () => ({ status }) : defaultReply);
    },
    async setLlmAvailable(v) {
      // Ollama is a default source too (pointed at a closed port): switch both so no source is left.
      for (const name of ['openai', 'ollama']) {
        const res = await setting(`core.llm.sources.${name}.enabled`, v);
        if (!res.ok) throw new Error(`setting core.llm.sources.${name}.enabled failed: ${res.status} ${await res.text()}`);
      }
      // The provider manager applies config changes asynchronously: wait until the agent sees it.
      for (let i = 0; i < 100; i++) {
        const st = (await (await authedFetch(`${d.url}/api/v1/status`, {}, token)).json()) as { services?: { llm?: boolean } };
        if (st.services?.llm === v) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`the daemon did not report llm available=${v} within 5 s`);
    },
    async restart() {
      await d.stop();
      d = await boot(port);
    },
    async stop() {
      await d.stop();
      await llm.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Launches Debian's chromium headless. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
}

/**
 * A page with a fixed language and theme, collecting console errors. With `token` the page is
 * opened through the sign-in link (`?token=`), as a person opening the link `homed` printed.
 */
export async function openPage(browser: Browser, url: string, opts: { lang?: 'zh' | 'en'; theme?: 'light' | 'dark'; width?: number; height?: number; token?: string } = {}): Promise<{ page: Page; errors: string[] }> {
  const ctx = await browser.newContext({ viewport: { width: opts.width ?? 1360, height: opts.height ?? 860 }, deviceScaleFactor: 1, locale: opts.lang === 'en' ? 'en-US' : 'zh-CN' });
  await ctx.addInitScript(([lang, theme]) => {
    localStorage.setItem('ha.lang', lang);
    localStorage.setItem('ha.theme', theme);
  }, [opts.lang ?? 'zh', opts.theme ?? 'light']);
  const page = await ctx.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource|EventSource|ERR_CONNECTION_REFUSED/.test(m.text())) errors.push(m.text());
  });
  const target = new URL(url);
  if (opts.token) target.searchParams.set('token', opts.token);
  await page.goto(target.toString());
  // The SPA keeps a link's token in an effect after its first render, which can come after the load
  // event: a test that navigates at once (page.goto to another route) would leave before it, signed
  // out. The link's token leaves the address bar once it is kept.
  if (opts.token) await page.waitForFunction(() => !new URL(window.location.href).searchParams.has('token'), undefined, { timeout: 20_000 });
  return { page, errors };
}

/** A toast as it was shown: its kind (`ok`, `info`, `error`) and its text. */
export interface ShownToast {
  kind: string;
  text: string;
}

/** What {@link recordToasts} gives: the toasts shown since, and a wait for one of them. */
export interface ToastRecord {
  /** Every toast shown since the record started, oldest first (gone ones too); a repeat is listed again. */
  seen(): Promise<ShownToast[]>;
  /**
   * Waits until a toast whose text contains `text` (or matches it), of `kind` if given, has been
   * shown since the start — `count` times (default 1), for the same words said again.
   */
  waitFor(text: string | RegExp, opts?: { kind?: 'ok' | 'info' | 'error'; count?: number; timeout?: number }): Promise<void>;
}

/**
 * Closes the toasts on screen, as a person would before reaching a button under one: a toast sits
 * for a few seconds in the bottom-left corner (over the list of conversations; under the top bar
 * on a phone — decision 0610), where a test may reach for a conversation or a section.
 */
export async function closeToasts(page: Page): Promise<void> {
  for (let i = 0; i < 10 && (await page.locator('.toast-close').count()); i++) await page.locator('.toast-close').first().click({ timeout: 5_000 }).catch(() => undefined);
}

/**
 * Records every toast the page shows from now on. A toast goes after a few seconds and only the
 * newest three stay: a test that looks for one after another wait may find it gone on a slow
 * machine. The same words again are the toast already shown with its count up, not a new one: a
 * repeat is recorded as one more showing. Start it before the action; the record lasts until the
 * page is reloaded (a new call starts a new record).
 */
export async function recordToasts(page: Page): Promise<ToastRecord> {
  // A string, not a function: tsx's keepNames helpers (__name) do not exist in the page.
  await page.evaluate(`(() => {
    const counts = window.__toastCounts ?? new WeakMap();
    const count = (el) => Number(el.getAttribute('data-count') ?? 1);
    for (const el of document.querySelectorAll('.toast')) counts.set(el, count(el));
    window.__toasts = [];
    if (window.__toastCounts) return;
    window.__toastCounts = counts;
    new MutationObserver(() => {
      for (const el of document.querySelectorAll('.toast')) {
        const n = count(el);
        const was = counts.get(el) ?? 0;
        if (n <= was) continue;
        counts.set(el, n);
        const text = (el.querySelector('.toast-text') ?? el).textContent ?? '';
        const kind = [...el.classList].filter((c) => c !== 'toast').join(' ');
        for (let i = was; i < n; i++) window.__toasts.push({ kind, text });
      }
    }).observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-count'] });
  })()`);
  type Shown = { __toasts?: ShownToast[] };
  return {
    seen: () => page.evaluate(() => [...((window as unknown as Shown).__toasts ?? [])]),
    async waitFor(text, opts = {}) {
      const [source, flags] = typeof text === 'string' ? [text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), ''] : [text.source, text.flags];
      await page.waitForFunction(
        ([s, f, kind, n]) => ((window as unknown as Shown).__toasts ?? []).filter((x) => (!kind || x.kind === kind) && new RegExp(s, f).test(x.text)).length >= n,
        [source, flags, opts.kind ?? '', opts.count ?? 1] as const,
        { timeout: opts.timeout ?? 20_000 },
      );
    },
  };
}

export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
}

/**
 * The page position of a graph node once it stands still: the graph overlay has finished sliding in
 * (its opening animation moves the canvas by 20 px), the picture is settled, and two readings one
 * frame apart agree. A click at a position read mid-animation can miss the node on a slow machine.
 *
 * The check is synchronous on purpose, one reading per animation frame (the default polling):
 * `waitForFunction` takes any truthy value as done, a Promise too — an earlier version returned a
 * Promise and so never waited, and tests passed only when something before had waited for them.
 */
export async function graphNodePosition(page: Page, id: string): Promise<{ x: number; y: number }> {
  const handle = await page.waitForFunction(
    (nodeId) => {
      const w = window as unknown as { __haLastPos?: { id: string; x: number; y: number } };
      const g = window.__haGraph;
      const overlay = document.querySelector('.graph-overlay');
      const moving = overlay?.getAnimations().some((a) => a.playState === 'running' || a.pending) ?? false;
      const p = g?.positionOf(nodeId);
      const prev = w.__haLastPos;
      w.__haLastPos = p && !moving && g!.settled() ? { id: nodeId, x: p.x, y: p.y } : undefined;
      return !!(w.__haLastPos && prev && prev.id === nodeId && Math.abs(prev.x - p!.x) < 0.5 && Math.abs(prev.y - p!.y) < 0.5) && { x: p!.x, y: p!.y };
    },
    id,
    { timeout: 30_000 },
  );
  const pos = (await handle.jsonValue()) as { x: number; y: number } | false;
  if (!pos) throw new Error(`graph node ${id} has no position`);
  return pos;
}
