import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { writeFileAtomicSync } from '../fs/index.js';
import { join } from 'node:path';
import type { ConfigKeyDef, PendingPluginInstall, PluginAdminService, PluginDefinition, PluginInfo, PluginSDK } from '../spec/index.js';
import { ConflictError, NotFoundError, PluginError, ValidationError, isHomeAgentError } from '../spec/index.js';
import type { PluginAdminPort } from '../kernel/index.js';
import { PLUGIN_NAME, type PluginHost } from './plugin-host.js';
import { checkCompat, readManifest } from './plugin-manifest.js';
import { ExternalPlugin, manifestSettings, type ExternalHealth, type ExternalPluginOptions } from './external/external-plugin.js';
import { extractHmap, type HmapLimits } from './hmap-archive.js';
import { luaPlugin, type LuaPluginOptions } from './lua-plugin.js';
import { SkillCatalog, readSkill, skillPlugin, skillsPlugin } from './skill-catalog.js';
import { watchFile } from './file-watcher.js';
import { dependencyOrder } from './dependency-order.js';

type Kind = PluginInfo['kind'];

interface Entry {
  name: string;
  kind: Kind;
  dir?: string;
  version?: string;
  description?: string;
  dependencies: string[];
  /** A fresh definition for each start (external/lua/skill re-read their files). */
  make: () => PluginDefinition<PluginSDK>;
  /** Set when discovery already knows the plugin cannot start (broken manifest …). */
  loadError?: string;
  state: PluginInfo['state'];
  lastError?: string;
  restarts: number;
  external?: ExternalPlugin;
  /** How a started Lua plugin is doing (its state can be lost after it ran out of memory). */
  health?: () => Partial<ExternalHealth>;
  unwatch?: () => Promise<void>;
}

export interface PluginRegistryOptions {
  host: PluginHost;
  /** Folder of external, Lua and skill plugins. Default `<home>/plugins`. */
  pluginsDir?: string;
  /** Folder of stand-alone skills. Default `<home>/skills`. */
  skillsDir?: string;
  external?: ExternalPluginOptions;
  hmap?: HmapLimits;
  lua?: LuaPluginOptions;
  /** Watch Lua plugins' main.lua and reload on change (P-4). Default true. */
  watchLua?: boolean;
  watchDebounceMs?: number;
  /** How many non-built-in plugins (external ones are child processes) start at once. Default 4. */
  startConcurrency?: number;
}

/** Options of {@link PluginRegistry.start}. */
export interface RegistryStartOptions {
  /**
   * Return after at most this many ms even if plugins are still starting; they go on starting
   * in the background and their states settle in `list()` (and `plugin_state` events). Default:
   * wait until every plugin has settled.
   */
  waitMs?: number;
}

const STATE_FILE = '.state.json';
/** Uploaded packages waiting for the person's confirmation (a dot folder: never discovered as a plugin). */
const PENDING_DIR = '.pending';
const PENDING_META = '.staged.json';

function slug(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^[-_]+/, '').slice(0, 64) || 'skill';
}

/**
 * The plugin registry (P-2…P-5) and the plugin-manager service `host.plugins`. Built-ins register
 * a definition; external (plugin.json), Lua (main.lua) and skill (SKILL.md) plugins are
 * discovered in `<home>/plugins/<name>/` and skills also in `<home>/skills/`. All kinds go through
 * one path — a PluginDefinition started by the {@link PluginHost} — in dependency order; a plugin
 * that fails (bad manifest, missing dependency, cycle, start throws) is reported as `failed` and
 * the others start. Disabled plugins are remembered in `<plugins>/.state.json`.
 */
export class PluginRegistry implements PluginAdminService {
  private readonly entries = new Map<string, Entry>();
  private readonly builtins = new Map<string, PluginDefinition<PluginSDK>>();
  private readonly catalog = new SkillCatalog();
  private disabled = new Set<string>();
  private readonly pluginsDir: string;
  private readonly skillsDir: string;
  private started = false;
  private readonly watching: Promise<void>[] = [];
  /** Serializes admin operations (reload/enable/install …) so they never interleave. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Non-built-in starts in flight, and the starts waiting for a slot. */
  private inflight = 0;
  private stopping = false;
  private readonly waiting: (() => void)[] = [];
  /** The first start of every discovered plugin, until all have settled. */
  private startup: Promise<void> = Promise.resolve();
  /** The first start's built-ins (the product's own parts: memory manager, channels …), until they have settled. */
  private builtinsUp: Promise<void> = Promise.resolve();

  constructor(private readonly opts: PluginRegistryOptions) {
    this.pluginsDir = opts.pluginsDir ?? join(opts.host.homeDir, 'plugins');
    this.skillsDir = opts.skillsDir ?? join(opts.host.homeDir, 'skills');
    this.registerBuiltin(skillsPlugin(this.catalog));
    // A built-in took a tool name this plugin got while the built-in was not running: the plugin
    // goes down, failed with the CONFLICT, as any other start failure shows.
    opts.host.onToolEviction((plugin, error) => {
      void this.serial(async () => {
        const e = this.entries.get(plugin);
        if (!e) return;
        await this.stopEntry(plugin);
        this.setState(e, 'failed', error.message);
        this.opts.host.log.error(`plugin ${plugin} stopped: ${error.message}`, { code: error.code });
      });
    });
  }

  /** Registers a built-in plugin (P-2). Call before `start()`; later registrations start at once. */
  registerBuiltin(def: PluginDefinition<PluginSDK>): void {
    if (!def || typeof def.start !== 'function' || !PLUGIN_NAME.test(def.name)) throw new ValidationError(`invalid built-in plugin ${JSON.stringify(def?.name)}`);
    if (this.builtins.has(def.name)) throw new ConflictError(`built-in plugin "${def.name}" is already registered`, { plugin: def.name });
    this.builtins.set(def.name, def);
    if (this.started) {
      this.addBuiltinEntry(def);
      void this.serial(() => this.startInOrder([def.name]));
    }
  }

  /** The skills the agent can see (for tests and the WebUI). */
  get skills(): SkillCatalog {
    return this.catalog;
  }

  /**
   * Discovers plugins and starts every enabled one (concurrently, dependencies first). Offers
   * `host.plugins`. With `waitMs`, returns once every plugin has settled or the time is up,
   * whichever comes first ({@link settled} resolves when all have).
   */
  async start(opts: RegistryStartOptions = {}): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.stopping = false;
    // Before any await: a caller asks for it right after calling start().
    let builtinsSettled!: () => void;
    this.builtinsUp = new Promise<void>((r) => (builtinsSettled = r));
    this.loadState();
    // The daemon may already have offered it; offering it twice would be a conflict.
    if (!this.opts.host.services.use('host.plugins')) this.opts.host.services.provide('host', 'host.plugins', this);
    for (const def of this.builtins.values()) this.addBuiltinEntry(def);
    this.discover();
    await Promise.all(this.watching.splice(0));
    this.startup = this.serial(() => this.startInOrder([...this.entries.keys()], builtinsSettled));
    void this.startup.then(builtinsSettled, builtinsSettled);
    if (opts.waitMs === undefined) return this.startup;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.startup, new Promise<void>((r) => (timer = setTimeout(r, opts.waitMs)))]);
    clearTimeout(timer);
  }

  /** Resolves when the plugins of the first start have all settled (running, failed, …). */
  settled(): Promise<void> {
    return this.startup;
  }

  /**
   * Resolves when the built-in plugins of the first start have settled — the ones whose stages
   * shape every turn (the memory manager's injection). Each start is bounded by the host's time
   * limit, so this resolves within `core.plugins.start_timeout_ms`; external plugins are not waited for.
   */
  builtinsSettled(): Promise<void> {
    return this.builtinsUp;
  }

  /** Stops every plugin (dependents first). Idempotent. */
  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    // Plugins still starting (a hanging one holds the queue) are given up first.
    this.stopping = true;
    this.opts.host.cancelStarts();
    await this.serial(async () => {
      const order = this.order([...this.entries.keys()]).order.reverse();
      for (const name of order) await this.stopEntry(name);
      for (const e of this.entries.values()) {
        await e.unwatch?.();
        e.unwatch = undefined;
      }
    });
  }

  list(): PluginInfo[] {
    return [...this.entries.values()].map((e) => this.info(e)).sort((a, b) => a.name.localeCompare(b.name));
  }

  get(name: string): PluginInfo | undefined {
    const e = this.entries.get(name);
    return e && this.info(e);
  }

  async enable(name: string): Promise<void> {
    const e = this.require(name);
    this.disabled.delete(name);
    this.saveState();
    await this.serial(async () => {
      if (e.state === 'disabled') e.state = 'stopped';
      // Plugins that failed for want of this one get their chance again.
      await this.startInOrder([name, ...this.dependents(name).filter((d) => !this.opts.host.isRunning(d))]);
    });
  }

  async disable(name: string): Promise<void> {
    const e = this.require(name);
    this.disabled.add(name);
    this.saveState();
    await this.serial(async () => {
      for (const d of this.dependents(name).reverse()) {
        if (!this.opts.host.isRunning(d)) continue;
        await this.stopEntry(d);
        this.setState(this.entries.get(d)!, 'failed', `dependency "${name}" was disabled`);
      }
      await this.stopEntry(name);
      this.setState(e, 'disabled');
    });
  }

  /**
   * Reload one plugin: dispose + start again, re-reading its files (manifest, main.lua, SKILL.md).
   * A name not known yet is looked for as a folder added since the start (`<plugins>/<name>`,
   * `<skills>/<name>`) and started as a restart would start it.
   */
  async reload(name: string): Promise<void> {
    if (!this.entries.has(name)) {
      await this.serial(async () => {
        const found = PLUGIN_NAME.test(name) ? this.discoverNew([join(this.pluginsDir, name)], [join(this.skillsDir, name)]) : [];
        await Promise.all(this.watching.splice(0));
        await this.startInOrder(found);
        const e = this.require(name);
        if (this.disabled.has(name)) throw new PluginError(name, 'plugin is disabled; enable it first', 'PLUGIN_DISABLED');
        if (e.state !== 'running') throw new PluginError(name, `start failed: ${e.lastError ?? e.state}`, 'PLUGIN_START_FAILED');
      });
      return;
    }
    await this.serial(async () => {
      const e = this.require(name);
      if (this.disabled.has(name)) throw new PluginError(name, 'plugin is disabled; enable it first', 'PLUGIN_DISABLED');
      // Dependents hold on to what this plugin provided: they go down first and come back after it.
      const dependents = this.dependents(name).filter((d) => this.opts.host.isRunning(d));
      for (const d of [...dependents].reverse()) await this.stopEntry(d);
      await this.stopEntry(name);
      if (e.dir) this.rediscover(e);
      const fresh = this.entries.get(name)!;
      await this.startInOrder([name, ...dependents]);
      if (fresh.state !== 'running') throw new PluginError(name, `reload failed: ${fresh.lastError ?? fresh.state}`, 'PLUGIN_START_FAILED');
    });
  }

  /**
   * Picks up plugin and skill folders added since the start (or the last rescan) and starts the
   * enabled ones, as a restart would; folders already known are left alone. Returns the names of
   * the plugins found.
   */
  async rescan(): Promise<string[]> {
    return this.serial(async () => {
      const found = this.discoverNew(this.subdirs(this.pluginsDir), this.subdirs(this.skillsDir));
      await Promise.all(this.watching.splice(0));
      await this.startInOrder(found);
      return found.sort();
    });
  }

  /**
   * Stages a `.hmap` archive (P-3, SPEC §9): extracted into `<plugins>/.pending/<name>/` and
   * validated (paths, sizes, symlinks, manifest, platform), but no code of it runs until the
   * person confirms with {@link confirmInstall}. A newer upload of the same name replaces the
   * pending one.
   */
  async stage(archive: Uint8Array): Promise<PendingPluginInstall> {
    return this.serial(async () => {
      const pendingRoot = join(this.pluginsDir, PENDING_DIR);
      const staged = await extractHmap(archive, pendingRoot, this.opts.hmap);
      const name = staged.manifest.name;
      try {
        const existing = this.entries.get(name);
        if (existing && !existing.dir) throw new ConflictError(`"${name}" is a built-in plugin and cannot be replaced by a package`, { plugin: name });
        checkCompat(staged.manifest);
        const target = join(pendingRoot, name);
        rmSync(target, { recursive: true, force: true });
        renameSync(staged.root, target);
        writeFileAtomicSync(join(pendingRoot, `${name}${PENDING_META}`), JSON.stringify({ stagedAt: Date.now() }));
      } finally {
        rmSync(staged.dir, { recursive: true, force: true });
      }
      const p = this.pending().find((x) => x.name === name);
      if (!p) throw new PluginError(name, 'the staged package could not be read back', 'HMAP_BAD_MANIFEST');
      this.opts.host.agent.bus.emit('plugin_pending', p);
      return p;
    });
  }

  /** Packages uploaded but not yet confirmed (a broken leftover is skipped). */
  pending(): PendingPluginInstall[] {
    const root = join(this.pluginsDir, PENDING_DIR);
    const out: PendingPluginInstall[] = [];
    for (const dir of this.subdirs(root)) {
      try {
        const m = readManifest(dir, 'pending');
        let stagedAt = 0;
        try {
          stagedAt = Number((JSON.parse(readFileSync(`${dir}${PENDING_META}`, 'utf8')) as { stagedAt?: unknown }).stagedAt) || 0;
        } catch {}
        const cur = this.entries.get(m.name);
        out.push({
          name: m.name,
          version: m.version,
          description: m.description,
          permissions: [...m.permissions],
          dependencies: [...m.dependencies],
          settings: Object.keys(m.settings ?? {}),
          replaces: cur?.dir ? (cur.version ?? 'unknown') : undefined,
          stagedAt,
        });
      } catch {}
    }
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Throws away a pending package. */
  async discardInstall(name: string): Promise<void> {
    if (!PLUGIN_NAME.test(name)) throw new ValidationError(`invalid plugin name ${JSON.stringify(name)}`, { name });
    await this.serial(async () => {
      const dir = join(this.pluginsDir, PENDING_DIR, name);
      if (!existsSync(dir)) throw new NotFoundError('pending plugin install', name);
      rmSync(dir, { recursive: true, force: true });
      rmSync(`${dir}${PENDING_META}`, { force: true });
    });
  }

  /**
   * Installs a confirmed pending package: only now is the old version stopped and the folder
   * swapped by rename. If the new version does not start, the previous one is put back and
   * started again, and the error is thrown.
   */
  async confirmInstall(name: string): Promise<PluginInfo> {
    if (!PLUGIN_NAME.test(name)) throw new ValidationError(`invalid plugin name ${JSON.stringify(name)}`, { name });
    return this.serial(async () => {
      const source = join(this.pluginsDir, PENDING_DIR, name);
      if (!existsSync(source)) throw new NotFoundError('pending plugin install', name);
      const target = join(this.pluginsDir, name);
      const existing = this.entries.get(name);
      if (existing && !existing.dir) throw new ConflictError(`"${name}" is a built-in plugin and cannot be replaced by a package`, { plugin: name });
      // Validated again: the folder could have been changed on disk since it was staged.
      const m = readManifest(source, name, 'HMAP_BAD_MANIFEST');
      if (m.name !== name) throw new PluginError(name, `plugin.json name "${m.name}" does not match the pending package "${name}"`, 'HMAP_BAD_MANIFEST');
      const backup = join(this.pluginsDir, `.backup-${name}-${Date.now()}`);
      const hadOld = existsSync(target);
      const wasRunning = existing?.state === 'running';
      await this.stopEntry(name);
      await existing?.unwatch?.();
      if (hadOld) renameSync(target, backup);
      renameSync(source, target);
      rmSync(`${source}${PENDING_META}`, { force: true });
      this.addDirEntry(name, target);
      this.disabled.delete(name);
      this.saveState();
      await this.startInOrder([name]);
      const now = this.entries.get(name)!;
      if (now.state === 'running') {
        if (hadOld) rmSync(backup, { recursive: true, force: true });
        return this.info(now);
      }
      const why = now.lastError ?? now.state;
      await this.stopEntry(name);
      await now.unwatch?.();
      rmSync(target, { recursive: true, force: true });
      if (hadOld) {
        renameSync(backup, target);
        this.addDirEntry(name, target);
        if (wasRunning) await this.startInOrder([name]);
      } else this.entries.delete(name);
      throw new PluginError(name, `the new version did not start (${why}); ${hadOld ? 'the previous version was restored' : 'nothing was installed'}`, 'HMAP_START_FAILED');
    });
  }

  /**
   * Stages and confirms in one step — for the daemon's own callers and tests that stand in for
   * the person. Channels reachable from outside (HTTP, the CLI socket) stage and ask instead.
   */
  async install(archive: Uint8Array): Promise<PluginInfo> {
    const p = await this.stage(archive);
    return this.confirmInstall(p.name);
  }

  /** Stops and deletes an installed plugin's folder. Built-ins cannot be uninstalled. */
  async uninstall(name: string): Promise<void> {
    const e = this.require(name);
    if (!e.dir || !e.dir.startsWith(this.pluginsDir)) throw new ValidationError(`plugin "${name}" is not an installed package`, { plugin: name });
    await this.serial(async () => {
      await this.stopEntry(name);
      await e.unwatch?.();
      rmSync(e.dir!, { recursive: true, force: true });
      this.entries.delete(name);
      this.disabled.delete(name);
      this.saveState();
    });
  }

  /**
   * A PluginAdminPort for an Agent built before its registry (the Agent → PluginHost → registry
   * chain is circular): lists nothing and refuses reloads until `get()` returns the registry.
   */
  static lazyAdminPort(get: () => PluginRegistry | undefined): PluginAdminPort {
    return {
      list: () => get()?.adminPort().list() ?? [],
      reload: async (name) => {
        const r = get();
        if (!r) throw new PluginError(name, 'the plugin registry is not running yet', 'PLUGIN_NOT_READY');
        await r.adminPort().reload(name);
      },
    };
  }

  /**
   * The kernel's view for the `plugin_reload` tool (C-5). It reloads known plugins only: a folder
   * that appeared is started by the person (`waiter plugins reload|rescan`, the WebUI), not by
   * the model.
   */
  adminPort(): PluginAdminPort {
    return {
      list: () => this.list().map((p) => ({ name: p.name, state: p.state, kind: p.kind })),
      reload: async (name) => {
        this.require(name);
        await this.reload(name);
      },
    };
  }

  // ------------------------------------------------------------------ internals

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => {});
    return run;
  }

  private require(name: string): Entry {
    const e = this.entries.get(name);
    if (!e) throw new NotFoundError('plugin', name);
    return e;
  }

  private info(e: Entry): PluginInfo {
    const h: Partial<ExternalHealth> = e.external?.health() ?? e.health?.() ?? {};
    const state = e.state === 'running' && h.state && h.state !== 'stopped' ? h.state : e.state;
    return {
      name: e.name,
      kind: e.kind,
      version: e.version,
      description: e.description,
      enabled: !this.disabled.has(e.name),
      state,
      // The registry's own verdict (time limit, dependency …) explains a plugin it failed; the
      // supervisor's explains the life of a running one.
      lastError: e.state === 'running' ? (h.lastError ?? e.lastError) : (e.lastError ?? h.lastError),
      restarts: e.restarts + (h.restarts ?? 0),
      lastHeartbeat: h.lastHeartbeat,
      tools: this.opts.host.toolsOf(e.name),
    };
  }

  private setState(e: Entry, state: PluginInfo['state'], error?: string): void {
    e.state = state;
    if (error !== undefined) e.lastError = error;
    this.opts.host.agent.bus.emit('plugin_state', { plugin: e.name, state, error });
  }

  private loadState(): void {
    try {
      const raw = JSON.parse(readFileSync(join(this.pluginsDir, STATE_FILE), 'utf8')) as { disabled?: unknown };
      this.disabled = new Set(Array.isArray(raw.disabled) ? raw.disabled.filter((x): x is string => typeof x === 'string') : []);
    } catch {
      this.disabled = new Set();
    }
  }

  private saveState(): void {
    try {
      mkdirSync(this.pluginsDir, { recursive: true });
      writeFileAtomicSync(join(this.pluginsDir, STATE_FILE), JSON.stringify({ disabled: [...this.disabled].sort() }, null, 2));
    } catch (e) {
      this.opts.host.log.error(`cannot save plugin state: ${(e as Error).message}`);
    }
  }

  private addBuiltinEntry(def: PluginDefinition<PluginSDK>): void {
    this.entries.set(def.name, {
      name: def.name,
      kind: 'builtin',
      version: def.version,
      description: def.description,
      dependencies: def.dependencies ?? [],
      make: () => def,
      state: 'stopped',
      restarts: 0,
    });
  }

  private discover(): void {
    for (const dir of this.subdirs(this.pluginsDir)) {
      const name = dir.split(/[\\/]/).pop()!;
      this.addDirEntry(name, dir);
    }
    for (const dir of this.subdirs(this.skillsDir)) this.addSkill(join(dir, 'SKILL.md'), dir);
  }

  /**
   * Adds the entries of those folders (plugin or skill folders) no entry comes from yet; returns
   * the names added. A folder that is not a plugin (or skill) adds nothing.
   */
  private discoverNew(pluginDirs: string[], skillDirs: string[]): string[] {
    const known = new Set([...this.entries.values()].map((e) => e.dir).filter((d): d is string => !!d));
    const before = new Set(this.entries.keys());
    const fresh = (dir: string) => !known.has(dir) && existsSync(dir) && statSync(dir).isDirectory();
    for (const dir of pluginDirs) if (fresh(dir)) this.addDirEntry(dir.split(/[\\/]/).pop()!, dir);
    for (const dir of skillDirs) if (fresh(dir)) this.addSkill(join(dir, 'SKILL.md'), dir);
    return [...this.entries.keys()].filter((n) => !before.has(n));
  }

  private subdirs(root: string): string[] {
    let names: string[];
    try {
      names = readdirSync(root);
    } catch {
      return [];
    }
    return names
      .filter((n) => !n.startsWith('.'))
      .map((n) => join(root, n))
      .filter((p) => {
        try {
          return statSync(p).isDirectory();
        } catch {
          return false;
        }
      });
  }

  private rediscover(e: Entry): void {
    if (e.kind === 'skill') this.addSkill(join(e.dir!, 'SKILL.md'), e.dir!, e.name);
    else this.addDirEntry(e.name, e.dir!);
  }

  /** One folder of `<home>/plugins`: plugin.json → external, main.lua → Lua, SKILL.md → skill. */
  private addDirEntry(folder: string, dir: string): void {
    const clash = this.entries.get(folder);
    if (clash && clash.kind === 'builtin') {
      this.opts.host.log.warn(`plugin folder ${dir} has the name of a built-in plugin; ignored`);
      return;
    }
    const base: Omit<Entry, 'kind' | 'make'> = { name: folder, dir, dependencies: [], state: clash?.state === 'disabled' ? 'disabled' : 'stopped', restarts: 0, unwatch: clash?.unwatch };
    if (existsSync(join(dir, 'plugin.json'))) {
      try {
        if (!PLUGIN_NAME.test(folder)) throw new PluginError(folder, `folder name must match ${PLUGIN_NAME.source}`, 'PLUGIN_BAD_MANIFEST');
        const m = readManifest(dir, folder);
        if (m.name !== folder) throw new PluginError(folder, `plugin.json name "${m.name}" does not match its folder "${folder}"`, 'PLUGIN_BAD_MANIFEST');
        checkCompat(m);
        if (m.entry.endsWith('.lua')) {
          // A Lua plugin with a manifest (`"entry": "main.lua"`): its settings, version, description, dependencies.
          this.addLuaEntry(folder, dir, { ...base, version: m.version, description: m.description, dependencies: m.dependencies }, manifestSettings(m));
          return;
        }
        const entry: Entry = { ...base, kind: 'external', version: m.version, description: m.description, dependencies: m.dependencies, make: () => undefined as never };
        entry.make = () => {
          const ext = new ExternalPlugin(dir, m, () => this.opts.host.socialRead(), this.opts.external, (h) => {
            if (h.state !== 'stopped') this.opts.host.agent.bus.emit('plugin_state', { plugin: folder, state: h.state, error: h.lastError });
          });
          entry.external = ext;
          return ext;
        };
        this.entries.set(folder, entry);
      } catch (err) {
        this.entries.set(folder, { ...base, kind: existsSync(join(dir, 'main.lua')) ? 'lua' : 'external', make: () => undefined as never, loadError: (err as Error).message });
      }
    } else if (existsSync(join(dir, 'main.lua'))) {
      this.addLuaEntry(folder, dir, base);
      return;
    } else if (existsSync(join(dir, 'SKILL.md'))) {
      this.addSkill(join(dir, 'SKILL.md'), dir);
      return;
    } else return;
    this.addInnerSkills(dir);
  }

  /** Skills shipped inside a plugin folder: <plugin>/skills/<skill>/SKILL.md */
  private addInnerSkills(dir: string): void {
    for (const sd of this.subdirs(join(dir, 'skills'))) if (existsSync(join(sd, 'SKILL.md'))) this.addSkill(join(sd, 'SKILL.md'), sd);
  }

  /** A Lua plugin folder (`main.lua`, optionally a `plugin.json` declaring its settings). */
  private addLuaEntry(folder: string, dir: string, base: Omit<Entry, 'kind' | 'make'>, settings?: Record<string, ConfigKeyDef>): void {
    const entry: Entry = { ...base, kind: 'lua', make: () => undefined as never };
    entry.make = () => {
      const def = luaPlugin(folder, dir, this.opts.lua, (h) => this.opts.host.agent.bus.emit('plugin_state', { plugin: folder, state: h.state, error: h.lastError }), settings);
      entry.health = def.health;
      return def;
    };
    if (!PLUGIN_NAME.test(folder)) entry.loadError = `${folder}: folder name must match ${PLUGIN_NAME.source}`;
    if (!entry.unwatch && this.opts.watchLua !== false) {
      const w = watchFile(dir, 'main.lua', () => {
        if (this.started && !this.disabled.has(folder)) this.reload(folder).catch((e) => this.opts.host.log.warn(`hot reload of ${folder} failed: ${(e as Error).message}`));
      }, this.opts.watchDebounceMs ?? 300, (e) => this.opts.host.log.warn(`watching ${dir}: ${(e as Error).message}`));
      entry.unwatch = w.close;
      this.watching.push(w.ready);
    }
    this.entries.set(folder, entry);
    this.addInnerSkills(dir);
  }

  private addSkill(file: string, dir: string, fixedName?: string): void {
    let name = fixedName ?? slug(dir.split(/[\\/]/).pop()!);
    let loadError: string | undefined;
    let description: string | undefined;
    try {
      const s = readSkill(file);
      name = fixedName ?? slug(s.name);
      description = s.description;
    } catch (e) {
      loadError = (e as Error).message;
    }
    const clash = this.entries.get(name);
    if (clash && clash.dir !== dir) {
      this.opts.host.log.warn(`skill ${file}: the name "${name}" is taken by ${clash.kind} plugin ${clash.name}; ignored`);
      return;
    }
    this.entries.set(name, {
      name,
      kind: 'skill',
      dir,
      description,
      dependencies: [],
      make: () => skillPlugin(name, file, this.catalog),
      loadError,
      state: clash?.state === 'disabled' ? 'disabled' : 'stopped',
      restarts: 0,
    });
  }

  /** Plugins that depend on `name`, directly or not, in start order. */
  private dependents(name: string): string[] {
    const out = new Set<string>();
    let grew = true;
    while (grew) {
      grew = false;
      for (const e of this.entries.values()) {
        if (out.has(e.name) || e.name === name) continue;
        if (e.dependencies.some((d) => d === name || out.has(d))) {
          out.add(e.name);
          grew = true;
        }
      }
    }
    return this.order([...out]).order.filter((n) => out.has(n));
  }

  private order(names: string[]): { order: string[]; problems: Map<string, string> } {
    return dependencyOrder(names, (n) => this.entries.get(n)?.dependencies);
  }

  /**
   * Starts the given plugins (and stopped dependencies); failures are recorded, never thrown.
   * Plugins start concurrently, each as soon as its dependencies have settled, so one slow or
   * hanging plugin holds up only the plugins that depend on it. Built-ins start at once; other
   * kinds (each external one is a child process) at most `startConcurrency` at a time. Every
   * start is bounded by the host's and the external supervisor's time limits.
   */
  private async startInOrder(names: string[], onBuiltinsSettled?: () => void): Promise<void> {
    const { order, problems } = this.order(names);
    const settled = new Map<string, Promise<void>>();
    let releaseOthers!: () => void;
    const builtinsFirst = new Promise<void>((r) => (releaseOthers = r));
    for (const name of order) {
      const e = this.entries.get(name)!;
      // Shown as starting at once: `host.plugins` / `waiter plugins` list what is still on its way.
      if (!this.disabled.has(name) && e.state !== 'running' && !this.opts.host.isRunning(name) && !e.loadError && !problems.has(name)) this.setState(e, 'starting');
      const deps = e.dependencies.map((d) => settled.get(d)).filter((p): p is Promise<void> => !!p);
      settled.set(
        name,
        Promise.all(deps).then(async () => {
          if (e.state === 'running' || this.opts.host.isRunning(name)) return;
          if (this.disabled.has(name)) {
            this.setState(e, 'disabled');
            return;
          }
          const problem = e.loadError ?? problems.get(name) ?? this.dependencyProblem(e);
          if (problem) {
            this.setState(e, 'failed', problem);
            this.opts.host.log.error(`plugin ${name} cannot start: ${problem}`);
            return;
          }
          const go = async () => {
            // The registry began to stop while this one waited for its turn: it never starts.
            if (this.stopping) this.setState(e, 'stopped');
            else await this.startEntry(e);
          };
          if (e.kind === 'builtin') await go();
          else {
            await builtinsFirst;
            await this.limited(go);
          }
        }),
      );
    }
    // The built-ins (the CLI socket, the WebUI …) come up before the first plugin process is
    // forked: forking competes with them for the one event loop. Bounded, so a built-in that
    // hangs holds the others up for 2 s at most (it has its own time limit besides).
    const builtinsOnly = order.filter((n) => this.entries.get(n)!.kind === 'builtin' && this.entries.get(n)!.dependencies.every((d) => this.entries.get(d)?.kind === 'builtin'));
    let timer: NodeJS.Timeout | undefined;
    const builtinsDone = Promise.all(builtinsOnly.map((n) => settled.get(n)));
    if (onBuiltinsSettled) void builtinsDone.then(onBuiltinsSettled, onBuiltinsSettled);
    void Promise.race([builtinsDone, new Promise<void>((r) => (timer = setTimeout(r, 2_000)))]).then(releaseOthers, releaseOthers);
    await Promise.all(settled.values());
    clearTimeout(timer);
  }

  /** Runs `fn` when fewer than `startConcurrency` non-built-in starts are in flight. */
  private async limited(fn: () => Promise<void>): Promise<void> {
    const max = Math.max(1, this.opts.startConcurrency ?? 4);
    while (this.inflight >= max) await new Promise<void>((r) => this.waiting.push(r));
    this.inflight++;
    try {
      await fn();
    } finally {
      this.inflight--;
      this.waiting.shift()?.();
    }
  }

  private dependencyProblem(e: Entry): string | undefined {
    for (const d of e.dependencies) {
      const dep = this.entries.get(d);
      if (!dep) return `missing dependency "${d}"`;
      if (!this.opts.host.isRunning(d)) return `dependency "${d}" is not running (${dep.state}${dep.lastError ? `: ${dep.lastError}` : ''})`;
    }
    return undefined;
  }

  private async startEntry(e: Entry): Promise<void> {
    if (e.state !== 'starting') this.setState(e, 'starting');
    try {
      const def = e.make();
      await this.opts.host.start(def, { builtin: e.kind === 'builtin' });
      e.lastError = undefined;
      this.setState(e, 'running');
    } catch (err) {
      const msg = (err as Error).message;
      this.setState(e, 'failed', msg);
      // A coded error (port in use, bad setting …) says all there is to say; a stack is for bugs.
      const cause = (err as { cause?: unknown }).cause ?? err;
      const coded = isHomeAgentError(cause) && !['INTERNAL', 'PLUGIN_START_FAILED'].includes(cause.code);
      this.opts.host.log.error(`plugin ${e.name} failed to start: ${msg}`, coded ? { code: cause.code } : { stack: (err as Error).stack });
    }
  }

  private async stopEntry(name: string): Promise<void> {
    const e = this.entries.get(name);
    await this.opts.host.stop(name);
    if (e && e.state !== 'disabled') this.setState(e, 'stopped');
  }
}
