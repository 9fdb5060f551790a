import { useMemo } from 'react';
import { useT } from '../../i18n';

/** Every IANA zone this browser knows (`Intl.supportedValuesOf`), or none on an older engine. */
function knownZones(): string[] {
  const intl = Intl as unknown as { supportedValuesOf?: (key: string) => string[] };
  try {
    return intl.supportedValuesOf?.('timeZone') ?? [];
  } catch {
    return [];
  }
}

/** The zone of the device the page runs on (the person's, most of the time). */
export function browserTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone ?? '';
  } catch {
    return '';
  }
}

/**
 * `core.agent.timezone` as a choice instead of a typed IANA name (decision 0270): the daemon
 * machine's zone (""), this browser's zone first, then every zone the browser knows. A stored value
 * the list lacks is kept as an option, so the picker never shows a value that is not the setting.
 */
export function TimeZonePicker({ value, save }: { value: string; save: (value: unknown) => Promise<unknown> }) {
  const t = useT();
  const here = browserTimeZone();
  const zones = useMemo(() => {
    const all = knownZones();
    const rest = all.filter((z) => z !== here && z !== value);
    return [...(value && value !== here ? [value] : []), ...rest];
  }, [here, value]);
  return (
    <select className="input" value={value} onChange={(e) => void save(e.target.value)} aria-label={t('settings.tz')} data-testid="tz-picker">
      <option value="">{t('settings.tzSystem')}</option>
      {here && <option value={here}>{t('settings.tzBrowser', { zone: here })}</option>}
      {zones.map((z) => (
        <option key={z} value={z}>
          {z}
        </option>
      ))}
    </select>
  );
}
