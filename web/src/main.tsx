import { createRoot } from 'react-dom/client';
import { App } from './app';
import { reportClientError } from './api/client';
import './styles.css';

window.addEventListener('error', (e) => reportClientError(e.error ?? e.message, { source: 'window.onerror' }));
window.addEventListener('unhandledrejection', (e) => reportClientError(e.reason, { source: 'unhandledrejection' }));

createRoot(document.getElementById('root')!).render(<App />);
