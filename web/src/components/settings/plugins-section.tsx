import { useEffect, useRef, useState } from 'react';
import { api, pickList } from '../../api/client';
import { bus } from '../../api/event-stream';
import { useApp } from '../../app-context';
import { useLang, useT } from '../../i18n';
import { pluginDescription } from '../../lib/builtin-texts';
import { useRequest } from '../../lib/use-request';
import { relTime } from '../../lib/format';
import { Icon } from '../icon';
import { pluginKindLabel } from '../../lib/vocab';
import { Switch } from '../switch';
import { Dialog } from '../dialog';
import { PluginSettings, usePluginSettingCounts } from './plugin-settings';
import type { PendingPluginInstall, PluginInfo } from '../../../../src/spec/index.js';


/** Plugins (P-3, W-4): install a `.hmap`, enable/disable, reload, health and last error, tools. */
export function PluginsSection() {
  const app = useApp();
  const t = useT();
  const lang = useLang();
  // Installed plugins first (the ones a user manages), then the built-ins; each by name.
  const req = useRequest(async () => pickList<PluginInfo>(await api('/api/v1/plugins'), 'plugins').sort((a, b) => Number(a.kind === 'builtin') - Number(b.kind === 'builtin') || a.name.localeCompare(b.name)), [app.epoch]);
  // Uploaded packages wait here until the person confirms them (nothing of theirs runs before).
  const pendingReq = useRequest(async () => pickList<PendingPluginInstall>(await api('/api/v1/plugin-installs')), [app.epoch]);
  const settingCount = usePluginSettingCounts(req.data?.map((p) => p.name));
  const [review, setReview] = useState<PendingPluginInstall | undefined>();
  const file = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState<string | undefined>();
  // Each plugin's state as it settles (`starting` → `running` / `failed` …): the event updates its
  // card at once; the list is read again shortly after (tools, restarts) — once for a burst.
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = bus.subscribe((event, payload) => {
      if (event === 'plugin_state') {
        const p = payload as { plugin?: string; state?: string; error?: string };
        if (typeof p.plugin === 'string' && typeof p.state === 'string') {
          req.setData((list) => list?.map((x) => (x.name === p.plugin ? { ...x, state: p.state as PluginInfo['state'], lastError: p.error ?? (p.state === 'running' ? undefined : x.lastError) } : x)));
        }
        clearTimeout(timer);
        timer = setTimeout(req.reload, 400);
      }
      if (event === 'plugin_pending') pendingReq.reload();
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, [req.reload, req.setData, pendingReq.reload]);
  const act = async (name: string, action: 'enable' | 'disable' | 'reload') => {
    const p = req.data?.find((x) => x.name === name);
    // Enabling a package starts its code: the person says so, knowing what it is.
    if (action === 'enable' && p && p.kind !== 'builtin' && !window.confirm(t('plugins.enableConfirm', { name, kind: p.kind }))) return;
    setBusy(name);
    try {
      await api(`/api/v1/plugins/${encodeURIComponent(name)}/${action}`, { method: 'POST' });
      app.toast(t(`plugins.done.${action}`, { name }), 'ok');
    } catch (e) {
      app.toast((e as Error).message, 'error');
    } finally {
      setBusy(undefined);
      req.reload();
    }
  };
  // Folders added by hand since the daemon started: their code runs only after the person says so.
  const rescan = async () => {
    if (!window.confirm(t('plugins.rescanConfirm'))) return;
    setBusy('__rescan');
    try {
      const j = await api<{ value?: { found?: string[] } }>('/api/v1/plugins/rescan', { method: 'POST' });
      const found = j.value?.found ?? [];
      app.toast(found.length ? t('plugins.rescanFound', { list: found.join(', ') }) : t('plugins.rescanNone'), 'ok');
    } catch (e) {
      app.toast((e as Error).message, 'error');
    } finally {
      setBusy(undefined);
      req.reload();
    }
  };
  const uninstall = async (name: string) => {
    if (!window.confirm(t('plugins.uninstallConfirm', { name }))) return;
    setBusy(name);
    try {
      await api(`/api/v1/plugins/${encodeURIComponent(name)}`, { method: 'DELETE' });
      app.toast(t('plugins.uninstalled', { name }), 'ok');
    } catch (e) {
      app.toast((e as Error).message, 'error');
    } finally {
      setBusy(undefined);
      req.reload();
    }
  };
  const install = async (f: File | undefined) => {
    if (!f) return;
    setBusy('__install');
    try {
      const j = await api<{ value?: PendingPluginInstall }>('/api/v1/plugins/install', { method: 'POST', body: await f.arrayBuffer(), headers: { 'content-type': 'application/zip', 'x-filename': encodeURIComponent(f.name) } });
      if (j.value) setReview(j.value);
    } catch (e) {
      app.toast(t('plugins.installFailed', { error: (e as Error).message }), 'error');
    } finally {
      setBusy(undefined);
      pendingReq.reload();
    }
  };
  const decide = async (p: PendingPluginInstall, accept: boolean) => {
    setReview(undefined);
    setBusy(p.name);
    try {
      if (accept) {
        await api(`/api/v1/plugin-installs/${encodeURIComponent(p.name)}/confirm`, { method: 'POST' });
        app.toast(t('plugins.installed', { name: p.name }), 'ok');
      } else {
        await api(`/api/v1/plugin-installs/${encodeURIComponent(p.name)}`, { method: 'DELETE' });
        app.toast(t('plugins.discarded', { name: p.name }), 'info');
      }
    } catch (e) {
      app.toast(t('plugins.installFailed', { error: (e as Error).message }), 'error');
    } finally {
      setBusy(undefined);
      pendingReq.reload();
      req.reload();
    }
  };
  return (
    <div className="plugins" data-testid="plugins">
      <div className="row gap">
        <p className="muted grow">{t('plugins.hint')}</p>
        <button className="btn" disabled={busy === '__rescan'} onClick={() => void rescan()} data-testid="rescan-plugins">
          {t('plugins.rescan')}
        </button>
        <button className="btn primary" disabled={busy === '__install'} onClick={() => file.current?.click()} data-testid="install-plugin">
          <Icon name="upload" size={16} /> {busy === '__install' ? t('plugins.installing') : t('plugins.install')}
        </button>
        <input ref={file} type="file" accept=".hmap,application/zip" hidden onChange={(e) => { void install(e.target.files?.[0]); e.target.value = ''; }} data-testid="plugin-file" />
      </div>
      {req.error && <div className="error-card compact">{t('common.loadFailed', { error: req.error.message })}</div>}
      {(pendingReq.data ?? []).map((p) => (
        <div className="card plugin pending" key={`pending-${p.name}`} data-pending={p.name}>
          <div className="provider-head">
            <div className="grow">
              <div className="provider-name">
                {p.name} <span className="muted small">v{p.version}</span> <span className="badge warn">{t('plugins.pending')}</span>
              </div>
              {p.description && <div className="muted small">{p.description}</div>}
            </div>
            <button className="btn small primary" disabled={busy === p.name} onClick={() => setReview(p)} data-testid="review-install">
              {t('plugins.review')}
            </button>
          </div>
        </div>
      ))}
      {review && (
        <Dialog title={t('plugins.confirmTitle', { name: review.name })} onClose={() => setReview(undefined)} testId="install-confirm">
          <p>
            <b>{review.name}</b> v{review.version}
            {review.replaces ? ` — ${t('plugins.replaces', { version: review.replaces })}` : ''}
          </p>
          {review.description && <p className="muted">{review.description}</p>}
          {review.permissions.length ? (
            <div>
              {t('plugins.permissions')}:
              <ul className="permission-list">
                {review.permissions.map((x) => (
                  <li key={x} data-testid={`permission-${x}`}>
                    <span className="chip mono">{x}</span> {permissionMeaning(t, x)}
                  </li>
                ))}
              </ul>
            </div>
          ) : (
            <p>
              {t('plugins.permissions')}: {t('plugins.noPermissions')}
            </p>
          )}
          {review.dependencies.length > 0 && <p>{t('plugins.needs', { list: review.dependencies.join(', ') })}</p>}
          <p className="form-error">{t('plugins.codeWarning')}</p>
          <div className="row gap end">
            <button className="btn" onClick={() => void decide(review, false)} data-testid="install-discard">
              {t('plugins.discard')}
            </button>
            <button className="btn primary" onClick={() => void decide(review, true)} data-testid="install-accept">
              {t('plugins.installStart')}
            </button>
          </div>
        </Dialog>
      )}
      <div className="plugin-list">
        {req.data?.map((p) => (
          <div className={`card plugin state-${p.state}`} key={p.name} data-plugin={p.name}>
            <div className="provider-head">
              <div className="grow">
                <div className="provider-name">
                  {p.name} {p.version && <span className="muted small">v{p.version}</span>} <span className="badge" data-testid="plugin-kind">{pluginKindLabel(t, p.kind)}</span>{' '}
                  <span className={`badge state-${p.state}`} data-testid="plugin-state">
                    {p.state === 'starting' && <span className="spinner" />} {t(`plugins.state.${p.state}` as 'plugins.state.running')}
                  </span>
                </div>
                {p.description && <div className="muted small" data-testid="plugin-description">{p.kind === 'builtin' ? pluginDescription(lang, p.name, p.description) : p.description}</div>}
                <div className="muted small">
                  {t('plugins.restarts', { n: p.restarts })}
                  {p.lastHeartbeat ? ` · ${t('plugins.heartbeat', { when: relTime(p.lastHeartbeat, lang) })}` : ''}
                </div>
              </div>
              <button className="btn small" disabled={busy === p.name || !p.enabled} onClick={() => void act(p.name, 'reload')}>
                <Icon name="refresh" size={14} /> {t('plugins.reload')}
              </button>
              {p.kind !== 'builtin' && (
                <button className="btn small danger" disabled={busy === p.name} onClick={() => void uninstall(p.name)}>
                  {t('plugins.uninstall')}
                </button>
              )}
              <Switch checked={p.enabled} disabled={busy === p.name} onChange={(v) => void act(p.name, v ? 'enable' : 'disable')} label={t('plugins.enabled')} />
            </div>
            {p.lastError && <div className="form-error">{t('plugins.lastError', { error: p.lastError })}</div>}
            {p.tools.length > 0 && (
              <div className="chips">
                {p.tools.map((x) => (
                  <span className="chip mono" key={x}>
                    {x}
                  </span>
                ))}
              </div>
            )}
            <PluginSettings name={p.name} count={settingCount(p.name)} />
          </div>
        ))}
      </div>
    </div>
  );
}

/** What a permission in plugin.json lets a plugin do (src/plugins/external/rpc-protocol.ts), said to the person deciding. */
const PERMISSION_WORDS = ['memory', 'knowledge', 'social', 'llm', 'sessions', 'input', 'interrupt', 'output'] as const;
function permissionMeaning(t: ReturnType<typeof useT>, p: string): string {
  return (PERMISSION_WORDS as readonly string[]).includes(p) ? t(`plugins.perm.${p}` as 'plugins.perm.memory') : '';
}
