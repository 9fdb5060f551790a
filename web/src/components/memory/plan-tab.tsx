import { tagLabel } from '../../lib/tag-label';
import { useState } from 'react';
import { mm } from '../../api/client';
import { useApp, useMemoryEpoch, type MmState } from '../../app-context';
import { VIEW_KINDS } from '../../lib/view-kinds';
import { useT } from '../../i18n';
import { useRequest } from '../../lib/use-request';
import { Icon } from '../icon';
import { Switch } from '../switch';
import type { Plan, PlanPreview } from './types';

/** Plan tab: mode, inject once, view, agent tools; pinned messages, planned memories, once queue, excluded turns; budget preview. */
export function PlanTab() {
  const app = useApp();
  const t = useT();
  // After a turn (the agent may have planned a memory) and when the plan changed elsewhere.
  const changed = useMemoryEpoch(VIEW_KINDS.plan);
  const plan = useRequest(() => mm<Plan>('plan.get'), [app.epoch, changed]);
  const preview = useRequest(() => mm<PlanPreview>('plan.preview', {}, app.route.view === 'chat' ? app.route.sessionId : undefined), [app.epoch, plan.data]);
  const [showBlock, setShowBlock] = useState(false);
  const s = app.mm;

  /** Optimistic update of the state with rollback when the write fails (M-10). */
  const setState = async (patch: Partial<MmState>, call: () => Promise<unknown>) => {
    const before = app.mm;
    if (before) app.setMm({ ...before, ...patch });
    try {
      await call();
      app.refreshMm();
    } catch (e) {
      if (before) app.setMm(before);
      app.toast(t('common.saveFailed', { error: (e as Error).message }), 'error');
    }
  };
  const act = async (fn: () => Promise<unknown>, ok?: string) => {
    try {
      await fn();
      if (ok) app.toast(ok, 'ok');
      plan.reload();
      app.refreshMm();
    } catch (e) {
      app.toast((e as Error).message, 'error');
    }
  };

  const p = plan.data;
  const pv = preview.data;
  const pct = pv && pv.caps.total > 0 ? Math.min(100, Math.round((pv.used.total / pv.caps.total) * 100)) : 0;
  const excluded = Object.entries(p?.excluded ?? {}).flatMap(([sid, ids]) => ids.map((turnId) => ({ sid, turnId })));
  return (
    <div className="plan-tab" data-testid="plan-tab">
      <div className="card">
        <div className="setting-row">
          <div>
            <div className="setting-label">{t('plan.mode')}</div>
            <div className="muted small">{t('plan.modeHint')}</div>
          </div>
          <Switch checked={s?.mode === 'on'} onChange={(v) => void setState({ mode: v ? 'on' : 'off' }, () => mm('state.setMode', { mode: v ? 'on' : 'off' }))} testId="mode-switch" />
        </div>
        <div className="setting-row">
          <div>
            <div className="setting-label">{t('plan.injectOnce')}</div>
            <div className="muted small">{t('plan.injectOnceHint')}</div>
          </div>
          <Switch checked={!!p?.injectOnce} onChange={(v) => void act(() => mm('plan.setInjectOnce', { value: v }))} testId="inject-once" />
        </div>
        <div className="setting-row">
          <div>
            <div className="setting-label">{t('plan.view')}</div>
            <div className="muted small">{t('plan.viewHint')}</div>
          </div>
          <div className="segmented">
            {(['full', 'compact'] as const).map((v) => (
              <button key={v} className={s?.view === v ? 'active' : ''} onClick={() => void setState({ view: v }, () => mm('config.set', { view: v }))}>
                {t(`plan.view.${v}`)}
              </button>
            ))}
          </div>
        </div>
        <div className="setting-row">
          <div>
            <div className="setting-label">{t('plan.modelTools')}</div>
            <div className="muted small">{t('plan.modelToolsHint')}</div>
          </div>
          <Switch checked={!!s?.modelTools} onChange={(v) => void setState({ modelTools: v }, () => mm('config.set', { modelTools: v }))} testId="model-tools" />
        </div>
      </div>

      <div className="card">
        <div className="card-head">
          <span>{t('plan.budget')}</span>
          {/* Active with nothing to put in (an empty plan, no conventions): nothing is injected — said so. */}
          <span className={`badge${pv?.active && pv.used.total > 0 ? ' ok' : ''}`} data-testid="plan-badge">{!pv?.active ? t('plan.inactive') : pv.used.total > 0 ? t('plan.active') : t('plan.nothing')}</span>
        </div>
        <div className="meter" title={`${pv?.used.total ?? 0} / ${pv?.caps.total ?? 0}`}>
          <div className="meter-fill" style={{ width: `${pct}%` }} />
        </div>
        <div className="muted small">
          {t('plan.used', { used: pv?.used.total ?? 0, total: pv?.caps.total ?? 0, pinned: pv?.used.pinned ?? 0, memories: pv?.used.memories ?? 0 })}
          {pv && pv.dropped.length > 0 && <span className="warn-text"> · {t('plan.dropped', { n: pv.dropped.length })}</span>}
        </div>
        {pv?.block && (
          <>
            <button className="link-btn" onClick={() => setShowBlock(!showBlock)}>
              {showBlock ? t('plan.hideBlock') : t('plan.showBlock')}
            </button>
            {showBlock && <pre className="block-preview">{pv.block}</pre>}
          </>
        )}
      </div>

      <Section title={t('plan.pinned')} count={p?.pinned.length ?? 0} empty={t('plan.pinnedEmpty')} testId="plan-pinned">
        {p?.pinned.map((x) => (
          <div className="list-item" key={x.id}>
            <span className="badge">{x.role}</span>
            <span className="grow clamp2">{x.text}</span>
            <button className="icon-btn tiny" title={t('chat.unpin')} onClick={() => void act(() => mm('plan.unpin', { id: x.id }))}>
              <Icon name="close" size={14} />
            </button>
          </div>
        ))}
      </Section>

      <Section title={t('plan.memories')} count={p?.memories.length ?? 0} empty={t('plan.memoriesEmpty')} testId="plan-memories">
        {p?.memories.map((x) => (
          <div className="list-item" key={x.id}>
            <button className="link-btn grow left" onClick={() => app.openMemory(x.id)}>
              {x.title}
            </button>
            {x.tags.map((g) => (
              <span className="tag" key={g} title={g}>
                {tagLabel(t, g)}
              </span>
            ))}
            <button className="icon-btn tiny" title={t('common.remove')} onClick={() => void act(() => mm('plan.removeMemory', { id: x.id }))}>
              <Icon name="close" size={14} />
            </button>
          </div>
        ))}
      </Section>

      {(p?.once.length ?? 0) > 0 && (
        <Section title={t('plan.once')} count={p!.once.length}>
          {p!.once.map((x) => (
            <div className="list-item" key={x.id}>
              <span className="grow clamp2">{x.text ?? x.memoryId}</span>
            </div>
          ))}
        </Section>
      )}

      <Section title={t('plan.excluded')} count={excluded.length} empty={t('plan.excludedEmpty')} testId="plan-excluded">
        {excluded.map((x) => (
          <div className="list-item" key={`${x.sid}|${x.turnId}`}>
            <button className="link-btn grow left" onClick={() => app.locate(x.sid, [], x.turnId)}>
              {x.turnId}
            </button>
            <button className="btn small" onClick={() => void act(() => mm('turn.restore', { turnId: x.turnId }, x.sid), t('messages.restored'))}>
              {t('messages.restore')}
            </button>
          </div>
        ))}
      </Section>

      <div className="row end">
        <button
          className="btn danger small"
          disabled={!p || (p.pinned.length === 0 && p.memories.length === 0)}
          onClick={() => {
            if (window.confirm(t('plan.clearConfirm'))) void act(() => mm('plan.clear'));
          }}
        >
          {t('plan.clear')}
        </button>
      </div>
    </div>
  );
}

function Section({ title, count, empty, children, testId }: { title: string; count: number; empty?: string; children: React.ReactNode; testId?: string }) {
  return (
    <div className="card" data-testid={testId}>
      <div className="card-head">
        <span>{title}</span>
        <span className="count">{count}</span>
      </div>
      {count === 0 && empty ? <div className="muted small">{empty}</div> : <div className="list">{children}</div>}
    </div>
  );
}
