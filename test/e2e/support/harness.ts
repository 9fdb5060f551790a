/**
 * The e2e harness: a HomeAgent on loopback with the WebUI, and a browser.
 *
 * Mode `daemon` (the real `startDaemon` from src/daemon with the fake LLM server) is used when
 * it can be started; otherwise (or with HOMEAGENT_E2E_HOST=mini) a mini host runs the real
 * webui and memory-manager plugins on an in-process SDK with scripted turns and fake host
 * services. Both serve the built SPA from dist/web (built on demand).
 */
import { existsSync, mkdtempSync, rmSync, statSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { chromium, type Browser, type Page } from 'playwright-core';
import webui from '../../../src/builtins/webui/index.js';
import memoryManager from '../../../src/builtins/memory-manager/index.js';
import { createMiniHost, type MiniHost, type ScriptedTurn } from '../../../src/builtins/webui/__fixtures__/mini-host.js';
import type { PluginSDK } from '../../../src/spec/index.js';
import { fakeChanges, fakeConfig, fakeMemory, fakePlugins, fakeProviders } from './fake-services.js';

export const ROOT = new URL('../../../', import.meta.url).pathname;
export const ARTIFACTS = join(ROOT, 'test-artifacts');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Builds the SPA when dist/web is missing or older than web/src. */
export function ensureWebBuilt(): void {
  const out = join(ROOT, 'dist', 'web', 'index.html');
  const newest = (dir: string): number => readdirSync(dir, { withFileTypes: true }).reduce((m, e) => Math.max(m, e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs), 0);
  if (existsSync(out) && statSync(out).mtimeMs >= newest(join(ROOT, 'web', 'src'))) return;
  const r = spawnSync(join(ROOT, 'node_modules', '.bin', 'vite'), ['build', '--config', 'web/vite.config.ts', '--logLevel', 'error'], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('vite build failed');
}

export interface Harness {
  mode: 'mini' | 'daemon';
  url: string;
  home: string;
  /** Queue scripted turns (mini mode). */
  script(...turns: ScriptedTurn[]): void;
  /** The mini host (mini mode). */
  host?: MiniHost;
  /** Stops and starts the host on the same port and data folder. */
  restart(): Promise<void>;
  setLlmAvailable(v: boolean): void;
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
  const sdk = await host.start(webui, { port, heartbeatMs: 2000 });
  return { host, url: sdk.use('host.agent')!.endpoints().webui! };
}

/** Starts a harness in a fresh temp data folder. */
export async function startHarness(): Promise<Harness> {
  ensureWebBuilt();
  const home = mkdtempSync(join(tmpdir(), 'ha-e2e-'));
  const llm = { available: true };
  let { host, url } = await startMini(home, 0, llm);
  const port = Number(new URL(url).port);
  const h: Harness = {
    mode: 'mini',
    get url() {
      return url;
    },
    home,
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

/** Launches Debian's chromium headless. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
}

/** A page with a fixed language and theme, collecting console errors. */
export async function openPage(browser: Browser, url: string, opts: { lang?: 'zh' | 'en'; theme?: 'light' | 'dark'; width?: number; height?: number } = {}): Promise<{ page: Page; errors: string[] }> {
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
  await page.goto(url);
  return { page, errors };
}

export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
}
