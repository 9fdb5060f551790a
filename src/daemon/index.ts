/** The daemon (C-12): assembly, supervisor, pid file. */
export { startDaemon, type Daemon, type DaemonOptions } from './daemon.js';
export { Supervisor, type SupervisorOptions } from './supervisor.js';
export { readPid, writePid, removePid, processAlive } from './pid-file.js';
