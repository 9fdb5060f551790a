import { useState } from 'react';
import { api, pickList } from '../../api/client';
import { useApp } from '../../app-context';
import { useT } from '../../i18n';
import { useRequest } from '../../lib/use-request';
import { CoreSettingsSection } from './core-settings-section';
import type { ConfigKeyInfo } from './schema-field';

/** How many settings each plugin has (`plugin.<name>.*`), from one read of `GET /api/v1/settings`. */
export function usePluginSettingCounts(plugins: string[] | undefined): (name: string) => number {
  const app = useApp();
  // Read again when the list of plugins changes: one installed or removed adds or drops its keys.
  const req = useRequest(async () => pickList<ConfigKeyInfo>(await api('/api/v1/settings'), 'keys', 'settings'), [app.epoch, plugins?.join(',')]);
  return (name) => (req.data ?? []).filter((k) => k.key.startsWith(`plugin.${name}.`)).length;
}

/** A plugin card's "Settings (n)": its keys with the fields of Settings → General, mounted when opened. */
export function PluginSettings({ name, count }: { name: string; count: number }) {
  const t = useT();
  const [open, setOpen] = useState(false);
  if (count === 0) return null;
  return (
    <div className="plugin-settings" data-testid="plugin-settings">
      <button className="link-btn" type="button" aria-expanded={open} onClick={() => setOpen((o) => !o)} data-testid="plugin-settings-toggle">
        {open ? '▾' : '▸'} {t('plugins.settings', { n: count })}
      </button>
      {open && <CoreSettingsSection prefix={`plugin.${name}.`} compact />}
    </div>
  );
}
