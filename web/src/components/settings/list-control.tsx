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
 * twice. Each change is saved at once, one at a time: while one is being saved the list takes no
 * other (a quick second click, or an Enter, waits for it), so each change builds on what is stored. The chips
 * show the change at once and go back to what is stored when the daemon refuses it — never a list
 * that looks saved and is not (an owner id that seems removed but still counts). The daemon's
 * schema decides what is valid, and its error shows under the field. `nameOf` names an item in
 * words (an LLM source's display name): the chip shows the name with the stored id beside it as a
 * hint, and `itemOf` takes a typed name back to the id it names (anything else as typed).
 */
export function ListControl({
  value,
  label,
  split = 'words',
  onSave,
  nameOf,
  itemOf,
}: {
  value: readonly string[];
  label: string;
  split?: ListSplit;
  onSave: (next: string[]) => Promise<boolean>;
  nameOf?: (item: string) => string;
  itemOf?: (typed: string) => string;
}) {
  const t = useT();
  const [draft, setDraft] = useState('');
  const [items, setItems] = useState<string[]>(() => [...value]);
  const [saving, setSaving] = useState(false);
  // What is stored: the chips follow it when it changes (here or elsewhere).
  const stored = useRef(value);
  stored.current = value;
  const key = JSON.stringify(value);
  useEffect(() => setItems([...value]), [key]);
  const change = async (next: string[]): Promise<boolean> => {
    setSaving(true);
    setItems(next);
    try {
      const ok = await onSave(next);
      // Refused: back to what is stored. Saved: the chips already show it (the stored value that
      // follows is the same list), so a next change builds on it, not on the value before.
      if (!ok) setItems([...stored.current]);
      return ok;
    } finally {
      setSaving(false);
    }
  };
  // Enter pressed while a change is being saved: the add follows once that save is through (the
  // Add button waits, being disabled meanwhile; a key was simply lost, the id left in the box).
  const [addWhenSaved, setAddWhenSaved] = useState(false);
  const add = async () => {
    if (saving) return setAddWhenSaved(true);
    const sent = draft;
    const typed = sent
      .split(split === 'words' ? /[\s,，]+/ : /\r?\n/)
      .map((x) => x.trim())
      .filter(Boolean)
      .map((x) => itemOf?.(x) ?? x);
    const next = [...items];
    for (const x of typed) if (!next.includes(x)) next.push(x);
    if (next.length === items.length) return setDraft('');
    // Refused (the reason shows under the field): what was typed stays, to be mended. Saved: the
    // box is cleared — unless the person typed something else into it meanwhile.
    if (await change(next)) setDraft((d) => (d === sent ? '' : d));
  };
  useEffect(() => {
    if (saving || !addWhenSaved) return;
    setAddWhenSaved(false);
    // This render's add: it builds on the list as the save left it.
    void add();
  }, [saving, addWhenSaved]);
  // One field either way: a word list adds on Enter; a line list on Enter too, Shift+Enter is a new line.
  const field = {
    className: 'input',
    value: draft,
    placeholder: t(split === 'words' ? 'settings.listAddHint' : 'settings.listAddLinesHint'),
    title: t(split === 'words' ? 'settings.listAddTitle' : 'settings.listAddLinesTitle'),
    'aria-label': `${label}: ${t('settings.listAdd')}`,
    'data-testid': 'list-add-input',
    onChange: (e: { target: { value: string } }) => setDraft(e.target.value),
    onKeyDown: (e: { key: string; shiftKey: boolean; preventDefault(): void }) => {
      if (e.key === 'Enter' && !(split === 'lines' && e.shiftKey)) {
        e.preventDefault();
        void add();
      }
    },
  };
  return (
    <div className="list-control" data-testid="list-control">
      {items.length > 0 ? (
        <div className="chips">
          {items.map((x, i) => {
            const name = nameOf?.(x) ?? x;
            return (
              <span className={`chip${name === x ? ' mono' : ''}`} key={`${i}:${x}`} data-testid="list-item" data-item={x}>
                {name}
                {name !== x && (
                  <span className="chip-id mono" data-testid="list-item-id">
                    {x}
                  </span>
                )}
                <button className="chip-x" type="button" disabled={saving} onClick={() => void change(items.filter((_, j) => j !== i))} aria-label={t('settings.listRemove', { item: name })} title={t('settings.listRemove', { item: name })} data-testid="list-remove">
                  ×
                </button>
              </span>
            );
          })}
        </div>
      ) : (
        <div className="muted small" data-testid="list-empty">
          {t('settings.listEmpty')}
        </div>
      )}
      <div className="list-add">
        {split === 'words' ? <input {...field} /> : <textarea rows={1} {...field} />}
        <button className="btn small" type="button" disabled={!draft.trim() || saving} onClick={() => void add()} data-testid="list-add">
          {t('settings.listAdd')}
        </button>
      </div>
    </div>
  );
}
