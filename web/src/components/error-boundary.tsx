import { Component, type ReactNode } from 'react';
import { reportClientError } from '../api/client';
import { I18nContext } from '../i18n';

interface Props {
  name: string;
  children: ReactNode;
  /** Extra action, e.g. close the overlay. */
  onClose?: () => void;
  compact?: boolean;
}

/**
 * An error boundary per panel (W-5): a crash shows a card with Retry (remounts the panel) and,
 * where given, Close; the error is reported through `diag.log`.
 */
export class ErrorBoundary extends Component<Props, { error: Error | undefined; key: number }> {
  static contextType = I18nContext;
  declare context: React.ContextType<typeof I18nContext>;
  state = { error: undefined as Error | undefined, key: 0 };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  componentDidCatch(error: Error, info: { componentStack?: string | null }) {
    reportClientError(error, { panel: this.props.name, componentStack: info.componentStack?.slice(0, 2000) });
  }

  /** Remounts the panel (and ends the test-only crash hook of this panel). */
  private retry() {
    try {
      if (localStorage.getItem('ha.test.crashOnce') === this.props.name) localStorage.removeItem('ha.test.crashOnce');
    } catch {}
    this.setState((s) => ({ error: undefined, key: s.key + 1 }));
  }

  render() {
    const { t } = this.context;
    if (this.state.error) {
      return (
        <div className={`error-card${this.props.compact ? ' compact' : ''}`} role="alert" data-testid={`boundary-${this.props.name}`}>
          <div className="error-title">{t('error.panelCrashed', { panel: this.props.name })}</div>
          <pre className="error-msg">{this.state.error.message}</pre>
          <div className="row gap">
            <button className="btn primary" onClick={() => this.retry()}>
              {t('common.retry')}
            </button>
            {this.props.onClose && (
              <button className="btn" onClick={this.props.onClose}>
                {t('common.close')}
              </button>
            )}
          </div>
        </div>
      );
    }
    return (
      <div key={this.state.key} className="boundary">
        <CrashOnce name={this.props.name} />
        {this.props.children}
      </div>
    );
  }
}

/**
 * Test-only hook (browser e2e): while `localStorage['ha.test.crashOnce']` names this panel, its
 * render throws; Retry removes the key, so the panel recovers.
 */
function CrashOnce({ name }: { name: string }): null {
  let hit = false;
  try {
    hit = localStorage.getItem('ha.test.crashOnce') === name;
  } catch {}
  if (hit) throw new Error(`test crash of the ${name} panel`);
  return null;
}
