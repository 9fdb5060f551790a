/**
 * The people of LoCoMo live in UTC (decision 0270). The dataset's session dates are read as UTC
 * wall times (`parseSessionDate`), and the memory counts days in the daemon's default zone —
 * `core.agent.timezone` unset, so the system's. The bench therefore runs its process in `TZ=UTC`
 * whatever the machine's zone: on a machine in UTC+8 every turn said after 16:00 would move to the
 * next day and the day-scoped figures with it. No setting is changed: the bench still passes the
 * daemon's options and default config only (test/locomo-lifecycle.test.ts). Imported first by each
 * LoCoMo entry point, before anything reads the zone.
 */
process.env.TZ = 'UTC';
