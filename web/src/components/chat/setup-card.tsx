import { useState } from 'react';
import { useT } from '../../i18n';
import { Icon } from '../icon';

/**
 * "Set up a language model": shown for a turn that found none, and on the welcome screen while none
 * is set up. `compact`: one line ("No model connected — how to connect one") that opens to the full
 * card — every turn but the newest of a conversation held without a model (decision 0690).
 */
export function SetupCard({ testId = 'setup-card', compact = false }: { testId?: string; compact?: boolean }) {
  const t = useT();
  const [open, setOpen] = useState(false);
  if (compact && !open) {
    return (
      <button type="button" className="setup-compact" data-testid="setup-card-compact" aria-expanded={false} onClick={() => setOpen(true)}>
        <Icon name="spark" size={14} /> {t('setup.compact')} <span className="setup-compact-more">{t('setup.compactHow')}</span>
      </button>
    );
  }
  return (
    <div className="setup-card" data-testid={testId}>
      <div className="setup-title">
        <Icon name="spark" /> {t('setup.title')}
      </div>
      <p>{t('setup.text')}</p>
      <ul className="setup-list">
        <li>
          <code>DEEPSEEK_API_KEY</code> / <code>OPENAI_API_KEY</code> / <code>ANTHROPIC_API_KEY</code>
        </li>
        <li>{t('setup.ollama')}</li>
      </ul>
      <a className="btn primary" href="#/settings/providers">
        {t('setup.open')}
      </a>
    </div>
  );
}
