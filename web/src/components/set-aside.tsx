import { useEffect, useState } from 'react';
import { api } from '../api/client';
import { useLang, useT, type T } from '../i18n';
import type { DictKey } from '../i18n-dict';
import { relTime } from '../lib/format';
import { Icon } from './icon';
import type { SetAsideStore } from '../../../src/spec/index.js';

const STORE_LABELS: Record<string, DictKey> = {
  config: 'setAside.store.config',
  'memory-control': 'setAside.store.memory-control',
  documents: 'setAside.store.documents',
  archive: 'setAside.store.archive',
  graph: 'setAside.store.graph',
  context: 'setAside.store.context',
  'session-log': 'setAside.store.session-log',
};

/** The person's name for a store (its label and the store id), the id alone for one this SPA does not know. */
function storeName(t: T, store: string): string {
  const k = STORE_LABELS[store];
  return k ? t(k) : store;
}

/** A date the person can read, with how long ago (the file's suffix is a raw timestamp). */
function when(at: number, lang: 'zh' | 'en'): string {
  const d = new Date(at);
  if (!Number.isFinite(d.getTime())) return '';
  return `${d.toLocaleString(lang === 'zh' ? 'zh-CN' : 'en')} (${relTime(at, lang)})`;
}

/**
 * The stores the daemon found damaged at start and set aside (decision 0250): for each, which
 * store, where the old file is kept, when, what was read back of it (memory-control, decision
 * 0280) and the command that brings its contents back — or, when there is none, that the old file
 * is kept for a manual restore.
 */
export function SetAsideList({ stores }: { stores: SetAsideStore[] }) {
  const t = useT();
  const lang = useLang();
  return (
    <ul className="set-aside-list" data-testid="set-aside-list">
      {stores.map((s) => (
        <li key={`${s.store}:${s.file}`} data-testid="set-aside-item" data-store={s.store}>
          <div>
            <strong>{storeName(t, s.store)}</strong> <span className="muted small">{when(s.at, lang)}</span>
          </div>
          <div className="small">
            {t('setAside.keptAt')} <code className="mono">{s.file}</code>
          </div>
          {s.salvaged && (
            <div className="small" data-testid="set-aside-salvaged">
              {t('setAside.salvaged', { tombstones: s.salvaged.tombstones, exclusions: s.salvaged.exclusions, changes: s.salvaged.changes })}{' '}
              {s.salvaged.tombstonesLostAtMost === 0 ? t('setAside.lostNone') : s.salvaged.tombstonesLostAtMost === null ? t('setAside.lostUnknown') : t('setAside.lostUpTo', { n: s.salvaged.tombstonesLostAtMost })}
            </div>
          )}
          <div className="small">
            {s.recover ? (
              <>
                {t('setAside.recover')} <code className="mono">{s.recover}</code>
              </>
            ) : (
              t('setAside.noRecover')
            )}
          </div>
        </li>
      ))}
    </ul>
  );
}

/**
 * A warning at the top of the app while the daemon reports stores it set aside at start. Read
 * at load and after a daemon restart (`epoch`). Dismissing hides it for this page load only —
 * the damage is still there; a store set aside after a restart that was not dismissed shows it
 * again.
 */
export function SetAsideBanner({ epoch }: { epoch: number }) {
  const t = useT();
  const [stores, setStores] = useState<SetAsideStore[]>([]);
  const [dismissed, setDismissed] = useState<ReadonlySet<string>>(new Set());
  useEffect(() => {
    let live = true;
    api<{ agent: { setAside?: SetAsideStore[] } | null }>('/api/v1/status').then(
      (s) => live && setStores(s.agent?.setAside ?? []),
      () => undefined, // the connection indicator tells about a daemon that does not answer
    );
    return () => {
      live = false;
    };
  }, [epoch]);
  const shown = stores.filter((s) => !dismissed.has(s.file));
  if (!shown.length) return null;
  return (
    <div className="set-aside-banner" role="alert" data-testid="set-aside-banner">
      <div className="grow">
        <div className="set-aside-title">
          <span aria-hidden="true">⚠</span> {t('setAside.title', { n: shown.length })}
        </div>
        <p className="small">{t('setAside.hint')}</p>
        <SetAsideList stores={shown} />
      </div>
      <button className="icon-btn" aria-label={t('setAside.dismiss')} title={t('setAside.dismiss')} onClick={() => setDismissed(new Set([...dismissed, ...shown.map((s) => s.file)]))} data-testid="set-aside-dismiss">
        <Icon name="close" size={14} />
      </button>
    </div>
  );
}
