import { useState } from 'react';
import { mm } from '../../api/client';
import { useT } from '../../i18n';
import { tagFromInput, tagLabel } from '../../lib/tag-label';
import { Dialog } from '../dialog';

/** Saves text as a memory (`memory.save`): title, snapshot (editable before saving), tags. */
export function SaveMemoryDialog({ initial, source, onClose }: { initial: { title: string; snapshot: string }; source?: { sessionId: string; seqs: number[] }; onClose: (id?: string) => void }) {
  const t = useT();
  const [title, setTitle] = useState(initial.title);
  const [snapshot, setSnapshot] = useState(initial.snapshot);
  const [tags, setTags] = useState('');
  const [impressions, setImpressions] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const save = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const split = (s: string) => s.split(/[,，]/).map((x) => x.trim()).filter(Boolean);
      const rec = await mm<{ id: string }>('memory.save', {
        title: title.trim() || undefined,
        snapshot,
        tags: split(tags).map((x) => tagFromInput(t, x)),
        impressions: split(impressions).length ? split(impressions) : undefined,
        source: source && source.seqs.length ? source : undefined,
      });
      onClose(rec.id);
    } catch (e) {
      setError((e as Error).message);
      setBusy(false);
    }
  };
  return (
    <Dialog title={t('memory.saveTitle')} onClose={() => onClose()} onSubmit={() => !busy && snapshot.trim() && void save()} testId="save-memory-dialog">
      <label className="field">
        <span>{t('memory.title')}</span>
        <input className="input" value={title} onChange={(e) => setTitle(e.target.value)} data-testid="memory-title" />
      </label>
      <label className="field">
        <span>{t('memory.snapshot')}</span>
        <textarea className="input" rows={7} value={snapshot} onChange={(e) => setSnapshot(e.target.value)} />
        <small className="muted">{t('memory.snapshotHint')}</small>
      </label>
      <div className="grid2">
        <label className="field">
          <span>{t('memory.impressions')}</span>
          <input className="input" value={impressions} placeholder={t('memory.commaHint')} onChange={(e) => setImpressions(e.target.value)} />
        </label>
        <label className="field">
          <span>{t('memory.tags')}</span>
          <input className="input" value={tags} placeholder={`${tagLabel(t, 'convention')}, ${tagLabel(t, '复盘')}`} onChange={(e) => setTags(e.target.value)} />
        </label>
      </div>
      {error && <div className="form-error">{error}</div>}
      <div className="dialog-actions">
        <button className="btn" onClick={() => onClose()}>
          {t('common.cancel')}
        </button>
        <button className="btn primary" disabled={busy || !snapshot.trim()} onClick={() => void save()} data-testid="memory-save-confirm">
          {busy ? t('common.saving') : t('common.save')}
        </button>
      </div>
    </Dialog>
  );
}
