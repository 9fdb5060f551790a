// A host process for src/plugins/external tests: runs the ext-echo plugin, makes it start a
// subprocess, prints both pids as one JSON line, then waits (the test kills this process).
import { createTestHost } from '../../sdk/testing/index.js';
import { fixtureHome } from './fixture-home.js';

const h = await createTestHost({ homeDir: fixtureHome('ext-echo'), registry: { external: { heartbeatMs: 100, heartbeatTimeoutMs: 4000, startTimeoutMs: 8000 } } });
const runner = Number(/pid:(\d+)/.exec(await h.callTool('ext_echo', { text: 'x' }))?.[1]);
const sub = Number(/pid:(\d+)/.exec(await h.callTool('ext_spawn'))?.[1]);
process.stdout.write(`${JSON.stringify({ runner, sub })}\n`);
setInterval(() => {}, 1000);
