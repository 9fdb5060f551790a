import { api, pickList } from '../../api/client';
import { useApp } from '../../app-context';
import { useLang, useT } from '../../i18n';
import { useRequest } from '../../lib/use-request';
import { bytes, relTime } from '../../lib/format';
import { Icon } from '../icon';
import { ServiceError } from './knowledge-section';
import type { ChangeRecord } from '../../../../src/spec/index.js';


/** The change tracker (C-13): files the agent wrote or deleted, with undo. */
export function ChangesSection() {
  const app = useApp();
  const t = useT();
  const lang = useLang();
  const req = useRequest(async () => pickList<ChangeRecord>(await api('/api/v1/changes?limit=200'), 'changes'), [app.epoch, app.memEpoch]);
  if (req.error) return <ServiceError error={req.error} />;
  const undo = async (c: ChangeRecord) => {
    if (!window.confirm(t('changes.undoConfirm', { path: c.path }))) return;
    try {
      await api(`/api/v1/changes/${encodeURIComponent(c.id)}/undo`, { method: 'POST' });
      app.toast(t('changes.undone', { path: c.path }), 'ok');
    } catch (e) {
      app.toast((e as Error).message, 'error');
    }
    req.reload();
  };
  const list = [...(req.data ?? [])].sort((a, b) => b.at - a.at);
  return (
    <div className="changes" data-testid="changes">
      <p className="muted">{t('changes.hint')}</p>
      {list.length === 0 && req.data && <div className="empty-state small">{t('changes.empty')}</div>}
      {list.map((c) => (
        <div className={`list-item change${c.undone ? ' undone' : ''}`} key={c.id}>
          <span className={`badge op-${c.op}`}>{t(`changes.op.${c.op}` as 'changes.op.write')}</span>
          <span className="grow mono small clamp1" title={c.path}>
            {c.path}
          </span>
          <span className="muted small">
            {c.tool ?? ''} · {relTime(c.at, lang)} · {bytes(c.sizeBefore)}→{bytes(c.sizeAfter)}
          </span>
          {c.undone ? (
            <span className="badge">{t('changes.undoneBadge')}</span>
          ) : (
            <button className="btn small" onClick={() => void undo(c)}>
              <Icon name="undo" size={14} /> {t('changes.undo')}
            </button>
          )}
        </div>
      ))}
    </div>
  );
}
