import { useEffect, useRef, useState } from 'react';
import { useT } from '../../i18n';

/** How typed text becomes items: at commas, spaces and new lines (ids), or at new lines only (paths, commands). */
export type ListSplit = 'words' | 'lines';

/**
 * How a list's items are typed, from the schema of one item: words when the item's pattern cannot
 * hold a space (an id such as "telegram:42"), else lines — a path may hold spaces and commas
 * ("C:\Program Files\Git").
 */
export function listSplitOf(items: Record<string, unknown> | undefined): ListSplit {
  const pattern = typeof items?.pattern === 'string' ? items.pattern : undefined;
  if (!pattern) return 'lines';
  // A negated class ([^\s]) excludes; a space, a dot or \s elsewhere could match one.
  return /[ .]|\\s/.test(pattern.replace(/\[\^[^\]]*\]/g, '')) ? 'lines' : 'words';
}

/**
 * A list of short texts (allowed ids, owner ids, programs, folders) as chips with a field to add
 * more, typed or pasted (`split` says where one ends). One that is there already is not added
 * twice. Each change is saved at once; the chips follow each change at once too (two quick
 * removals both count), and go back to what is stored when the daemon refuses it. The daemon's
 * schema decides what is valid, and its error shows under the field.
 */
export function ListControl({ value, label, split = 'words', onSave }: { value: readonly string[]; label: string; split?: ListSplit; onSave: (next: string[]) => Promise<boolean> }) {
  const t = useT();
  const [draft, setDraft] = useState('');
  const [items, setItems] = useState<string[]>(() => [...value]);
  /** The list as last asked for: the next change builds on it, not on what the daemon said before. */
  const current = useRef<string[]>([...value]);
  useEffect(() => {
    current.current = [...value];
    setItems([...value]);
  }, [JSON.stringify(value)]);
  const change = async (next: string[]): Promise<boolean> => {
    const before = current.current;
    current.current = next;
    setItems(next);
    const ok = await onSave(next);
    if (!ok && current.current === next) {
      current.current = before;
      setItems(before);
    }
    return ok;
  };
  const add = async () => {
    const typed = draft
      .split(split === 'words' ? /[\s,，]+/ : /\r?\n/)
      .map((x) => x.trim())
      .filter(Boolean);
    const next = [...current.current];
    for (const x of typed) if (!next.includes(x)) next.push(x);
    if (next.length === current.current.length) return setDraft('');
    // Refused (the reason shows under the field): what was typed stays, to be mended.
    if (await change(next)) setDraft('');
  };
  return (
    <div className="list-control" data-testid="list-control">
      {items.length > 0 ? (
        <div className="chips">
          {items.map((x, i) => (
            <span className="chip mono" key={`${i}:${x}`} data-testid="list-item">
              {x}
              <button className="chip-x" type="button" onClick={() => void change(current.current.filter((_, j) => j !== current.current.indexOf(x)))} aria-label={t('settings.listRemove', { item: x })} title={t('settings.listRemove', { item: x })} data-testid="list-remove">
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
        {split === 'words' ? (
          <input
            className="input"
            value={draft}
            placeholder={t('settings.listAddHint')}
            title={t('settings.listAddTitle')}
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
        ) : (
          <textarea
            className="input"
            rows={1}
            value={draft}
            placeholder={t('settings.listAddLinesHint')}
            title={t('settings.listAddLinesTitle')}
            aria-label={`${label}: ${t('settings.listAdd')}`}
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && !e.shiftKey) {
                e.preventDefault();
                void add();
              }
            }}
            data-testid="list-add-input"
          />
        )}
        <button className="btn small" type="button" disabled={!draft.trim()} onClick={() => void add()} data-testid="list-add">
          {t('settings.listAdd')}
        </button>
      </div>
    </div>
  );
}
