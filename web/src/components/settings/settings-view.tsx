import { useEffect, useRef } from 'react';
import { useApp } from '../../app-context';
import { useT } from '../../i18n';
import { ErrorBoundary } from '../error-boundary';
import { ProvidersSection } from './providers-section';
import { CoreSettingsSection } from './core-settings-section';
import { MemorySettingsSection } from './memory-settings-section';
import { PluginsSection } from './plugins-section';
import { KnowledgeSection } from './knowledge-section';
import { DocumentsSection } from './documents-section';
import { ChangesSection } from './changes-section';
import { HistorySection } from '../memory/history-list';
import { ChannelsSection } from './channels-section';
import { AboutSection } from './about-section';
import { PeopleSection } from './people-section';
import { DataSection } from './data-section';

const SECTIONS = ['providers', 'general', 'channels', 'people', 'memory', 'plugins', 'knowledge', 'documents', 'history', 'changes', 'data', 'about'] as const;

/** Settings (W-4): providers, generated core settings, memory manager, plugins, knowledge, documents, changes. */
export function SettingsView({ section }: { section: string }) {
  const app = useApp();
  const t = useT();
  const current = (SECTIONS as readonly string[]).includes(section) ? section : 'providers';
  // On a phone the tabs are one scrolling row: the tab of the page shown is brought into it.
  const active = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    active.current?.scrollIntoView?.({ block: 'nearest', inline: 'nearest' });
  }, [current]);
  return (
    <div className="settings">
      <nav className="settings-nav">
        {SECTIONS.map((s) => (
          <button key={s} ref={current === s ? active : undefined} className={current === s ? 'active' : ''} onClick={() => app.navigate({ view: 'settings', section: s })} data-testid={`settings-${s}`}>
            {t(`settings.${s}`)}
          </button>
        ))}
      </nav>
      <div className="settings-body">
        <h2>{t(`settings.${current}` as 'settings.providers')}</h2>
        <ErrorBoundary name={`settings-${current}`} key={current}>
          {current === 'providers' && <ProvidersSection />}
          {current === 'general' && <CoreSettingsSection />}
          {current === 'channels' && <ChannelsSection />}
          {current === 'people' && <PeopleSection />}
          {current === 'memory' && <MemorySettingsSection />}
          {current === 'plugins' && <PluginsSection />}
          {current === 'knowledge' && <KnowledgeSection />}
          {current === 'documents' && <DocumentsSection />}
          {current === 'history' && <HistorySection />}
          {current === 'changes' && <ChangesSection />}
          {current === 'data' && <DataSection />}
          {current === 'about' && <AboutSection />}
        </ErrorBoundary>
      </div>
    </div>
  );
}
