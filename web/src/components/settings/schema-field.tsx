import { ApiError } from '../../api/client';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useLang, useT } from '../../i18n';
import { errorInWords } from '../../lib/error-words';
import { choiceLabel, settingLabel } from './setting-labels';
import { Switch } from '../switch';
import { ListControl, listSplitOf } from './list-control';
import { isCustomSetting } from './custom-badge';
import type { ConfigKeyInfo } from '../../../../src/spec/index.js';

/** One setting as `GET /api/v1/settings` lists it (the daemon's own type). */
export type { ConfigKeyInfo };

/** The kind of form control a JSON schema asks for. */
export function controlFor(schema: Record<string, unknown>, value: unknown): 'boolean' | 'number' | 'enum' | 'string' | 'list' | 'json' {
  const type = schema.type;
  // A list of texts (ids, programs, folders): chips to add and remove, not JSON to type.
  if (type === 'array' && (schema.items as { type?: unknown } | undefined)?.type === 'string' && (value === undefined || (Array.isArray(value) && value.every((x) => typeof x === 'string')))) return 'list';
  if (Array.isArray(schema.enum) && schema.enum.every((x) => typeof x === 'string')) return 'enum';
  if (type === 'boolean' || typeof value === 'boolean') return 'boolean';
  if (type === 'integer' || type === 'number' || typeof value === 'number') return 'number';
  if (type === 'string' || typeof value === 'string') return 'string';
  return 'json';
}

/**
 * One config key as a form row, generated from its JSON schema; saves on change/blur. The row is
 * labelled in words (setting-labels.ts) with help below; the key itself stays as a small hint for
 * `waiter config`. `control` replaces the generated input (the model picker).
 */
export function SchemaField({
  info,
  onSave,
  onReset,
  control: custom,
}: {
  info: ConfigKeyInfo;
  onSave: (value: unknown) => Promise<void>;
  /** Removes the stored value (back to the default): offered for a stored secret — a key pasted by mistake. */
  onReset?: () => Promise<void>;
  control?: (save: (value: unknown) => Promise<unknown>) => ReactNode;
}) {
  const t = useT();
  const lang = useLang();
  const { label, help } = settingLabel(info.key, info.description, lang);
  const control = controlFor(info.schema, info.value);
  const [draft, setDraft] = useState(() => toDraft(control, info));
  const [error, setError] = useState<string | undefined>();
  const [saved, setSaved] = useState(false);
  /** The stored value the draft started from: a draft that differs is the person's edit. */
  const base = useRef(draft);
  /** The stored value changed (elsewhere) while the person was editing: their text is kept. */
  const [elsewhere, setElsewhere] = useState<string | undefined>();
  useEffect(() => {
    const next = toDraft(control, info);
    if (draft === base.current || draft === next) {
      base.current = next;
      setDraft(next);
      setElsewhere(undefined);
    } else if (next !== base.current) setElsewhere(next);
    // Only a new stored value decides this; the draft is read as it is at that moment.
  }, [info.value]);
  const takeStored = () => {
    const next = toDraft(control, info);
    base.current = next;
    setDraft(next);
    setElsewhere(undefined);
  };

  /** Saves; false when the daemon refused (the error shows under the field). */
  const save = async (value: unknown): Promise<boolean> => {
    setError(undefined);
    try {
      await onSave(value);
      setSaved(true);
      setTimeout(() => setSaved(false), 1500);
      return true;
    } catch (e) {
      // The daemon's own words (ApiError.reason), made readable for this field, then said in the page's language.
      const reason = e instanceof ApiError ? e.reason : (e as Error).message;
      setError(errorInWords({ message: readableError(reason, info.key, value) }, lang === 'zh' ? 'zh' : 'en'));
      takeStored();
      return false;
    }
  };
  const commitText = () => {
    if (draft === toDraft(control, info)) return;
    if (control === 'number') {
      const n = Number(draft);
      if (draft === '' || !Number.isFinite(n)) return setError(t('settings.notANumber'));
      return void save(n);
    }
    if (control === 'json') {
      try {
        return void save(JSON.parse(draft));
      } catch {
        return setError(t('settings.badJson'));
      }
    }
    if (info.secret && !draft) return;
    void save(draft);
  };

  const min = info.schema.minimum as number | undefined;
  const max = info.schema.maximum as number | undefined;
  return (
    <div className={`schema-field${error ? ' has-error' : ''}`} data-key={info.key}>
      <div className="schema-label">
        <span className="setting-label" data-testid="setting-label">
          {label}
        </span>
        {info.origin === 'env' && <span className="badge">{t('settings.fromEnv', { env: info.env ?? '' })}</span>}
        {isCustomSetting(info) && <span className="badge ok" data-testid="setting-custom">{t('settings.custom')}</span>}
        {saved && <span className="badge ok">✓</span>}
        <div className="muted small">{help}</div>
        <code className="key-hint">{info.key}</code>
      </div>
      <div className="schema-control">
        {custom ? custom(save) : null}
        {!custom && control === 'boolean' && <Switch checked={Boolean(info.value)} onChange={(v) => void save(v)} label={label} />}
        {!custom && control === 'enum' && (
          <select className="input" value={String(info.value)} onChange={(e) => void save(e.target.value)}>
            {(info.schema.enum as string[]).map((x) => (
              <option key={x} value={x}>
                {choiceLabel(info.key, x, lang)}
              </option>
            ))}
          </select>
        )}
        {!custom && (control === 'number' || control === 'string') && (
          <input
            className="input"
            type={info.secret ? 'password' : control === 'number' ? 'number' : 'text'}
            min={min}
            max={max}
            value={draft}
            placeholder={info.secret ? (info.value ? t('settings.secretSet') : t('settings.secretUnset')) : undefined}
            onChange={(e) => setDraft(e.target.value)}
            onBlur={commitText}
            onKeyDown={(e) => e.key === 'Enter' && commitText()}
            autoComplete="off"
            aria-label={label}
          />
        )}
        {!custom && control === 'list' && <ListControl value={Array.isArray(info.value) ? (info.value as string[]) : []} label={label} split={listSplitOf(info.schema.items as Record<string, unknown> | undefined)} onSave={save} />}
        {!custom && control === 'json' && <textarea className="input mono" rows={3} value={draft} onChange={(e) => setDraft(e.target.value)} onBlur={commitText} />}
        {elsewhere !== undefined && (
          <div className="muted small changed-elsewhere" data-testid="changed-elsewhere">
            {t('settings.changedElsewhere', { value: info.secret ? '•••' : elsewhere === '' ? '—' : elsewhere })}{' '}
            <button className="link-btn" type="button" onMouseDown={(e) => e.preventDefault()} onClick={takeStored} data-testid="take-stored">
              {t('settings.takeStored')}
            </button>
          </div>
        )}
        {onReset && info.secret && info.origin === 'stored' && (
          <button
            className="link-btn small"
            type="button"
            onClick={() => {
              setError(undefined);
              onReset().catch((e: Error) => setError(e.message));
            }}
            data-testid="secret-remove"
          >
            {t('settings.removeSecret')}
          </button>
        )}
        {error && <div className="form-error">{error}</div>}
      </div>
    </div>
  );
}

function toDraft(control: string, info: ConfigKeyInfo): string {
  if (info.secret) return '';
  if (control === 'json') return JSON.stringify(info.value, null, 1);
  return info.value === null || info.value === undefined ? '' : String(info.value);
}

/**
 * The daemon's refusal as a person reads it: "invalid value for plugin.telegram.allowed_user_ids:
 * 2: a Telegram user id is …" names the item by what was typed ("abc": a Telegram user id is …),
 * not by the setting's key and an index.
 */
export function readableError(message: string, key: string, value: unknown): string {
  const prefix = `invalid value for ${key}: `;
  if (!message.startsWith(prefix)) return message;
  const rest = message.slice(prefix.length);
  const m = /^(\d+): ([\s\S]*)$/.exec(rest);
  if (m && Array.isArray(value) && typeof value[Number(m[1])] === 'string') return `"${value[Number(m[1])]}": ${m[2]}`;
  return rest;
}
