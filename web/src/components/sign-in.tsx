import { useState } from 'react';
import { ApiError, api, setToken } from '../api/client';
import { initialLang, translate } from '../i18n';
import type { DictKey } from '../i18n-dict';

/**
 * Shown when the daemon refuses this browser (no token yet, or a changed one): how to get the
 * sign-in link, and a field to paste the token. The token only ever goes to this origin.
 */
export function SignIn({ onSignedIn, linkRefused }: { onSignedIn: () => void; linkRefused?: boolean }) {
  const lang = initialLang();
  const t = (k: DictKey) => translate(lang, k);
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    setBusy(true);
    setError(undefined);
    setToken(value);
    try {
      await api('/api/v1/status');
      onSignedIn();
    } catch (e) {
      setError(e instanceof ApiError && e.status === 401 ? t('signin.wrong') : (e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="signin" data-testid="signin">
      <div className="card">
        <h2>{t('signin.title')}</h2>
        {linkRefused && (
          <div className="error-card compact" role="alert" data-testid="signin-link-refused">
            {t('signin.linkRefused')}
          </div>
        )}
        <p>{t('signin.why')}</p>
        <ol>
          <li>
            {t('signin.link')} <code>npm start</code> / <code>homed</code>
          </li>
          <li>
            {t('signin.waiter')} <code>npx waiter webui</code> <span className="muted small">{t('signin.waiterWhere')}</span>
          </li>
        </ol>
        <form
          className="row gap"
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <input className="grow" type="password" autoComplete="off" placeholder={t('signin.placeholder')} value={value} onChange={(e) => setValue(e.target.value)} data-testid="signin-token" />
          <button className="btn primary" type="submit" disabled={busy || !value.trim()}>
            {t('signin.submit')}
          </button>
        </form>
        {error && <div className="form-error">{error}</div>}
      </div>
    </div>
  );
}
