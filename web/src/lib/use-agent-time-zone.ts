import { api } from '../api/client';
import { useApp } from '../app-context';
import { useConfigEpoch } from './use-config-epoch';
import { useRequest } from './use-request';
import type { ConfigKeyInfo } from '../../../src/spec/index.js';

/** The setting that names the person's time zone (decision 0270; `src/spec/local-time.ts` TIME_ZONE_KEY). */
const TIME_ZONE_KEY = 'core.agent.timezone';

/**
 * The agent's time zone, `core.agent.timezone` (an IANA name), read from the daemon and again when
 * it changes anywhere (Settings → General, `waiter config set`): what {@link localDay} takes.
 * `''` while it loads, when it is "" (the daemon machine's zone, which the browser cannot see) or
 * cannot be read: then this device's zone is used.
 */
export function useAgentTimeZone(): string {
  const app = useApp();
  const changed = useConfigEpoch(TIME_ZONE_KEY);
  const req = useRequest(
    () =>
      api<{ value?: ConfigKeyInfo }>(`/api/v1/settings/${encodeURIComponent(TIME_ZONE_KEY)}`).then(
        (j) => (typeof j.value?.value === 'string' ? j.value.value : ''),
        () => '',
      ),
    [app.epoch, changed],
  );
  return req.data ?? '';
}
