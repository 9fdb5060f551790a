/**
 * A process that regenerates a turn over a data folder as the WebUI's resend does (decision 0550:
 * the turn deleted in the log, then `MemoryControl.replaceTurn`, whose send logs the message again
 * as a new turn) and is killed — SIGKILL, by itself — at one moment:
 *
 * - `mid-hold`   while the turn's items are taken out of the tiers (kept in its row already, the
 *                window changed in memory only, the documents not yet);
 * - `before-log` the items are out, the new message is not in the log;
 * - `after-log`  the new message is in the log, the replacement is not committed.
 * - `mid-commit-sweep`  committed and recorded, killed in its last sweep — with a copy of the old
 *                message back in the documents for that sweep to take (as an older copy would
 *                bring it), so the row is not done (decision 0600).
 *
 * Usage: node --import tsx resend-then-die.ts <home> <turn id> <mode> <epoch ms now>
 */
import path from 'node:path';
import { ConfigRegistry, coreConfigDefaults } from '../../config/index.js';
import { SessionStore } from '../../sessions/index.js';
import type { PluginLogger } from '../../spec/index.js';
import { ManualScheduler } from '../heartbeat/index.js';
import { MemorySystem } from '../memory-system.js';

const [home, turnId, mode, at] = process.argv.slice(2);
const now = () => Number(at);
const die = (): never => {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable');
};
const quiet: PluginLogger = { debug() {}, info() {}, warn() {}, error() {} };
const config = new ConfigRegistry({ dbPath: path.join(home, 'config.db'), env: {}, logger: quiet as never });
config.open();
config.register(coreConfigDefaults());
const sessions = new SessionStore({ dir: path.join(home, 'sessions'), now });
await sessions.open();
const mem = new MemorySystem({ homeDir: home, config, log: quiet, scheduler: new ManualScheduler(now()), now, sessions });
await mem.open();
const sid = turnId.slice(0, turnId.lastIndexOf('#'));
const text = (await sessions.events(sid)).find((e) => e.turnId === turnId && e.kind === 'user')!.text;
if (mode === 'mid-hold') mem.docs.removeMany = die;
const [oldDoc] = mem.docs.idsOfTurn(turnId);
const oldCopy = oldDoc ? mem.docs.get(oldDoc) : undefined;
await sessions.deleteTurns(sid, [turnId], 'turn');
await mem.control.replaceTurn(turnId, async (meta) => {
  if (mode === 'before-log') die();
  const { turnId: by } = sessions.nextTurn(sid);
  await sessions.append(sid, { turnId: by, kind: 'user', text, data: { source: 'webui', trigger: 'user', outcome: 'logged', meta } });
  if (mode === 'after-log') die();
  if (mode === 'mid-commit-sweep') {
    mem.docs.restore([oldCopy!], [undefined]);
    mem.docs.removeMany = die;
  }
  return by;
});
process.stderr.write(`resend-then-die: ${mode} was not reached\n`);
process.exit(3);
