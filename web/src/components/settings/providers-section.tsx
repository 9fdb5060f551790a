import { useState } from 'react';
import { api, pickList } from '../../api/client';
import { useApp } from '../../app-context';
import { useT } from '../../i18n';
import { useRequest } from '../../lib/use-request';
import { Icon } from '../icon';
import { SchemaField, type ConfigKeyInfo } from './schema-field';
import type { ProviderStatus } from '../../../../src/spec/index.js';


/** Keys of one LLM source in the settings (`….<name>.…`). */
export function keysOfProvider(keys: ConfigKeyInfo[], name: string): ConfigKeyInfo[] {
  const n = name.toLowerCase();
  return keys.filter((k) => k.key.toLowerCase().split('.').includes(n) && /^core\.(llm|providers?|sources?)\./.test(k.key));
}

/** Providers (L-3): state, order (first is tried first), test a source, add a key. */
export function ProvidersSection() {
  const app = useApp();
  const t = useT();
  const prov = useRequest(() => api<{ providers: ProviderStatus[]; order: string[]; adapters: string[] }>('/api/v1/providers'), [app.epoch]);
  const settings = useRequest(async () => pickList<ConfigKeyInfo>(await api('/api/v1/settings').catch(() => ({})), 'keys', 'settings'), [app.epoch]);
  const [tests, setTests] = useState<Record<string, { ok: boolean; latencyMs: number; error?: string } | 'running'>>({});
  const [open, setOpen] = useState<string | undefined>();

  if (prov.error) {
    return (
      <div className="error-card compact">
        {t('providers.unavailable', { error: prov.error.message })}
        <button className="btn small" onClick={prov.reload}>
          {t('common.retry')}
        </button>
      </div>
    );
  }
  const data = prov.data;
  const order = data?.order ?? [];
  const list = [...(data?.providers ?? [])].sort((a, b) => (order.indexOf(a.name) >>> 0) - (order.indexOf(b.name) >>> 0));
  const move = async (name: string, dir: -1 | 1) => {
    const cur = list.map((p) => p.name);
    const i = cur.indexOf(name);
    const j = i + dir;
    if (j < 0 || j >= cur.length) return;
    [cur[i], cur[j]] = [cur[j], cur[i]];
    prov.setData((d) => (d ? { ...d, order: cur } : d));
    try {
      await api('/api/v1/providers/order', { method: 'PUT', json: { order: cur } });
    } catch (e) {
      app.toast((e as Error).message, 'error');
    }
    prov.reload();
  };
  const test = async (name: string) => {
    setTests((s) => ({ ...s, [name]: 'running' }));
    try {
      const r = await api<{ result: { ok: boolean; latencyMs: number; error?: string } }>(`/api/v1/providers/${encodeURIComponent(name)}/test`, { method: 'POST' });
      setTests((s) => ({ ...s, [name]: r.result }));
    } catch (e) {
      setTests((s) => ({ ...s, [name]: { ok: false, latencyMs: 0, error: (e as Error).message } }));
    }
    prov.reload();
  };
  const saveKey = async (key: string, value: unknown) => {
    await api(`/api/v1/settings/${encodeURIComponent(key)}`, { method: 'PUT', json: { value } });
    settings.reload();
    prov.reload();
  };
  const anyReady = list.some((p) => p.state === 'ready');
  return (
    <div className="providers" data-testid="providers">
      {data && !anyReady && (
        <div className="setup-card">
          <div className="setup-title">
            <Icon name="spark" /> {t('setup.title')}
          </div>
          <p>{t('providers.noneReady')}</p>
        </div>
      )}
      <p className="muted">{t('providers.hint')}</p>
      {list.map((p, i) => {
        const r = tests[p.name];
        const keys = keysOfProvider(settings.data ?? [], p.name);
        return (
          <div className="card provider" key={p.name} data-provider={p.name}>
            <div className="provider-head">
              <span className="order-no">{i + 1}</span>
              <div className="grow">
                <div className="provider-name">
                  {p.name} <span className={`badge state-${p.state}`}>{t(`providers.state.${p.state}` as 'providers.state.ready')}</span>
                </div>
                <div className="muted small mono">
                  {p.adapter} · {p.model || '—'} · {p.baseUrl || '—'}
                </div>
              </div>
              <button className="icon-btn tiny" disabled={i === 0} onClick={() => void move(p.name, -1)} aria-label={t('providers.up')} title={t('providers.up')}>
                ↑
              </button>
              <button className="icon-btn tiny" disabled={i === list.length - 1} onClick={() => void move(p.name, 1)} aria-label={t('providers.down')} title={t('providers.down')}>
                ↓
              </button>
              <button className="btn small" disabled={r === 'running' || !p.configured} onClick={() => void test(p.name)} data-testid={`test-${p.name}`}>
                {r === 'running' ? t('providers.testing') : t('providers.test')}
              </button>
              <button className="btn small" onClick={() => setOpen(open === p.name ? undefined : p.name)}>
                {keys.some((k) => k.secret) && !p.configured ? t('providers.addKey') : t('common.edit')}
              </button>
            </div>
            {r && r !== 'running' && <div className={`test-result ${r.ok ? 'ok' : 'bad'}`}>{r.ok ? t('providers.testOk', { ms: r.latencyMs }) : t('providers.testFailed', { error: r.error ?? '' })}</div>}
            {p.lastError && p.state !== 'ready' && <div className="muted small clamp2">{p.lastError}</div>}
            {open === p.name && (
              <div className="provider-keys">
                {keys.length === 0 && <div className="muted small">{t('providers.noKeys')}</div>}
                {keys.map((k) => (
                  <SchemaField key={k.key} info={k} onSave={(v) => saveKey(k.key, v)} />
                ))}
              </div>
            )}
          </div>
        );
      })}
      {data && list.length === 0 && <div className="empty-state small">{t('providers.none')}</div>}
      {data && data.adapters.length > 0 && <p className="muted small">{t('providers.adapters', { list: data.adapters.join(', ') })}</p>}
    </div>
  );
}
