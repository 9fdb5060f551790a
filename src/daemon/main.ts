#!/usr/bin/env node
/**
 * The `homed` entry (C-12; the commands are in `homed.ts`). It sets V8's young generation before
 * anything else is loaded (decision 0180): V8 grows its new space while modules load, so the
 * setting must come first, and static imports would all run before this module's body. Only
 * `v8-memory.js` (Node built-ins only) is imported statically; the daemon with `import()` after it.
 * Every launcher — `npm start`, the bin, the supervisor, the service units, the benches — runs this
 * file, so none can forget it.
 */
import { applyDaemonV8Flags, freezeYoungGeneration } from './v8-memory.js';

const invoked = process.argv[1] && /(homed|daemon\/main)(\.[jt]s)?$/.test(process.argv[1]);
if (invoked) {
  freezeYoungGeneration();
  // Before any module loads, as on the command line (pretenuring decisions start with the first scavenges).
  applyDaemonV8Flags();
  const { main } = await import('./homed.js');
  const code = await main();
  if (code >= 0) process.exit(code);
}
