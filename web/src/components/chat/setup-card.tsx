import { useT } from '../../i18n';
import { Icon } from '../icon';

/** "Set up a language model": shown for a turn that found none, and on the welcome screen while none is set up. */
export function SetupCard({ testId = 'setup-card' }: { testId?: string }) {
  const t = useT();
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
