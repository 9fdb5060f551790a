import { useEffect, useState } from 'react';
import { api } from '../api/client';
import { useLang, useT, type T } from '../i18n';
import type { DictKey } from '../i18n-dict';
import { relTime } from '../lib/format';
import { Icon } from './icon';
import type { SetAsideStore, StoreSalvage } from '../../../src/spec/index.js';

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

/** Words for the rows of each table a salvage reports, with their count (decision 0310); `config_<plugin>` tables are settings too. */
const ROW_LABELS: Record<string, DictKey> = {
  config: 'setAside.rows.config',
  people: 'setAside.rows.people',
  person_ids: 'setAside.rows.person_ids',
  private_chats: 'setAside.rows.private_chats',
  entities: 'setAside.rows.entities',
  relations: 'setAside.rows.relations',
  relation_sources: 'setAside.rows.relation_sources',
  merge_decisions: 'setAside.rows.merge_decisions',
};

/** The rows kept, grouped as people know them: "369 facts, 463 entities" (「369 条事实、463 个实体」). */
function rowsKept(t: T, lang: 'zh' | 'en', tables: StoreSalvage['tables'] | undefined): string {
  const groups = new Map<string, number>();
  for (const [table, c] of Object.entries(tables ?? {})) {
    if (!c.read) continue;
    const g = table.startsWith('config_') ? 'config' : table;
    groups.set(g, (groups.get(g) ?? 0) + c.kept);
  }
  return [...groups].map(([g, n]) => (ROW_LABELS[g] ? t(ROW_LABELS[g], { n }) : `${n} ${g}`)).join(lang === 'zh' ? '、' : ', ');
}

/**
 * What was read back of a damaged config.db or graph.db (decision 0310): the rows kept by what
 * they are, of how many found; what was left out (settings by key); and whether anything is
 * missing — pages that could not be read, for which the old file is kept.
 */
function RowsSalvaged({ s }: { s: StoreSalvage }) {
  const t = useT();
  const lang = useLang();
  return (
    <>
      <div className="small" data-testid="set-aside-salvaged">
        {s.read > 0 ? t('setAside.rows', { what: rowsKept(t, lang, s.tables), kept: s.kept, read: s.read }) : t('setAside.rowsNone')}
        {s.skipped > 0 && <> {t('setAside.rowsSkipped', { n: s.skipped })}</>}
        {s.droppedKeys?.length ? <> {t('setAside.droppedKeys', { keys: s.droppedKeys.join(', ') })}</> : null}
      </div>
      <div className="small" data-testid="set-aside-missing">
        {s.unreadablePages > 0 ? t('setAside.pagesLost', { n: s.unreadablePages }) : s.skipped > 0 || s.freePagesSkipped ? t('setAside.noRecover') : t('setAside.nothingLost')}
        {s.freePagesSkipped ? <> {t('setAside.freePagesSkipped', { n: s.freePagesSkipped })}</> : null}
        {s.freelistDamaged ? <> {t('setAside.freelistDamaged', { why: s.freelistDamaged })}</> : null}
      </div>
    </>
  );
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
 * 0280; config and graph, decision 0310) and the command that brings its contents back — or, when
 * there is none, whether anything is missing and that the old file is kept for a manual restore.
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
          {s.salvaged && s.salvaged.tombstones !== undefined && (
            <div className="small" data-testid="set-aside-salvaged">
              {t('setAside.salvaged', { tombstones: s.salvaged.tombstones, exclusions: s.salvaged.exclusions ?? 0, changes: s.salvaged.changes ?? 0 })}{' '}
              {s.salvaged.tombstonesLostAtMost === 0 ? t('setAside.lostNone') : s.salvaged.tombstonesLostAtMost == null ? t('setAside.lostUnknown') : t('setAside.lostUpTo', { n: s.salvaged.tombstonesLostAtMost })}
            </div>
          )}
          {s.salvaged && s.salvaged.tombstones === undefined ? (
            <RowsSalvaged s={s.salvaged} />
          ) : (
            <div className="small">
              {s.recover ? (
                <>
                  {t('setAside.recover')} <code className="mono">{s.recover}</code>
                </>
              ) : (
                t('setAside.noRecover')
              )}
            </div>
          )}
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
