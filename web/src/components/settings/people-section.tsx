import { useState } from 'react';
import { api } from '../../api/client';
import { useApp, useMemoryEpoch } from '../../app-context';
import { VIEW_KINDS } from '../../lib/view-kinds';
import { useT } from '../../i18n';
import { useRequest } from '../../lib/use-request';
import { ServiceError } from './knowledge-section';

/** A person of the people registry (GET /api/v1/people). */
export interface PersonView {
  id: string;
  name: string;
  owner: boolean;
  ids: string[];
  configIds?: string[];
}

/**
 * Settings → People (decision 0090): who is who across chat channels. Link one person's ids so
 * their private-chat facts follow them; unlink, rename, add a person, open what HomeAgent knows
 * about them. The routes are the person's own (token, same-origin); no model tool can link.
 */
export function PeopleSection() {
  const app = useApp();
  const t = useT();
  const changed = useMemoryEpoch(VIEW_KINDS.people);
  const list = useRequest(() => api<{ people: PersonView[] }>('/api/v1/people').then((j) => j.people), [app.epoch, changed]);
  const [adding, setAdding] = useState<Record<string, string>>({});
  const [renaming, setRenaming] = useState<{ id: string; name: string } | undefined>();
  const [fresh, setFresh] = useState({ name: '', ids: '' });
  if (list.error) return <ServiceError error={list.error} />;
  const run = async (fn: () => Promise<unknown>, ok: string) => {
    try {
      await fn();
      app.toast(ok, 'ok');
      list.reload();
      return true;
    } catch (e) {
      app.toast((e as Error).message, 'error');
      return false;
    }
  };
  const link = (p: PersonView) => {
    const id = (adding[p.id] ?? '').trim();
    if (!id) return;
    void run(() => api('/api/v1/people/link', { method: 'POST', json: { ids: [id], to: p.id } }), t('people.linked', { id })).then((ok) => ok && setAdding({ ...adding, [p.id]: '' }));
  };
  const unlink = (id: string) => void run(() => api('/api/v1/people/unlink', { method: 'POST', json: { id } }), t('people.unlinked', { id }));
  const rename = () => {
    if (!renaming?.name.trim()) return;
    void run(() => api(`/api/v1/people/${encodeURIComponent(renaming.id)}`, { method: 'PATCH', json: { name: renaming.name.trim() } }), t('common.saved')).then((ok) => ok && setRenaming(undefined));
  };
  const add = () => {
    const ids = fresh.ids.split(/[,，、\s]+/).map((x) => x.trim()).filter(Boolean);
    if (!fresh.name.trim() || ids.length === 0) return;
    void run(() => api('/api/v1/people/link', { method: 'POST', json: { ids, name: fresh.name.trim(), newPerson: true } }), t('common.saved')).then((ok) => ok && setFresh({ name: '', ids: '' }));
  };
  return (
    <div className="people" data-testid="people">
      <p className="muted">{t('people.hint')}</p>
      {list.data?.map((p) => (
        <div key={p.id} className="card" data-testid={`person-${p.owner ? 'owner' : p.name}`}>
          <div className="card-head">
            {renaming?.id === p.id ? (
              <form className="row gap grow" onSubmit={(e) => { e.preventDefault(); rename(); }}>
                <input className="input grow" aria-label={t('people.name')} value={renaming.name} onChange={(e) => setRenaming({ id: p.id, name: e.target.value })} autoFocus />
                <button className="btn small primary" type="submit">{t('common.save')}</button>
                <button className="btn small" type="button" onClick={() => setRenaming(undefined)}>{t('common.cancel')}</button>
              </form>
            ) : (
              <strong>
                {/* The owner's name until they give one is the seed's "Owner": said in the page's language. */}
                {p.owner && /^owner$/i.test(p.name) ? t('people.ownerName') : p.name}
                {p.owner && <span className="muted"> · {t('people.owner')}</span>}
              </strong>
            )}
            <span className="row gap">
              <button className="btn small" onClick={() => setRenaming({ id: p.id, name: p.name })}>{t('people.rename')}</button>
              <a className="btn small" href={`#/knows/${encodeURIComponent(p.owner ? 'me' : p.id)}`} data-testid="person-knows">{t('people.knows')}</a>
            </span>
          </div>
          <div className="muted small">{t('people.ids')}</div>
          {p.ids.length === 0 && <div className="muted small">{t('people.noIds')}</div>}
          {p.ids.map((id) => (
            <div key={id} className="row gap list-item">
              <code className="grow">{id}</code>
              {p.configIds?.includes(id) ? <span className="muted small">{t('people.fromConfig')}</span> : <button className="btn small" onClick={() => unlink(id)} data-testid={`unlink-${id}`}>{t('people.unlink')}</button>}
            </div>
          ))}
          <form className="row gap" onSubmit={(e) => { e.preventDefault(); link(p); }}>
            <input className="input grow" aria-label={t('people.linkId')} placeholder={t('people.idPlaceholder')} value={adding[p.id] ?? ''} onChange={(e) => setAdding({ ...adding, [p.id]: e.target.value })} data-testid="link-input" />
            <button className="btn small" type="submit" disabled={!(adding[p.id] ?? '').trim()}>{t('people.link')}</button>
          </form>
        </div>
      ))}
      <div className="card" data-testid="person-new">
        <strong>{t('people.new')}</strong>
        <form className="row gap wrap" onSubmit={(e) => { e.preventDefault(); add(); }}>
          <input className="input" style={{ flex: 1, minWidth: 140 }} aria-label={t('people.name')} placeholder={t('people.name')} value={fresh.name} onChange={(e) => setFresh({ ...fresh, name: e.target.value })} data-testid="new-name" />
          <input className="input" style={{ flex: 2, minWidth: 220 }} aria-label={t('people.newIds')} placeholder={t('people.newIds')} value={fresh.ids} onChange={(e) => setFresh({ ...fresh, ids: e.target.value })} data-testid="new-ids" />
          <button className="btn small primary" type="submit" disabled={!fresh.name.trim() || !fresh.ids.trim()}>{t('people.add')}</button>
        </form>
      </div>
    </div>
  );
}
