import { useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { ApiError, adoptLinkToken, api, clearToken, reportClientError, UNAUTHORIZED_EVENT } from './api/client';
import { SignIn } from './components/sign-in';
import './styles.css';

window.addEventListener('error', (e) => reportClientError(e.error ?? e.message, { source: 'window.onerror' }));
window.addEventListener('unhandledrejection', (e) => reportClientError(e.reason, { source: 'unhandledrejection' }));

/** Shows the app once the daemon accepts this browser's token, else the sign-in screen. */
function Gate() {
  const [state, setState] = useState<'checking' | 'in' | 'out'>('checking');
  useEffect(() => {
    void adoptLinkToken()
      .then(() => api('/api/v1/status'))
      .then(
        () => setState('in'),
        (e: unknown) => setState(e instanceof ApiError && e.status === 401 ? 'out' : 'in'),
      );
    const out = () => {
      clearToken();
      setState('out');
    };
    window.addEventListener(UNAUTHORIZED_EVENT, out);
    return () => window.removeEventListener(UNAUTHORIZED_EVENT, out);
  }, []);
  if (state === 'checking') return null;
  return state === 'in' ? <App /> : <SignIn onSignedIn={() => setState('in')} />;
}

createRoot(document.getElementById('root')!).render(<Gate />);
