import { useEffect, useRef, useState } from 'react';
import { mm } from '../../api/client';
import { useApp } from '../../app-context';
import { useT } from '../../i18n';
import { useRequest } from '../../lib/use-request';
import { useConfigEpoch } from '../../lib/use-config-epoch';
import { Switch } from '../switch';
import type { MmConfig, PlanPreview } from '../memory/types';

const NUMBERS = ['memoryChars', 'totalChars', 'pinChars'] as const;

/**
 * Memory-manager settings (M-10) through `config.get`/`config.set`: optimistic update, rolled
 * back when the write fails; a live budget preview while the limits are edited — the daemon's own
 * `plan.preview` with the limits being typed, so it counts the planned memories' real lengths.
 */
export function MemorySettingsSection() {
  const app = useApp();
  const t = useT();
  // Read again when a memory-manager setting changes anywhere (`waiter config set`, another tab).
  const changed = useConfigEpoch('plugin.memory-manager.');
  const cfg = useRequest(() => mm<MmConfig>('config.get'), [app.epoch, changed]);
  type Field = (typeof NUMBERS)[number] | 'libraryPath';
  const [drafts, setDrafts] = useState<Partial<Record<Field, string>>>({});
  /** The stored value each draft started from: when it changed since, the field says so (the edit stays). */
  const bases = useRef<Partial<Record<Field, string>>>({});
  const edit = (k: Field, v: string) => {
    if (drafts[k] === undefined && cfg.data) bases.current[k] = String(cfg.data[k] ?? '');
    setDrafts((d) => ({ ...d, [k]: v }));
  };
  const endEdit = (k: Field) => {
    delete bases.current[k];
    setDrafts((d) => ({ ...d, [k]: undefined }));
  };
  const changedElsewhere = (k: Field) => {
    const b = bases.current[k];
    const now = String(cfg.data?.[k] ?? '');
    return drafts[k] !== undefined && b !== undefined && b !== now && drafts[k] !== now ? now : undefined;
  };
  const elsewhereNote = (k: Field) => {
    const now = changedElsewhere(k);
    return now === undefined ? null : (
      <span className="muted small changed-elsewhere" data-testid="changed-elsewhere">
        {t('settings.changedElsewhere', { value: now === '' ? '—' : now })}{' '}
        <button className="link-btn" type="button" onMouseDown={(e) => e.preventDefault()} onClick={() => endEdit(k)} data-testid="take-stored">
          {t('settings.takeStored')}
        </button>
      </span>
    );
  };
  const [errors, setErrors] = useState<Record<string, string>>({});
  const limits = cfg.data ? Object.fromEntries(NUMBERS.map((k) => [k, Number(drafts[k] ?? cfg.data![k])])) : undefined;
  const limitsKey = JSON.stringify(limits);
  // Asked again a moment after the typing stops; a stale answer is dropped by the request sequencer.
  const [asked, setAsked] = useState(limitsKey);
  useEffect(() => {
    const h = setTimeout(() => setAsked(limitsKey), 200);
    return () => clearTimeout(h);
  }, [limitsKey]);
  const preview = useRequest(async () => {
    const l = JSON.parse(asked ?? 'null') as Record<string, number> | null;
    if (!l || Object.values(l).some((v) => !Number.isInteger(v) || v < 0)) return undefined;
    return mm<PlanPreview>('plan.preview', { limits: l, active: true });
  }, [asked, app.epoch]);
  if (cfg.error) return <div className="error-card compact">{t('memory.absent')} ({cfg.error.message})</div>;
  const c = cfg.data;
  if (!c) return <div className="muted pad">{t('common.loading')}</div>;

  const set = async (patch: Partial<MmConfig>) => {
    const before = cfg.data;
    cfg.setData((d) => (d ? { ...d, ...patch } : d));
    const key = Object.keys(patch)[0];
    setErrors((e) => ({ ...e, [key]: '' }));
    try {
      const next = await mm<MmConfig>('config.set', patch);
      cfg.setData(() => next);
      app.refreshMm();
    } catch (e) {
      cfg.setData(() => before);
      // What was asked meanwhile was dropped by the change: read the settings again.
      cfg.reload();
      setErrors((x) => ({ ...x, [key]: (e as Error).message }));
      app.toast(t('common.saveFailed', { error: (e as Error).message }), 'error');
    }
  };
  const pv = preview.data;
  const budget = pv ? { pinned: pv.used.pinned, memories: pv.used.memories, total: pv.used.total, percent: pv.caps.total > 0 ? Math.min(100, Math.round((pv.used.total / pv.caps.total) * 100)) : 0 } : undefined;
  const toggles: (keyof MmConfig)[] = ['enabled', 'modelTools', 'autoInject'];
  return (
    <div className="memory-settings" data-testid="memory-settings">
      <div className="card">
        {toggles.map((k) => (
          <div className="setting-row" key={k}>
            <div>
              <div className="setting-label">{t(`mmset.${k}` as 'mmset.enabled')}</div>
              <div className="muted small">{t(`mmset.${k}.hint` as 'mmset.enabled.hint')}</div>
              {errors[k] && <div className="form-error">{errors[k]}</div>}
            </div>
            <Switch checked={Boolean(c[k])} onChange={(v) => void set({ [k]: v })} testId={`mmset-${k}`} />
          </div>
        ))}
        <div className="setting-row">
          <div className="setting-label">{t('plan.mode')}</div>
          <div className="segmented">
            {(['on', 'off'] as const).map((v) => (
              <button key={v} className={c.mode === v ? 'active' : ''} onClick={() => void set({ mode: v })}>
                {v === 'on' ? t('memory.modeOn') : t('memory.modeOff')}
              </button>
            ))}
          </div>
        </div>
        <div className="setting-row">
          <div className="setting-label">{t('plan.view')}</div>
          <div className="segmented">
            {(['full', 'compact'] as const).map((v) => (
              <button key={v} className={c.view === v ? 'active' : ''} onClick={() => void set({ view: v })}>
                {t(`plan.view.${v}`)}
              </button>
            ))}
          </div>
        </div>
      </div>
      <div className="card">
        <div className="card-head">{t('mmset.budget')}</div>
        {NUMBERS.map((k) => (
          <label className="field inline" key={k}>
            <span>{t(`mmset.${k}` as 'mmset.memoryChars')}</span>
            <input
              className="input"
              type="number"
              min={0}
              value={drafts[k] ?? String(c[k])}
              onChange={(e) => edit(k, e.target.value)}
              onBlur={() => {
                const v = drafts[k];
                if (v === undefined) return;
                endEdit(k);
                if (Number(v) === c[k]) return;
                if (!Number.isInteger(Number(v)) || Number(v) < 0) return setErrors((x) => ({ ...x, [k]: t('settings.notANumber') }));
                void set({ [k]: Number(v) });
              }}
              data-testid={`mmset-${k}`}
            />
            {elsewhereNote(k)}
            {errors[k] && <span className="form-error">{errors[k]}</span>}
          </label>
        ))}
        <div className="meter">
          <div className="meter-fill" style={{ width: `${budget?.percent ?? 0}%` }} />
        </div>
        <div className="muted small" data-testid="budget-preview">
          {budget ? t('mmset.preview', { pinned: budget.pinned, memories: budget.memories, total: budget.total, percent: budget.percent }) : preview.error ? preview.error.message : t('common.loading')}
        </div>
      </div>
      <div className="card">
        <label className="field">
          <span>{t('mmset.libraryPath')}</span>
          <input
            className="input mono"
            value={drafts.libraryPath ?? c.libraryPath}
            placeholder={c.effectiveLibraryPath}
            onChange={(e) => edit('libraryPath', e.target.value)}
            onBlur={() => {
              const v = drafts.libraryPath;
              endEdit('libraryPath');
              if (v !== undefined && v !== c.libraryPath) void set({ libraryPath: v });
            }}
          />
          {elsewhereNote('libraryPath')}
          <small className="muted">{t('mmset.libraryPathHint', { path: c.effectiveLibraryPath ?? '' })}</small>
          {errors.libraryPath && <span className="form-error">{errors.libraryPath}</span>}
        </label>
      </div>
    </div>
  );
}
