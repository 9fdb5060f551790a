import { useEffect, useState } from 'react';
import { api, pickList } from '../../api/client';
import { useApp } from '../../app-context';
import { useLang, useT } from '../../i18n';
import { errorInWords } from '../../lib/error-words';
import { adapterLabel, sourceLabel } from '../../lib/builtin-texts';
import { useRequest } from '../../lib/use-request';
import { useConfigEpoch } from '../../lib/use-config-epoch';
import { Icon } from '../icon';
import { Dialog } from '../dialog';
import { SchemaField, type ConfigKeyInfo } from './schema-field';
import { HeldAdapters } from './held-adapters';
import type { ProviderStatus } from '../../../../src/spec/index.js';

/** Keys of one LLM source in the settings (`….<name>.…`). */
export function keysOfProvider(keys: ConfigKeyInfo[], name: string): ConfigKeyInfo[] {
  const n = name.toLowerCase();
  return keys.filter((k) => k.key.toLowerCase().split('.').includes(n) && /^core\.(llm|providers?|sources?)\./.test(k.key));
}

/** Splits "a, b\nc" into model ids. */
function splitList(s: string): string[] {
  return [...new Set(s.split(/[\s,，]+/).map((x) => x.trim()).filter(Boolean))];
}

/**
 * Providers (L-3): state, order (first is tried first), test a source, its settings with the
 * model picked from the list the source's API offers, and the person's own sources (any OpenAI- or
 * Anthropic-compatible endpoint): add, edit, remove.
 */
export function ProvidersSection() {
  const app = useApp();
  const t = useT();
  const lang = useLang();
  const prov = useRequest(() => api<{ providers: ProviderStatus[]; order: string[]; adapters: string[] }>('/api/v1/providers'), [app.epoch]);
  const changed = useConfigEpoch('core.llm.');
  const settings = useRequest(async () => pickList<ConfigKeyInfo>(await api('/api/v1/settings').catch(() => ({})), 'keys', 'settings'), [app.epoch, changed]);
  const [tests, setTests] = useState<Record<string, { ok: boolean; latencyMs: number; error?: string; code?: string } | 'running'>>({});
  const [open, setOpen] = useState<string | undefined>();
  const [editing, setEditing] = useState<ProviderStatus | 'new' | undefined>();
  const [removing, setRemoving] = useState<ProviderStatus | undefined>();

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
      const r = await api<{ result: { ok: boolean; latencyMs: number; error?: string; code?: string } }>(`/api/v1/providers/${encodeURIComponent(name)}/test`, { method: 'POST' });
      setTests((s) => ({ ...s, [name]: r.result }));
    } catch (e) {
      setTests((s) => ({ ...s, [name]: { ok: false, latencyMs: 0, error: (e as Error).message } }));
    }
    prov.reload();
  };
  /** A source's last test result no longer says anything once its settings changed. */
  const forgetTest = (key: string) => {
    const name = /^core\.llm\.sources\.([^.]+)\./.exec(key)?.[1];
    if (name) setTests((s) => Object.fromEntries(Object.entries(s).filter(([n]) => n !== name)));
  };
  const saveKey = async (key: string, value: unknown) => {
    await api(`/api/v1/settings/${encodeURIComponent(key)}`, { method: 'PUT', json: { value } });
    forgetTest(key);
    settings.reload();
    prov.reload();
  };
  const resetKey = async (key: string) => {
    await api(`/api/v1/settings/${encodeURIComponent(key)}`, { method: 'DELETE' });
    forgetTest(key);
    settings.reload();
    prov.reload();
  };
  const remove = async (p: ProviderStatus) => {
    setRemoving(undefined);
    try {
      await api(`/api/v1/providers/${encodeURIComponent(p.name)}`, { method: 'DELETE' });
      app.toast(t('providers.removed', { name: p.label ?? p.name }), 'ok');
    } catch (e) {
      app.toast((e as Error).message, 'error');
    }
    prov.reload();
    settings.reload();
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
      <div className="row gap">
        <p className="muted grow">{t('providers.hint')}</p>
        <button className="btn primary" onClick={() => setEditing('new')} data-testid="add-source">
          <Icon name="plus" size={16} /> {t('providers.add')}
        </button>
      </div>
      {list.map((p, i) => {
        const r = tests[p.name];
        const keys = keysOfProvider(settings.data ?? [], p.name);
        return (
          <div className="card provider" key={p.name} data-provider={p.name}>
            <div className="provider-head">
              <span className="order-no">{i + 1}</span>
              <div className="grow">
                <div className="provider-name">
                  {sourceLabel(lang, p)} {p.label && p.label !== p.name && <span className="muted small mono">{p.name}</span>} {p.custom && <span className="badge">{t('providers.own')}</span>}{' '}
                  {/* A test that just failed says so: "ready" only means configured and not cooling down. */}
                  {r && r !== 'running' && !r.ok ? (
                    <span className="badge state-disabled-auth" data-testid={`state-${p.name}`}>
                      {t('providers.testFailedBadge')}
                    </span>
                  ) : (
                    <span className={`badge state-${p.state}`} data-testid={`state-${p.name}`}>
                      {t(`providers.state.${p.state}` as 'providers.state.ready')}
                    </span>
                  )}
                </div>
                <div className="muted small provider-meta" data-testid={`meta-${p.name}`}>
                  <span title={p.adapter}>{adapterLabel(lang, p.adapter)}</span> · <span className="mono">{p.model || '—'}</span> · <span className="mono">{p.baseUrl || '—'}</span>
                </div>
              </div>
              <div className="provider-actions" data-testid="provider-actions">
              <button className="icon-btn tiny" disabled={i === 0} onClick={() => void move(p.name, -1)} aria-label={t('providers.up')} title={t('providers.up')}>
                ↑
              </button>
              <button className="icon-btn tiny" disabled={i === list.length - 1} onClick={() => void move(p.name, 1)} aria-label={t('providers.down')} title={t('providers.down')}>
                ↓
              </button>
              <button className="btn small" disabled={r === 'running' || !p.configured} onClick={() => void test(p.name)} data-testid={`test-${p.name}`}>
                {r === 'running' ? t('providers.testing') : t('providers.test')}
              </button>
              <button className="btn small" onClick={() => setOpen(open === p.name ? undefined : p.name)} data-testid={`settings-${p.name}`}>
                {/* What an unready source lacks: a key (a hosted one), a model (one added without it); Ollama needs neither. */}
                {!p.configured && p.adapter !== 'ollama' && !p.hasKey && keys.some((k) => k.secret) ? t('providers.addKey') : !p.configured && !p.model ? t('providers.setModel') : t('common.edit')}
              </button>
              {p.custom && (
                <>
                  <button className="icon-btn tiny" onClick={() => setEditing(p)} title={t('providers.editSource')} aria-label={t('providers.editSource')} data-testid={`edit-source-${p.name}`}>
                    <Icon name="edit" size={14} />
                  </button>
                  <button className="icon-btn tiny" onClick={() => setRemoving(p)} title={t('providers.remove')} aria-label={t('providers.remove')} data-testid={`remove-source-${p.name}`}>
                    <Icon name="trash" size={14} />
                  </button>
                </>
              )}
              </div>
            </div>
            {r && r !== 'running' && <div className={`test-result ${r.ok ? 'ok' : 'bad'}`}>{r.ok ? t('providers.testOk', { ms: r.latencyMs }) : t('providers.testFailed', { error: errorInWords({ code: r.code, message: r.error ?? '' }, lang) })}</div>}
            {p.lastError && p.state !== 'ready' && <div className="muted small clamp2">{p.lastError}</div>}
            {open === p.name && (
              <div className="provider-keys">
                {keys.length === 0 && <div className="muted small">{t('providers.noKeys')}</div>}
                {keys.map((k) => (
                  <SchemaField key={k.key} info={k} onSave={(v) => saveKey(k.key, v)} onReset={() => resetKey(k.key)} control={/\.model$/.test(k.key) ? (save) => <ModelPicker source={p} value={String(k.value ?? '')} save={save} /> : undefined} />
                ))}
              </div>
            )}
          </div>
        );
      })}
      {data && list.length === 0 && <div className="empty-state small">{t('providers.none')}</div>}
      {/* The adapters' ids are what the adapter setting and `waiter providers` take: shown as typed. */}
      {data && data.adapters.length > 0 && (
        <p className="muted small" data-testid="adapters">
          {t('providers.adapters')}{' '}
          {data.adapters.map((a, i) => (
            <span key={a}>
              {i > 0 && ', '}
              <code title={adapterLabel(lang, a)}>{a}</code>
            </span>
          ))}
        </p>
      )}
      <HeldAdapters epoch={app.epoch} onTaken={prov.reload} />
      {editing && (
        <SourceDialog
          source={editing === 'new' ? undefined : editing}
          onClose={(saved) => {
            setEditing(undefined);
            if (saved) {
              prov.reload();
              settings.reload();
            }
          }}
        />
      )}
      {removing && (
        <Dialog title={t('providers.remove')} onClose={() => setRemoving(undefined)} testId="source-remove-confirm">
          <p>{t('providers.removeText', { name: removing.label ?? removing.name })}</p>
          <div className="dialog-actions">
            <button className="btn" onClick={() => setRemoving(undefined)}>
              {t('common.cancel')}
            </button>
            <button className="btn danger" onClick={() => void remove(removing)} data-testid="source-remove-ok">
              {t('common.delete')}
            </button>
          </div>
        </Dialog>
      )}
    </div>
  );
}

const OTHER = '\u0000other';

/**
 * The model of a source, picked from what its API lists (`GET /api/v1/providers/:name/models`)
 * and the models declared for it; "Other…" types a name the list lacks. When the API cannot be
 * asked (no key yet, offline), the name is typed.
 */
function ModelPicker({ source, value, save }: { source: ProviderStatus; value: string; save: (v: unknown) => Promise<unknown> }) {
  const t = useT();
  // A key replaced by another (still "has a key"): the list is asked again, and an error the old key got goes.
  const keyChanged = useConfigEpoch(`core.llm.sources.${source.name}.api_key`);
  const models = useRequest(() => api<{ models: string[]; declared: string[] }>(`/api/v1/providers/${encodeURIComponent(source.name)}/models`), [source.name, source.baseUrl, source.hasKey, keyChanged]);
  const [typing, setTyping] = useState(false);
  const [draft, setDraft] = useState(value);
  useEffect(() => setDraft(value), [value]);
  const options = [...new Set([...(models.data?.declared ?? []), ...(models.data?.models ?? []), ...(source.models ?? []), ...(value ? [value] : [])])];
  if (typing || models.error || (models.data && options.length === 0)) {
    return (
      <div className="model-picker">
        <input className="input mono" value={draft} onChange={(e) => setDraft(e.target.value)} onBlur={() => draft !== value && void save(draft)} onKeyDown={(e) => e.key === 'Enter' && draft !== value && void save(draft)} placeholder={t('providers.modelName')} aria-label={t('providers.modelName')} data-testid="model-input" />
        {models.error && <div className="muted small">{t('providers.modelsFailed', { error: models.error.message })}</div>}
        {!models.error && options.length > 0 && (
          <button className="link-btn small" onClick={() => setTyping(false)}>
            {t('providers.pickFromList')}
          </button>
        )}
      </div>
    );
  }
  return (
    <div className="model-picker">
      <select
        className="input mono"
        value={value}
        disabled={models.loading && !models.data}
        onChange={(e) => (e.target.value === OTHER ? setTyping(true) : void save(e.target.value))}
        aria-label={t('providers.model')}
        data-testid="model-select"
      >
        {!value && <option value="">{models.loading ? t('common.loading') : t('providers.pickModel')}</option>}
        {options.map((m) => (
          <option key={m} value={m}>
            {m}
          </option>
        ))}
        <option value={OTHER}>{t('providers.otherModel')}</option>
      </select>
    </div>
  );
}

/** Adds an LLM source (name, kind of API, URL, key, models) or edits one the person added. */
function SourceDialog({ source, onClose }: { source?: ProviderStatus; onClose: (saved: boolean) => void }) {
  const t = useT();
  const app = useApp();
  const [name, setName] = useState(source?.name ?? '');
  const [label, setLabel] = useState(source?.label ?? '');
  const [kind, setKind] = useState<'openai' | 'anthropic'>(source?.adapter === 'anthropic' ? 'anthropic' : 'openai');
  const [baseUrl, setBaseUrl] = useState(source?.baseUrl ?? '');
  const [apiKey, setApiKey] = useState('');
  const [models, setModels] = useState((source?.models ?? []).join(', '));
  const [model, setModel] = useState(source?.model ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const submit = async () => {
    setBusy(true);
    setError(undefined);
    const declared = splitList(models);
    const body: Record<string, unknown> = { label: label.trim() || undefined, api: kind, baseUrl: baseUrl.trim(), models: declared };
    if (apiKey) body.apiKey = apiKey;
    if (model.trim() || declared[0]) body.model = model.trim() || declared[0];
    try {
      if (source) await api(`/api/v1/providers/${encodeURIComponent(source.name)}`, { method: 'PATCH', json: body });
      else await api('/api/v1/providers', { method: 'POST', json: { name: name.trim(), ...body } });
      app.toast(source ? t('providers.saved', { name: label || name }) : t('providers.added', { name: label || name }), 'ok');
      onClose(true);
    } catch (e) {
      setError((e as Error).message);
      setBusy(false);
    }
  };
  return (
    <Dialog title={source ? t('providers.editSource') : t('providers.add')} onClose={() => onClose(false)} onSubmit={() => !busy && name.trim() && baseUrl.trim() && void submit()} testId="source-dialog">
      <label className="field">
        <span>{t('providers.sourceName')}</span>
        <input className="input mono" value={name} disabled={!!source} onChange={(e) => setName(e.target.value.toLowerCase())} placeholder="my-llm" data-testid="source-name" autoFocus={!source} />
        <small className="muted">{t('providers.sourceNameHint')}</small>
      </label>
      <label className="field">
        <span>{t('providers.sourceLabel')}</span>
        <input className="input" value={label} onChange={(e) => setLabel(e.target.value)} placeholder="My LLM" data-testid="source-label" />
      </label>
      <div className="field">
        <span>{t('providers.api')}</span>
        <div className="segmented">
          {(['openai', 'anthropic'] as const).map((k) => (
            <button key={k} className={kind === k ? 'active' : ''} onClick={() => setKind(k)} data-testid={`source-api-${k}`}>
              {t(`providers.api.${k}`)}
            </button>
          ))}
        </div>
      </div>
      <label className="field">
        <span>{t('providers.baseUrl')}</span>
        <input className="input mono" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} placeholder={kind === 'openai' ? 'https://api.example.com/v1' : 'https://api.example.com'} data-testid="source-url" />
      </label>
      <label className="field">
        <span>{t('providers.apiKey')}</span>
        <input className="input" type="password" value={apiKey} onChange={(e) => setApiKey(e.target.value)} placeholder={source ? (source.hasKey ? t('settings.secretSet') : t('settings.secretUnset')) : ''} autoComplete="off" data-testid="source-key" />
      </label>
      <label className="field">
        <span>{t('providers.models')}</span>
        <input className="input mono" value={models} onChange={(e) => setModels(e.target.value)} placeholder="model-a, model-b" data-testid="source-models" />
        <small className="muted">{t('providers.modelsHint')}</small>
      </label>
      <label className="field">
        <span>{t('providers.model')}</span>
        <input className="input mono" value={model} onChange={(e) => setModel(e.target.value)} placeholder={splitList(models)[0] ?? ''} data-testid="source-model" />
      </label>
      {error && <div className="form-error">{error}</div>}
      <div className="dialog-actions">
        <button className="btn" onClick={() => onClose(false)}>
          {t('common.cancel')}
        </button>
        <button className="btn primary" disabled={busy || !name.trim() || !baseUrl.trim()} onClick={() => void submit()} data-testid="source-save">
          {source ? t('common.save') : t('providers.add')}
        </button>
      </div>
    </Dialog>
  );
}
