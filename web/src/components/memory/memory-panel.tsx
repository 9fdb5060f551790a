import { useApp } from '../../app-context';
import { useT } from '../../i18n';
import { ApiError, mm } from '../../api/client';
import { ErrorBoundary } from '../error-boundary';
import { Icon } from '../icon';
import { PlanTab } from './plan-tab';
import { LibraryTab } from './library-tab';
import { MessagesTab } from './messages-tab';

/** The right panel (W-2): Plan / Library / Messages. */
export function MemoryPanel() {
  const app = useApp();
  const t = useT();
  const tab = app.memoryPanel.tab;
  const absent = app.mmError instanceof ApiError && (app.mmError.status === 404 || app.mmError.code === 'NOT_FOUND');
  return (
    <div className="panel">
      <div className="panel-head">
        <div className="tabs" role="tablist">
          {(['plan', 'library', 'messages'] as const).map((k) => (
            <button key={k} role="tab" aria-selected={tab === k} className={tab === k ? 'active' : ''} onClick={() => app.setMemoryPanel({ tab: k, memoryId: undefined })} data-testid={`tab-${k}`}>
              {t(`memory.tab.${k}`)}
            </button>
          ))}
        </div>
        <button className="icon-btn" onClick={() => app.setMemoryPanel({ open: false })} aria-label={t('common.close')}>
          <Icon name="close" />
        </button>
      </div>
      <div className="panel-body">
        {absent ? (
          <div className="empty-state">
            <Icon name="brain" size={28} />
            <p>{t('memory.absent')}</p>
          </div>
        ) : app.mm && !app.mm.enabled ? (
          <div className="empty-state">
            <Icon name="brain" size={28} />
            <p>{t('memory.disabledText')}</p>
            <button className="btn primary" onClick={() => void mm('state.setEnabled', { enabled: true }).then(() => app.refreshMm(), (e: Error) => app.toast(e.message, 'error'))}>
              {t('memory.enable')}
            </button>
          </div>
        ) : (
          <ErrorBoundary name={`memory-${tab}`} onClose={() => app.setMemoryPanel({ tab: 'plan' })}>
            {tab === 'plan' && <PlanTab />}
            {tab === 'library' && <LibraryTab />}
            {tab === 'messages' && <MessagesTab />}
          </ErrorBoundary>
        )}
      </div>
    </div>
  );
}
