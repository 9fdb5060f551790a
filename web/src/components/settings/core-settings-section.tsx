import { useMemo, useState, type ReactNode } from 'react';
import { api, pickList } from '../../api/client';
import { useApp } from '../../app-context';
import { useLang, useT } from '../../i18n';
import { groupLabel, settingLabel } from './setting-labels';
import { useRequest } from '../../lib/use-request';
import { useConfigEpoch } from '../../lib/use-config-epoch';
import { SchemaField, type ConfigKeyInfo } from './schema-field';
import { TimeZonePicker } from './time-zone-picker';
import { SourceOrderControl } from './source-order-control';

/**
 * Settings generated from the config schemas (`GET /api/v1/settings`): the keys under `prefix`.
 * `compact` (a plugin card's settings): the fields alone, without the page's hint, filter and group headings.
 */
export function CoreSettingsSection({ prefix = 'core.', compact = false }: { prefix?: string; compact?: boolean }) {
  const app = useApp();
  const t = useT();
  const lang = useLang();
  const [filter, setFilter] = useState('');
  // Read again when a setting changes anywhere (`waiter config set`, another tab): a field being
  // edited keeps the person's text and says the stored value changed (SchemaField).
  const changed = useConfigEpoch(prefix);
  const req = useRequest(async () => pickList<ConfigKeyInfo>(await api('/api/v1/settings'), 'keys', 'settings'), [app.epoch, changed]);
  const groups = useMemo(() => {
    const out = new Map<string, ConfigKeyInfo[]>();
    for (const k of req.data ?? []) {
      if (!k.key.startsWith(prefix)) continue;
      const { label, help } = settingLabel(k.key, k.description, lang);
      if (filter && !`${k.key} ${k.description} ${label} ${help}`.toLowerCase().includes(filter.toLowerCase())) continue;
      const g = k.key.split('.').slice(0, 2).join('.');
      out.set(g, [...(out.get(g) ?? []), k]);
    }
    return [...out.entries()].sort(([a], [b]) => a.localeCompare(b));
  }, [req.data, filter, prefix, lang]);
  const save = async (key: string, value: unknown) => {
    const j = await api(`/api/v1/settings/${encodeURIComponent(key)}`, { method: 'PUT', json: { value } });
    const updated = (j as { value?: ConfigKeyInfo }).value;
    req.setData((d) => d?.map((k) => (k.key === key ? (updated && typeof updated === 'object' && 'key' in updated ? updated : { ...k, value: value as ConfigKeyInfo['value'], origin: 'stored' }) : k)));
  };
  if (req.error) return <div className="error-card compact">{t('common.loadFailed', { error: req.error.message })}</div>;
  return (
    <div className={`core-settings${compact ? ' compact' : ''}`} data-testid="core-settings">
      {!compact && <p className="muted">{t('settings.generalHint')}</p>}
      {!compact && <input className="input" placeholder={t('settings.filter')} value={filter} onChange={(e) => setFilter(e.target.value)} data-testid="settings-filter" />}
      {req.loading && !req.data && <div className="muted pad">{t('common.loading')}</div>}
      {compact && groups.flatMap(([, keys]) => keys).map((k) => <SchemaField key={k.key} info={k} onSave={(v) => save(k.key, v)} control={customControl(k, lang)} />)}
      {!compact && groups.map(([g, keys]) => (
        <section className="card" key={g}>
          <div className="card-head">
            <span title={g}>{groupLabel(g, lang)}</span>
            <span className="count">{keys.length}</span>
          </div>
          {keys.map((k) => (
            <SchemaField key={k.key} info={k} onSave={(v) => save(k.key, v)} control={customControl(k, lang)} />
          ))}
        </section>
      ))}
      {req.data && groups.length === 0 && <div className="empty-state small">{t('settings.noKeys')}</div>}
    </div>
  );
}

/** The settings of this page with a control of their own: the time-zone picker, the LLM sources by name. */
function customControl(k: ConfigKeyInfo, lang: 'zh' | 'en'): ((save: (value: unknown) => Promise<unknown>) => ReactNode) | undefined {
  if (k.key === 'core.agent.timezone') return (s) => <TimeZonePicker value={String(k.value ?? '')} save={s} />;
  if (k.key === 'core.llm.order') {
    const list = Array.isArray(k.value) ? k.value.filter((x): x is string => typeof x === 'string') : [];
    return (s) => <SourceOrderControl value={list} label={settingLabel(k.key, k.description, lang).label} save={async (v) => (await s(v)) === true} />;
  }
  return undefined;
}
