import { useState } from 'react';
import { useT } from '../../i18n';

/**
 * A list of short texts (allowed ids, owner ids, programs, folders) as chips with a field to add
 * more: typed or pasted, separated by commas, spaces or new lines. One that is there already is
 * not added twice. Each change is saved at once. The daemon's schema decides what is valid, and
 * its error shows under the field.
 */
export function ListControl({ value, label, onSave }: { value: readonly string[]; label: string; onSave: (next: string[]) => Promise<boolean> }) {
  const t = useT();
  const [draft, setDraft] = useState('');
  const add = async () => {
    const items = draft
      .split(/[\s,，]+/)
      .map((x) => x.trim())
      .filter(Boolean);
    const next = [...value];
    for (const x of items) if (!next.includes(x)) next.push(x);
    if (next.length === value.length) return setDraft('');
    // Refused (the reason shows under the field): what was typed stays, to be mended.
    if (await onSave(next)) setDraft('');
  };
  return (
    <div className="list-control" data-testid="list-control">
      {value.length > 0 ? (
        <div className="chips">
          {value.map((x) => (
            <span className="chip mono" key={x} data-testid="list-item">
              {x}
              <button className="chip-x" type="button" onClick={() => void onSave(value.filter((y) => y !== x))} aria-label={t('settings.listRemove', { item: x })} title={t('settings.listRemove', { item: x })} data-testid="list-remove">
                ×
              </button>
            </span>
          ))}
        </div>
      ) : (
        <div className="muted small" data-testid="list-empty">
          {t('settings.listEmpty')}
        </div>
      )}
      <div className="list-add">
        <input
          className="input"
          value={draft}
          placeholder={t('settings.listAddHint')}
          aria-label={`${label}: ${t('settings.listAdd')}`}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              void add();
            }
          }}
          data-testid="list-add-input"
        />
        <button className="btn small" type="button" disabled={!draft.trim()} onClick={() => void add()} data-testid="list-add">
          {t('settings.listAdd')}
        </button>
      </div>
    </div>
  );
}
