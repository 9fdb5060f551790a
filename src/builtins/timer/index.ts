/** `timer` built-in plugin (P-7). */
export { timerPlugin as default, timerPlugin, createTimerPlugin, type TimerPluginOptions } from './timer-plugin.js';
export { TimerScheduler, assertTimezone, type TimerSpec, type TimerSchedulerOptions } from './timer-scheduler.js';
export { TimerStore, type TimerRecord } from './timer-store.js';
export { parseWhen } from './parse-when.js';
