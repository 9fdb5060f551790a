import { DEFAULT_PROTECTED_KEYS, importNote, isProtectedKey, type ConfigKeyInfo } from '../spec/index.js';
import { CUSTOM_SOURCES_KEY } from '../providers/index.js';
import { adapterHere, mergeSources } from './llm-sources.js';
import type { MergeContext } from './merge-context.js';
import { INSTALL_LOCAL_SETTINGS } from './transfer-host.js';

/** The adapter setting of an LLM source. */
const ADAPTER_SETTING_RE = /^core\.llm\.sources\.[^.]+\.adapter$/;

/** The setting that lists what `config_set` may not change (the cfgmgr plugin's). */
const PROTECTED_KEYS_SETTING = 'plugin.cfgmgr.tool_protected_keys';

/** The live protected-key patterns; the default list when the setting is absent or not a list of strings. */
function protectedPatterns(value: unknown): readonly string[] {
  return Array.isArray(value) && value.every((p) => typeof p === 'string') ? (value as string[]) : DEFAULT_PROTECTED_KEYS;
}

/**
 * The archive's settings, to be set through the registry after the swap (validated there; secrets
 * never). The person's own LLM sources first (`mergeSources`, decision 0540). Without
 * `privilegedSettings` an archive sets only what the agent's `config_set` may set (decision 0350).
 * `heldAdapters`: the Lua adapters this import held — no source is pointed at one.
 */
export function mergeSettings(c: MergeContext, o: { privilegedSettings: boolean; heldAdapters: ReadonlySet<string> }): { key: string; value: unknown }[] {
  const { staged, live, mode, notes, plan } = c;
  const heldAdapters = o.heldAdapters;
  // Settings: set through the registry after the swap (validated there); secrets never. Without
  // `privilegedSettings` an archive sets only what the agent's `config_set` may set (decision
  // 0350): not a privileged key, and none that this install's live `tool_protected_keys` protects
  // (the live list, not the archive's: the archive may carry one of its own).
  const settings: { key: string; value: unknown }[] = [];
  const leftOut: string[] = [];
  const known = new Map<string, ConfigKeyInfo>(c.config.list().map((i) => [i.key, i]));
  const protectedHere = protectedPatterns(known.get(PROTECTED_KEYS_SETTING)?.value);
  const theirSettings = staged.settings();
  // The person's own LLM sources first (decision 0540): a source new here is not known to the
  // registry until its name is listed, so its settings are checked and set apart from the rest.
  const sources = mergeSources({
    theirs: theirSettings,
    ours: known.get(CUSTOM_SOURCES_KEY)?.value,
    mode,
    privilegedSettings: o.privilegedSettings,
    adapterUsable: (n) => !heldAdapters.has(n) && adapterHere(live.adapters, n) !== undefined,
    heldAdapters,
    plan: () => plan('sources'),
    notes,
  });
  settings.push(...sources.settings);
  leftOut.push(...sources.privilegedLeftOut);
  for (const [key, value] of Object.entries(theirSettings)) {
    if (sources.handled.has(key)) continue;
    const p = plan('settings');
    const info = known.get(key);
    if (!info) {
      notes.push(importNote.settingUnknown(key));
      p.skipped++;
      continue;
    }
    if (info.secret) {
      notes.push(importNote.settingSecret(key));
      p.skipped++;
      continue;
    }
    if (INSTALL_LOCAL_SETTINGS.has(key)) {
      notes.push(importNote.settingPersonaPath(key));
      p.skipped++;
      continue;
    }
    // The same value here is the same, whoever may set it: an install's own export imported back
    // must not warn that six of its settings were "left out" (found by a walk).
    if (JSON.stringify(info.value) === JSON.stringify(value)) {
      p.same++;
      continue;
    }
    if (!o.privilegedSettings && (info.privileged || isProtectedKey(key, protectedHere))) {
      leftOut.push(key);
      p.skipped++;
      continue;
    }
    // A source here is never pointed at an adapter this import held: that would put the archive's
    // code into use (with this install's key) the moment the person moved the file for another reason.
    if (ADAPTER_SETTING_RE.test(key) && typeof value === 'string' && heldAdapters.has(value)) {
      notes.push(importNote.settingAdapterHeld(key, value));
      p.skipped++;
      continue;
    }
    if (info.origin === 'stored' || info.origin === 'env' || info.origin === 'override') {
      p.conflicts++;
      if (mode !== 'overwrite') {
        p.skipped++;
        continue;
      }
      p.overwritten++;
    } else p.added++;
    settings.push({ key, value });
  }
  if (leftOut.length) plan('settings').privilegedLeftOut = leftOut;
  return settings;
}
