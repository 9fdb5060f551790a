import { useEffect, useState } from 'react';
import { routeHash, useApp } from '../app-context';
import { useT } from '../i18n';
import { bus, type StreamState } from '../api/event-stream';
import { Icon } from './icon';

/** The top bar: navigation, connection state, panel toggles, language and theme. */
export function TopBar({ onMenu }: { onMenu: () => void }) {
  const app = useApp();
  const t = useT();
  const [state, setState] = useState<StreamState>(bus.state);
  useEffect(() => bus.onState(setState), []);
  const nextTheme = app.theme === 'light' ? 'dark' : app.theme === 'dark' ? 'system' : 'light';
  return (
    <header className="topbar">
      {app.route.view === 'chat' && (
        <button className="icon-btn only-narrow" onClick={onMenu} aria-label={t('nav.sessions')}>
          <Icon name="menu" />
        </button>
      )}
      <a className="brand" href="#/chat">
        <span className="brand-mark" aria-hidden>
          <Icon name="home" />
        </span>
        <span className="brand-name">HomeAgent</span>
      </a>
      <nav className="nav">
        <a className={app.route.view === 'chat' ? 'active' : ''} href={routeHash({ view: 'chat', sessionId: app.route.view === 'chat' ? undefined : app.lastChat })} data-testid="nav-chat">
          <Icon name="chat" />
          <span className="label">{t('nav.chat')}</span>
        </a>
        <a className={app.route.view === 'knows' ? 'active' : ''} href="#/knows" data-testid="nav-knows">
          <Icon name="user" />
          <span className="label">{t('nav.knows')}</span>
        </a>
        <a className={app.route.view === 'settings' ? 'active' : ''} href="#/settings/providers" data-testid="nav-settings">
          <Icon name="settings" />
          <span className="label">{t('nav.settings')}</span>
        </a>
      </nav>
      <div className="spacer" />
      <span className={`conn ${state}`} title={t(`conn.${state}`)} data-testid="conn">
        <span className="dot" />
        <span className="label">{t(`conn.${state}`)}</span>
      </span>
      <button className={`icon-btn${app.graphOpen ? ' on' : ''}`} onClick={() => app.setGraphOpen(!app.graphOpen)} title={t('graph.title')} aria-label={t('graph.title')} data-testid="toggle-graph">
        <Icon name="graph" />
      </button>
      <button className={`icon-btn${app.memoryPanel.open ? ' on' : ''}`} onClick={() => app.setMemoryPanel({ open: !app.memoryPanel.open })} title={t('memory.panel')} aria-label={t('memory.panel')} data-testid="toggle-memory">
        <Icon name="brain" />
      </button>
      <button className="icon-btn text" onClick={() => app.setLang(app.lang === 'zh' ? 'en' : 'zh')} title={t('top.language')} data-testid="toggle-lang">
        {app.lang === 'zh' ? 'EN' : '中'}
      </button>
      <button className="icon-btn" onClick={() => app.setTheme(nextTheme)} title={t('top.theme', { theme: t(`theme.${app.theme}`) })} aria-label={t('top.theme', { theme: t(`theme.${app.theme}`) })} data-testid="toggle-theme">
        <Icon name={app.theme === 'dark' ? 'moon' : app.theme === 'light' ? 'sun' : 'auto'} />
      </button>
    </header>
  );
}
