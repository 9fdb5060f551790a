import type { PluginSDK } from '../../sdk/index.js';
import { resolveTimeZone, TIME_ZONE_KEY } from '../../spec/index.js';

/**
 * The person's time zone for a built-in plugin (decision 0270): `core.agent.timezone` read through
 * `host.config`, resolved to a canonical IANA name; the system's zone when it is unset or the host
 * offers no configuration (a test host). Read at each use, so a change applies at once.
 */
export function personTimeZone(sdk: Pick<PluginSDK, 'use'>): string {
  try {
    return resolveTimeZone(sdk.use('host.config')?.get(TIME_ZONE_KEY).value);
  } catch {
    // The key is not registered (a host without the core settings): the system's zone.
    return resolveTimeZone('');
  }
}
