/** `healthcheck` built-in plugin (P-7). */
export { healthcheckPlugin as default, healthcheckPlugin, createHealthcheckPlugin } from './healthcheck-plugin.js';
export { buildHealthReport, formatHealthReport, type HealthReport, type HealthStatus, type HealthInputs } from './health-report.js';
