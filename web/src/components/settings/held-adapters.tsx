import { useState } from 'react';
import { api } from '../../api/client';
import { useApp } from '../../app-context';
import { useT } from '../../i18n';
import { useRequest } from '../../lib/use-request';
import { Dialog } from '../dialog';
import type { HeldAdapterInfo, HeldAdapterSource, TakenAdapter } from '../../../../src/spec/index.js';

/**
 * The Lua adapters an import held in `adapters/imported/` (decisions 0540, 0620), where nothing
 * runs them: each can be read — its whole code, what it would replace, the sources that would run
 * it — and taken into use by the person from that dialog. The take names the SHA-256 of the code
 * shown, so a file an import wrote since is refused, not taken unread.
 */
export function HeldAdapters({ epoch, onTaken }: { epoch: number; onTaken: () => void }) {
  const t = useT();
  const held = useRequest(() => api<{ held: HeldAdapterInfo[] }>('/api/v1/adapters/held'), [epoch]);
  const [reading, setReading] = useState<string | undefined>();
  const list = held.data?.held ?? [];
  if (list.length === 0) return null;
  return (
    <div className="held-choice warn" data-testid="held-adapters">
      <p className="small">{t('providers.heldAdapters')}</p>
      <ul className="small">
        {list.map((h) => (
          <li key={h.name}>
            <code>{h.name}</code> {h.replaces && <span className="warn-text">{t(h.replaces === 'yours' ? 'providers.heldReplacesYours' : 'providers.heldReplacesShipped')}</span>}{' '}
            <button className="btn small" onClick={() => setReading(h.name)} data-testid={`held-adapter-read-${h.name}`}>
              {t('providers.heldRead')}
            </button>
          </li>
        ))}
      </ul>
      {reading && (
        <HeldAdapterDialog
          name={reading}
          onClose={(changed) => {
            setReading(undefined);
            if (changed) {
              held.reload();
              onTaken();
            }
          }}
        />
      )}
    </div>
  );
}

/** Reads one held adapter, then takes it into use or discards it; `onClose(true)` when either was done. */
function HeldAdapterDialog({ name, onClose }: { name: string; onClose: (changed: boolean) => void }) {
  const app = useApp();
  const t = useT();
  const shown = useRequest(() => api<{ adapter: HeldAdapterSource }>(`/api/v1/adapters/held/${encodeURIComponent(name)}`), [name]);
  const [replace, setReplace] = useState(false);
  const [busy, setBusy] = useState(false);
  const a = shown.data?.adapter;
  const [sure, setSure] = useState(false);
  const discard = async () => {
    if (!a) return;
    setBusy(true);
    try {
      await api(`/api/v1/adapters/held/${encodeURIComponent(name)}/discard`, { method: 'POST', json: { sha256: a.sha256 } });
      app.toast(t('providers.heldDiscarded', { name }), 'ok');
      onClose(true);
    } catch (e) {
      app.toast((e as Error).message, 'error');
      setBusy(false);
    }
  };
  const take = async () => {
    if (!a) return;
    setBusy(true);
    try {
      const r = await api<{ taken: TakenAdapter }>(`/api/v1/adapters/held/${encodeURIComponent(name)}/take`, { method: 'POST', json: { sha256: a.sha256, ...(a.replaces ? { replace } : {}) } });
      app.toast(r.taken.keptAt ? t('providers.heldTakenKept', { name, kept: r.taken.keptAt }) : t('providers.heldTaken', { name }), 'ok');
      onClose(true);
    } catch (e) {
      app.toast((e as Error).message, 'error');
      setBusy(false);
    }
  };
  return (
    <Dialog title={t('providers.heldTitle', { name })} onClose={() => onClose(false)} testId="held-adapter-dialog" wide>
      {shown.error && <div className="error-card compact">{shown.error.message}</div>}
      {a && (
        <>
          <p className="small warn-text">{t('providers.heldWarning')}</p>
          <p className="small">
            {t('providers.heldUsedBy')} {a.usedBy.length ? a.usedBy.map((s) => `${s.name} (${s.enabled ? t('providers.heldOn') : t('providers.heldOff')})`).join(', ') : t('providers.heldUsedByNone')}
          </p>
          {/* The code as text, whole: what is taken is what is shown here. */}
          <pre className="mono small" style={{ maxHeight: '50vh', overflow: 'auto' }} data-testid="held-adapter-source">
            {a.source}
          </pre>
          <p className="muted small mono">sha256 {a.sha256}</p>
          {a.replaces && (
            <label className="check">
              <input type="checkbox" checked={replace} onChange={(e) => setReplace(e.target.checked)} data-testid="held-adapter-replace" />
              <span>{t(a.replaces === 'yours' ? 'providers.heldReplaceYours' : 'providers.heldReplaceShipped', { name })}</span>
            </label>
          )}
        </>
      )}
      {sure && (
        <p className="small warn-text" data-testid="held-adapter-discard-sure">
          {t('providers.heldDiscardSure', { name })}
        </p>
      )}
      <div className="dialog-actions">
        <button className="btn" onClick={() => onClose(false)}>
          {t('common.cancel')}
        </button>
        {/* Two presses: the first says what goes, the second deletes the bytes shown. */}
        <button className="btn" disabled={!a || busy} onClick={() => (sure ? void discard() : setSure(true))} data-testid="held-adapter-discard">
          {t('providers.heldDiscard')}
        </button>
        <button className="btn danger" disabled={!a || busy || (!!a.replaces && !replace)} onClick={() => void take()} data-testid="held-adapter-take">
          {t('providers.heldTake')}
        </button>
      </div>
    </Dialog>
  );
}
