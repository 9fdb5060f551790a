// Fixed zone before any Date is made: waiter prints local time, and the expectations below are
// Shanghai time (UTC+8, no daylight saving), so 23:44 UTC is 07:44 the next day.
process.env.TZ = 'Asia/Shanghai';

import { test } from 'node:test';
import stringWidth from 'string-width';
import assert from 'node:assert/strict';
import { formatWhen, heldHint, importView, renderHuman, setDisplayZone, statusView } from './output.js';
import { historyRow } from './memory-control-commands.js';
import type { MemoryChange } from '../spec/index.js';

const CREATED = 1796168650451; // 2026-12-01T23:44:10.451Z
const UPDATED = 1796169136554.654; // fractional, as the knowledge base reports it

test('formatWhen: local time to the minute', () => {
  assert.equal(formatWhen(CREATED), '2026-12-02 07:44');
  assert.equal(formatWhen(UPDATED), '2026-12-02 07:52');
});

test('formatWhen: the person\'s zone (core.agent.timezone) once set, the machine\'s for "" or a value that is no zone', () => {
  try {
    setDisplayZone('America/New_York');
    assert.equal(formatWhen(CREATED), '2026-12-01 18:44');
    assert.match(renderHuman({ createdAt: CREATED }), /createdAt: 2026-12-01 18:44/);
    setDisplayZone('Mars/Olympus');
    assert.equal(formatWhen(CREATED), '2026-12-02 07:44');
  } finally {
    setDisplayZone('');
  }
  assert.equal(formatWhen(CREATED), '2026-12-02 07:44');
});

test('renderHuman formats date-like keys in tables (sessions, knowledge list)', () => {
  const out = renderHuman([
    { id: 'cli:default', createdAt: CREATED, updatedAt: UPDATED, events: 12 },
    { id: 'web:x', createdAt: CREATED, updatedAt: UPDATED, events: 3 },
  ]);
  assert.doesNotMatch(out, /1796168650451|1796169136554/);
  const row = out.split('\n')[2];
  assert.match(row, /^cli:default\s+2026-12-02 07:44\s+2026-12-02 07:52\s+12$/);
});

test('renderHuman formats nested date-like keys (status startedAt, graph validFrom/validTo, people link)', () => {
  const out = renderHuman({
    daemon: { pid: 42, startedAt: CREATED },
    relations: [{ subject: 'Ann', predicate: 'lives_in', object: 'Lyon', validFrom: CREATED, validTo: null }],
    person: { id: 'p1', ids: ['telegram:42'], createdAt: CREATED, updatedAt: new Date(CREATED).toISOString() },
    coolDownUntil: CREATED,
  });
  assert.match(out, /^ {2}startedAt: 2026-12-02 07:44$/m);
  assert.match(out, /^ {2}createdAt: 2026-12-02 07:44$/m);
  assert.match(out, /^ {2}updatedAt: 2026-12-02 07:44$/m, 'ISO strings under date keys too');
  assert.match(out, /^coolDownUntil: 2026-12-02 07:44$/m);
  assert.match(out, /Ann\s+lives_in\s+Lyon\s+2026-12-02 07:44/);
  assert.doesNotMatch(out, /1796168650451/);
});

test('renderHuman leaves numbers that are not timestamps alone', () => {
  const out = renderHuman({ pid: 1796168650451, latencyMs: 1200, createdAt: 0, updatedAt: 'yesterday', events: 1796168650451 });
  assert.match(out, /^pid: 1796168650451$/m, 'only date-like keys are formatted');
  assert.match(out, /^createdAt: 0$/m, 'zero is no time');
  assert.match(out, /^updatedAt: yesterday$/m);
  assert.match(out, /^latencyMs: 1200$/m);
});

test('tables line up with Chinese text (two columns a character), cut long cells by width, and show scores to two places', () => {
  const out = renderHuman([
    { name: '菜谱', score: 0.5956733582937029, n: 3 },
    { name: 'wifi', score: 1, n: 12 },
    { name: '我叫小明，我住在杭州。'.repeat(10), score: 0.8000000000000002, n: 1 },
  ]);
  const lines = out.split('\n');
  const col = (line: string, text: string) => stringWidth(line.slice(0, line.indexOf(text)));
  assert.equal(col(lines[2], '0.6'), col(lines[3], '1'), 'the score column starts at the same terminal column after 菜谱 and after wifi');
  assert.equal(col(lines[2], '0.6'), col(lines[0], 'score'));
  assert.match(lines[2], /^菜谱\s+0\.6\s+3$/);
  assert.match(lines[4], /…\s+0\.8\s+1$/);
  assert.ok(stringWidth(lines[4].split(/\s{2,}/)[0]) <= 80, 'a long Chinese cell is cut to 80 columns, not 80 characters');
  assert.doesNotMatch(out, /0\.5956|0\.80000/);
  assert.match(renderHuman({ confidence: 0.8000000000000002, count: 7 }), /^confidence: 0\.8\ncount: 7$/);
});

test('memory history rows use the same format', () => {
  const change = { id: 'c1', at: CREATED, actor: 'user', kind: 'fact', op: 'add', summary: 's' } as unknown as MemoryChange;
  assert.equal(historyRow(change).when, '2026-12-02 07:44');
});

test('waiter status: a store set aside shows what was read back of it in words (decision 0280)', () => {
  const out = renderHuman(
    statusView({
      busy: false,
      setAside: [
        { store: 'memory-control', file: '/h/memory-control.db.corrupt-5', at: CREATED, salvaged: { tombstones: 12, tombstonesLostAtMost: 0, exclusions: 1, changes: 40, unreadablePages: 1 } },
        { store: 'documents', file: '/h/documents/documents.db.corrupt-5', at: CREATED, recover: 'waiter memory reindex' },
      ],
    }),
  );
  assert.match(out, /memory-control .*12 tombstones \(none lost\), 1 exclusions, 40 history/);
  assert.doesNotMatch(out, /tombstonesLostAtMost/);
  const unknown = renderHuman(statusView({ setAside: [{ store: 'memory-control', file: '/x', at: CREATED, salvaged: { tombstones: 0, tombstonesLostAtMost: null, exclusions: 0, changes: 0, unreadablePages: 4 } }] }));
  assert.match(unknown, /0 tombstones \(loss unknown\)/);
});

test('waiter status: a salvaged config.db or graph.db shows rows kept of those read, what was left out, pages lost and settings dropped (decision 0310)', () => {
  const out = renderHuman(
    statusView({
      setAside: [
        { store: 'config', file: '/h/config.db.corrupt-5', at: CREATED, salvaged: { read: 44, kept: 41, skipped: 3, unreadablePages: 2, tables: {}, droppedKeys: ['core.agent.max_tool_rounds'] } },
        { store: 'graph', file: '/h/graph.db.corrupt-5', at: CREATED, salvaged: { read: 300, kept: 300, skipped: 0, unreadablePages: 0, tables: {} } },
        { store: 'graph', file: '/h/graph.db.corrupt-6', at: CREATED, salvaged: { read: 90, kept: 90, skipped: 0, unreadablePages: 0, freePagesSkipped: 2, tables: {} } },
      ],
    }),
  );
  assert.match(out, /config .*41\/44 rows, 3 left out, 2 pages lost, dropped: core\.agent\.max_tool_rounds/);
  assert.match(out, /graph .*300\/300 rows/);
  assert.match(out, /graph .*90\/90 rows, 2 free pages skipped/, 'a stale page pointed into the freelist (0310, Free pages)');
  assert.doesNotMatch(out, /undefined|tombstones/);
});

test('waiter status as people read it leaves out the V8 heap settings (they stay in --json); history says "forget", not "forget forget"', () => {
  const view = statusView({ pid: 1, v8: { flags: ['--heap-growing-percent=100'] }, setAside: [] });
  assert.equal('v8' in view, false);
  assert.equal(view.pid, 1);
  const change = { id: 'c2', at: CREATED, actor: 'user', kind: 'forget', op: 'forget', target: 'forget', subjects: [], summary: 'forgot 1 turn' } as MemoryChange;
  assert.equal(historyRow(change).what, 'forget');
});

test('an import report as people read it: a table of parts with the counts that are not all zero; empty maps left out', () => {
  const zero = { added: 0, same: 0, conflicts: 0, skipped: 0, overwritten: 0, keptBoth: 0, forgotten: 0 };
  const view = importView(true, { mode: 'skip', parts: { sessions: { ...zero, same: 1 }, graph: { ...zero, added: 3, same: 9 } }, renamedSessions: {}, renamed: { library: {}, knowledge: {} }, notes: [] });
  assert.deepEqual(view, { dryRun: true, parts: [{ part: 'sessions', added: 0, same: 1 }, { part: 'graph', added: 3, same: 9 }], mode: 'skip' });
  const text = renderHuman(view);
  assert.match(text, /^ {2}part\s+added\s+same$/m);
  assert.match(text, /^ {2}graph\s+3\s+9$/m);
  assert.doesNotMatch(text, /renamed|notes|conflicts/);
});

test('after an import that held back what reaches every conversation, the command that takes it is named', () => {
  assert.equal(heldHint('e.zip', 'skip', []), undefined);
  assert.equal(heldHint('e.zip', 'skip', undefined), undefined);
  assert.equal(heldHint('/tmp/e.zip', 'skip', ['pinned/plan.json']), '\nHeld back because it would reach every conversation: pinned/plan.json.\nRead the report above, then take it with: waiter import /tmp/e.zip --approve-injected\n');
  assert.match(heldHint('my backup.zip', 'overwrite', ['persona.md', 'pinned/plan.json'])!, /waiter import "my backup\.zip" --approve-injected --mode overwrite\n$/);
});
