import { api } from '../api/client';
import { useApp } from '../app-context';
import { useConfigEpoch } from './use-config-epoch';
import { useRequest } from './use-request';

/** The setting that names the person's time zone (decision 0270; `src/spec/local-time.ts` TIME_ZONE_KEY). */
const TIME_ZONE_KEY = 'core.agent.timezone';

/**
 * The agent's time zone as the daemon resolves it (decision 0270): `core.agent.timezone`, or the
 * daemon machine's own zone when that is "" — read from `/api/v1/status` and again when the setting
 * changes anywhere (Settings → General, `waiter config set`): what {@link localDay} takes. `''` while
 * it loads or when it cannot be read: then this device's zone is used.
 */
export function useAgentTimeZone(): string {
  const app = useApp();
  const changed = useConfigEpoch(TIME_ZONE_KEY);
  const req = useRequest(
    () =>
      api<{ agent?: { timeZone?: string } | null }>('/api/v1/status').then(
        (j) => (typeof j.agent?.timeZone === 'string' ? j.agent.timeZone : ''),
        () => '',
      ),
    [app.epoch, changed],
  );
  return req.data ?? '';
}
