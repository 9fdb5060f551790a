import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { importNote, type ConfigValue, type TransferMode, type TransferPartPlan } from '../spec/index.js';
import { adapterProblem, BUILTIN_ADAPTERS_DIR, CUSTOM_SOURCES_KEY, HELD_ADAPTERS_DIR, customSourceSchema, normalizeBaseUrl, SEEDED_SOURCES, sourceInputSchema, sourceKey, type CustomSource } from '../providers/index.js';

/** Held adapters (decision 0540) and the checks an adapter file passes live with the adapters (decision 0620). */
export { ADAPTER_MAX_BYTES, adapterProblem, HELD_ADAPTERS_DIR } from '../providers/index.js';

/** The settings of one source (`core.llm.sources.<name>.<field>`). */
const FIELDS = ['adapter', 'base_url', 'model', 'api_key', 'enabled', 'options'] as const;

/**
 * This install's code of an adapter: the file in `adapters/` here (which wins over a shipped one of
 * the same name, as in the adapter registry), else the shipped one; undefined when there is neither.
 */
export function adapterHere(dir: string, name: string): Buffer | undefined {
  for (const f of [join(dir, `${name}.lua`), join(BUILTIN_ADAPTERS_DIR, `${name}.lua`)]) {
    try {
      if (existsSync(f)) return readFileSync(f);
    } catch {
      // unreadable: as good as absent
    }
  }
  return undefined;
}

/**
 * An archive's Lua adapters, which are code (decision 0540): one that is here already byte for
 * byte (`adapters/<name>.lua`, else the shipped one) is the same; any other is written to
 * `adapters/imported/<name>.lua` (a merged copy swapped in with the rest), which the adapter
 * registry does not read — the person reads it and moves it into `adapters/` to use it. That
 * folder holds what the latest import brought. One that is not UTF-8 text or is over 1 MiB is left
 * out with a note. Returns the names held.
 */
export function holdAdapters(o: {
  adapters: readonly { name: string; file: string }[];
  /** `<home>/adapters`. */
  liveDir: string;
  /** Where the merge puts its copies (laid out like `adapters/`). */
  mergedDir: string;
  plan: () => TransferPartPlan;
  notes: string[];
  files: { live: string; merged: string }[];
}): Set<string> {
  const held = new Set<string>();
  for (const a of o.adapters) {
    const p = o.plan();
    const bytes = readFileSync(a.file);
    const problem = adapterProblem(bytes);
    if (problem) {
      p.skipped++;
      o.notes.push(importNote.adapterUnreadable(a.name, problem === 'too-large'));
      continue;
    }
    const here = adapterHere(o.liveDir, a.name);
    if (here?.equals(bytes)) {
      p.same++;
      continue;
    }
    held.add(a.name);
    o.notes.push(importNote.adapterHeld(a.name, here !== undefined));
    const pen = join(o.liveDir, HELD_ADAPTERS_DIR, `${a.name}.lua`);
    const penHolds = existsSync(pen) ? readFileSync(pen) : undefined;
    if (penHolds?.equals(bytes)) {
      p.same++;
      continue;
    }
    if (penHolds) {
      p.conflicts++;
      p.overwritten++;
    } else p.added++;
    const merged = join(o.mergedDir, HELD_ADAPTERS_DIR, `${a.name}.lua`);
    mkdirSync(dirname(merged), { recursive: true, mode: 0o700 });
    copyFileSync(a.file, merged);
    o.files.push({ live: pen, merged });
  }
  if (held.size) o.plan().heldForApproval = [...held].map((n) => `${n}.lua`);
  return held;
}

/** What the merge of an archive's LLM sources sets, and which of the archive's settings it took. */
export interface SourcesMerge {
  /** In the order to set them: the list of sources first (it registers their keys), then each new source's settings. */
  settings: { key: string; value: ConfigValue }[];
  /** The archive's settings this took care of: the generic settings rules pass them by. */
  handled: Set<string>;
  /**
   * Settings held back for want of `privilegedSettings`: the `enabled` of each new source that was
   * on in the archive and came in off (listed with the other privileged settings, so the person
   * sees what the yes would change, in the check's report and the WebUI's choice).
   */
  privilegedLeftOut: string[];
}

/** Setting keys of the source-input fields, for saying which setting of an archive is wrong. */
const INPUT_KEY: Record<string, (typeof FIELDS)[number] | 'label' | 'models' | 'name'> = { baseUrl: 'base_url', adapter: 'adapter', model: 'model', enabled: 'enabled', options: 'options', label: 'label', models: 'models', name: 'name' };

/**
 * The person's own LLM sources of an archive (decision 0540): `core.llm.custom_sources` names them
 * (label, declared models) and `core.llm.sources.<name>.*` holds their settings; their API keys
 * never travel (secrets). A source new here comes in with its settings, each checked by the rules
 * of `waiter providers add` — **disabled** unless the person takes privileged settings (its address
 * is where the conversations would go) and its adapter is code already here (an archive's adapter
 * is held, never put into use). A source that is here already (by name) keeps its settings; they
 * are ordinary settings of this install and follow the settings rules (privileged ones, its address
 * and adapter, only with `privilegedSettings`), and its label and model list follow the mode. A
 * malformed source is left out with a note naming what is wrong; the rest of the archive comes in.
 */
export function mergeSources(o: {
  theirs: Record<string, unknown>;
  /** This install's value of `core.llm.custom_sources`. */
  ours: unknown;
  mode: TransferMode;
  privilegedSettings: boolean;
  /** True when an adapter of that name is code this install runs now (and the archive's was not held). */
  adapterUsable: (name: string) => boolean;
  /** The archive's adapters this import holds (put in `adapters/imported/`). */
  heldAdapters: ReadonlySet<string>;
  plan: () => TransferPartPlan;
  notes: string[];
}): SourcesMerge {
  const { theirs, notes } = o;
  const settings: SourcesMerge['settings'] = [];
  const handled = new Set<string>();
  const privilegedLeftOut: string[] = [];
  const raw = theirs[CUSTOM_SOURCES_KEY];
  if (raw === undefined) return { settings, handled, privilegedLeftOut };
  handled.add(CUSTOM_SOURCES_KEY);
  if (!Array.isArray(raw)) {
    o.plan().skipped++;
    notes.push(importNote.sourcesUnreadable(`${CUSTOM_SOURCES_KEY}: not a list`));
    return { settings, handled, privilegedLeftOut };
  }
  const ours: CustomSource[] = Array.isArray(o.ours) ? o.ours.flatMap((x) => { const r = customSourceSchema.safeParse(x); return r.success ? [r.data] : []; }) : [];
  const merged = ours.map((s) => ({ ...s }));
  let changed = false;
  const held: string[] = [];
  const seen = new Set<string>();
  for (const [i, item] of raw.entries()) {
    const p = o.plan();
    const entry = customSourceSchema.safeParse(item);
    const rawName = (item as { name?: unknown } | null)?.name;
    const name = entry.success ? entry.data.name : typeof rawName === 'string' && rawName ? rawName.slice(0, 40) : `#${i + 1}`;
    if (!entry.success) {
      // Its settings (when its name is a source name at all) go with it.
      for (const f of FIELDS) handled.add(sourceKey(name, f));
      p.skipped++;
      const issue = entry.error.issues[0];
      notes.push(importNote.sourceInvalid(name, `${CUSTOM_SOURCES_KEY}[${i}]${issue?.path.length ? `.${issue.path.join('.')}` : ''}: ${issue?.message ?? 'invalid'}`));
      continue;
    }
    const s = entry.data;
    if (seen.has(s.name)) {
      p.skipped++;
      notes.push(importNote.sourceInvalid(s.name, `${CUSTOM_SOURCES_KEY}[${i}]: named twice`));
      continue;
    }
    seen.add(s.name);
    if (SEEDED_SOURCES.some((x) => x.name === s.name)) {
      // Its settings are a built-in source's here: the settings rules take them.
      p.skipped++;
      notes.push(importNote.sourceBuiltInName(s.name));
      continue;
    }
    const at = merged.findIndex((x) => x.name === s.name);
    if (at >= 0) {
      // The same source: its settings are known here and go through the settings rules.
      const same = merged[at].label === s.label && JSON.stringify(merged[at].models) === JSON.stringify(s.models);
      if (same) p.same++;
      else {
        p.conflicts++;
        if (o.mode === 'overwrite') {
          merged[at] = { ...merged[at], label: s.label, models: s.models };
          changed = true;
          p.overwritten++;
        } else p.skipped++;
      }
      continue;
    }
    // New here: checked whole by the rules of `waiter providers add`, or left out whole.
    for (const f of FIELDS) handled.add(sourceKey(s.name, f));
    if (theirs[sourceKey(s.name, 'api_key')] !== undefined) notes.push(importNote.settingSecret(sourceKey(s.name, 'api_key')));
    const model = theirs[sourceKey(s.name, 'model')];
    const input = {
      name: s.name,
      label: s.label,
      models: s.models,
      adapter: theirs[sourceKey(s.name, 'adapter')],
      baseUrl: theirs[sourceKey(s.name, 'base_url')],
      model: model === '' ? undefined : model,
      enabled: theirs[sourceKey(s.name, 'enabled')],
      options: theirs[sourceKey(s.name, 'options')],
    };
    const checked = sourceInputSchema.safeParse(input);
    if (!checked.success) {
      p.skipped++;
      const issue = checked.error.issues[0];
      const field = INPUT_KEY[String(issue?.path[0] ?? '')];
      const where = field === undefined || field === 'label' || field === 'models' || field === 'name' ? CUSTOM_SOURCES_KEY : sourceKey(s.name, field);
      const missing = issue?.path[0] === 'baseUrl' && input.baseUrl === undefined;
      notes.push(importNote.sourceInvalid(s.name, `${where}: ${missing ? 'missing' : (issue?.message ?? 'invalid')}`));
      continue;
    }
    const v = checked.data;
    const adapter = v.adapter ?? 'openai-compatible';
    const usable = o.adapterUsable(adapter);
    const wasEnabled = v.enabled ?? true;
    const enabled = wasEnabled && usable && o.privilegedSettings;
    merged.push(s);
    changed = true;
    p.added++;
    settings.push({ key: sourceKey(s.name, 'adapter'), value: adapter });
    settings.push({ key: sourceKey(s.name, 'base_url'), value: normalizeBaseUrl(v.baseUrl) });
    if (v.model !== undefined) settings.push({ key: sourceKey(s.name, 'model'), value: v.model });
    if (v.options !== undefined) settings.push({ key: sourceKey(s.name, 'options'), value: v.options as ConfigValue });
    settings.push({ key: sourceKey(s.name, 'enabled'), value: enabled });
    if (!enabled) held.push(s.name);
    if (wasEnabled && usable && !o.privilegedSettings) privilegedLeftOut.push(sourceKey(s.name, 'enabled'));
    if (!usable) notes.push(o.heldAdapters.has(adapter) ? importNote.sourceAdapterHeld(s.name, adapter) : importNote.sourceAdapterMissing(s.name, adapter));
    else if (!enabled && wasEnabled) notes.push(importNote.sourceDisabled(s.name));
    else notes.push(importNote.sourceWithoutKey(s.name));
  }
  if (held.length) o.plan().heldForApproval = held;
  if (changed) settings.unshift({ key: CUSTOM_SOURCES_KEY, value: merged as unknown as ConfigValue });
  return { settings, handled, privilegedLeftOut };
}
