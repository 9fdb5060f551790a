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
  // Opened through a sign-in link whose token the daemon refused: the sign-in screen says so.
  const [linkRefused, setLinkRefused] = useState(false);
  useEffect(() => {
    let link: 'none' | 'adopted' | 'refused' = 'none';
    void adoptLinkToken()
      .then((r) => {
        link = r;
        return api('/api/v1/status');
      })
      .then(
        () => setState('in'),
        (e: unknown) => {
          const refused = e instanceof ApiError && e.status === 401;
          setLinkRefused(refused && link !== 'none');
          setState(refused ? 'out' : 'in');
        },
      );
    const out = () => {
      clearToken();
      setState('out');
    };
    window.addEventListener(UNAUTHORIZED_EVENT, out);
    return () => window.removeEventListener(UNAUTHORIZED_EVENT, out);
  }, []);
  if (state === 'checking') return null;
  return state === 'in' ? <App /> : <SignIn linkRefused={linkRefused} onSignedIn={() => setState('in')} />;
}

createRoot(document.getElementById('root')!).render(<Gate />);
