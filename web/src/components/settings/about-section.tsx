import { api } from '../../api/client';
import { useApp } from '../../app-context';
import { useLang, useT } from '../../i18n';
import { useRequest } from '../../lib/use-request';
import { relTime } from '../../lib/format';
import { SetAsideList } from '../set-aside';
import { dict, type DictKey } from '../../i18n-dict';
import type { SetAsideStore } from '../../../../src/spec/index.js';

interface Status {
  agent: { busy: boolean; queued: number; startedAt: number; version: string; homeDir: string; pid: number; setAside?: SetAsideStore[] } | null;
  endpoints: Record<string, string>;
  webui: { url: string; clients: number };
  services: Record<string, boolean>;
}

/** A name the status route gives (a service, an endpoint) in words; one the page does not know, as the daemon wrote it. */
function named(t: ReturnType<typeof useT>, prefix: 'about.service' | 'about.endpoint', name: string): string {
  const key = `${prefix}.${name}`;
  return key in dict.en ? t(key as DictKey) : name;
}

/** Daemon status: version, data folder, endpoints, which services are running, stores set aside at start. */
export function AboutSection() {
  const app = useApp();
  const t = useT();
  const lang = useLang();
  const s = useRequest(() => api<Status>('/api/v1/status'), [app.epoch]);
  if (s.error) return <div className="error-card compact">{t('common.loadFailed', { error: s.error.message })}</div>;
  const d = s.data;
  if (!d) return <div className="muted pad">{t('common.loading')}</div>;
  return (
    <div className="about">
      <dl className="meta card">
        <dt>{t('about.version')}</dt>
        <dd>{d.agent?.version ?? '—'}</dd>
        <dt>{t('about.home')}</dt>
        <dd className="mono">{d.agent?.homeDir ?? '—'}</dd>
        <dt>{t('about.started')}</dt>
        <dd>{d.agent ? relTime(d.agent.startedAt, lang) : '—'}</dd>
        <dt>{t('about.pid')}</dt>
        <dd>{d.agent?.pid ?? '—'}</dd>
        <dt>{t('about.state')}</dt>
        <dd>{d.agent?.busy ? t('about.busy', { n: d.agent.queued }) : t('about.idle')}</dd>
        <dt>{t('about.endpoints')}</dt>
        <dd className="about-endpoints">
          {Object.entries(d.endpoints).map(([k, v]) => (
            <div key={k} className="small" data-endpoint={k}>
              <span className="muted">{named(t, 'about.endpoint', k)}</span> <span className="mono">{v}</span>
            </div>
          ))}
        </dd>
      </dl>
      {d.agent?.setAside && (
        <section className="card set-aside-section" data-testid="about-set-aside">
          <h3>{t('setAside.section')}</h3>
          {d.agent.setAside.length ? <SetAsideList stores={d.agent.setAside} /> : <p className="muted small">{t('setAside.none')}</p>}
        </section>
      )}
      <section className="about-services" data-testid="about-services">
        <h3>{t('about.services')}</h3>
        <div className="chips">
          {Object.entries(d.services).map(([k, v]) => (
            <span key={k} className={`chip ${v ? 'ok' : 'off'}`} data-service={k} title={`${v ? t('about.running') : t('about.notRunning')} (${k})`}>
              {v ? '●' : '○'} {named(t, 'about.service', k)}
            </span>
          ))}
        </div>
      </section>
    </div>
  );
}
