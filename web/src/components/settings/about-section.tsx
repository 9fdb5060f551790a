import { api } from '../../api/client';
import { useApp } from '../../app-context';
import { useLang, useT } from '../../i18n';
import { useRequest } from '../../lib/use-request';
import { relTime } from '../../lib/format';
import { SetAsideList } from '../set-aside';
import type { SetAsideStore } from '../../../../src/spec/index.js';

interface Status {
  agent: { busy: boolean; queued: number; startedAt: number; version: string; homeDir: string; pid: number; setAside?: SetAsideStore[] } | null;
  endpoints: Record<string, string>;
  webui: { url: string; clients: number };
  services: Record<string, boolean>;
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
        <dd>
          {Object.entries(d.endpoints).map(([k, v]) => (
            <div key={k} className="mono small">
              {k}: {v}
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
      <div className="chips">
        {Object.entries(d.services).map(([k, v]) => (
          <span key={k} className={`chip ${v ? 'ok' : 'off'}`}>
            {v ? '●' : '○'} {k}
          </span>
        ))}
      </div>
    </div>
  );
}
