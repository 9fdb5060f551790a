import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { MemoryChange, MemoryChangedEvent, MemoryChangedKind } from '../../spec/index.js';
import { CHANGE_FEED_MAX_IDS, MemoryChangeFeed, type FeedTimers } from './change-feed.js';
import { withChangeActor } from './change-actor.js';

/** A clock the test moves: timers fire when `advance` passes their time. */
function manualTimers() {
  let now = 1_000;
  let seq = 0;
  const due = new Map<number, { at: number; fn: () => void }>();
  const timers: FeedTimers = {
    set: (fn, ms) => {
      const id = ++seq;
      due.set(id, { at: now + ms, fn });
      return id as unknown as ReturnType<typeof setTimeout>;
    },
    clear: (t) => void due.delete(t as unknown as number),
  };
  const advance = (ms: number) => {
    const end = now + ms;
    for (;;) {
      const next = [...due.entries()].filter(([, d]) => d.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!next) break;
      due.delete(next[0]);
      now = next[1].at;
      next[1].fn();
    }
    now = end;
  };
  return { timers, advance, now: () => now, pending: () => due.size };
}

function feed(windowMs = 300) {
  const clock = manualTimers();
  const f = new MemoryChangeFeed({ windowMs, timers: clock.timers, now: clock.now });
  const events: MemoryChangedEvent[] = [];
  f.on((e) => events.push(e));
  return { f, events, ...clock };
}

const change = (kind: MemoryChange['kind'], target: string, extra: Partial<MemoryChange> = {}): MemoryChange => ({ id: '1', at: 0, actor: 'heartbeat', kind, target, subjects: ['Anna', 'secret subject'], op: 'create', summary: 'user lives_in Secretville', ...extra });

test('a burst of 200 facts is one relation event, sent once the window has passed (trailing edge)', () => {
  const { f, events, advance } = feed(300);
  for (let i = 0; i < 200; i++) {
    f.noteRecorded([change('relation', `relation:${i}`)]);
    advance(1);
  }
  assert.equal(events.length, 0, 'nothing is sent inside the window');
  advance(100);
  assert.equal(events.length, 1);
  assert.equal(events[0].kind, 'relation');
  assert.deepEqual(events[0].actors, ['heartbeat']);
  assert.equal(events[0].ids, undefined, `more than ${CHANGE_FEED_MAX_IDS} ids: none named`);
  advance(5_000);
  assert.equal(events.length, 1, 'no second event without a new change');
});

test('a steady stream gives at most one event per kind per window; kinds do not hold each other up', () => {
  const { f, events, advance } = feed(300);
  for (let i = 0; i < 30; i++) {
    f.notify({ kind: 'memory', ids: ['m-1'], actor: 'user' });
    advance(50);
  }
  // 1,500 ms of changes every 50 ms: one event per 300 ms window (the last one at 1,500 ms).
  assert.equal(events.length, 5);
  assert.ok(events.every((e) => e.kind === 'memory'));
  f.notify({ kind: 'plan', actor: 'user' });
  f.notify({ kind: 'knowledge', actor: 'mcp' });
  f.notify({ kind: 'plan', actor: 'agent' });
  advance(300);
  const later = events.slice(5).map((e) => [e.kind, e.actors.join(',')]);
  assert.deepEqual(later.sort(), [['knowledge', 'mcp'], ['plan', 'user,agent']]);
});

test('a change after an event opens a new window: it is sent too, never lost', () => {
  const { f, events, advance } = feed(300);
  f.notify({ kind: 'document', ids: ['d1'], actor: 'user' });
  advance(300);
  f.notify({ kind: 'document', ids: ['d2'], actor: 'user' });
  advance(299);
  assert.equal(events.length, 1);
  advance(1);
  assert.deepEqual(events.map((e) => e.ids), [['d1'], ['d2']]);
  assert.equal(events[1].at, 1_000 + 300, 'the time of the last change it stands for');
});

test('the payload names kinds, actors and opaque ids only — never text, titles or entity names', () => {
  const { f, events, advance } = feed();
  f.noteRecorded([
    change('relation', 'relation:12'),
    change('entity', 'entity:Anna Secretname'),
    change('knowledge', 'knowledge:my bank pin'),
    change('memory', 'm-abc-123', { actor: 'mcp', before: { notes: 'the code is 4711' } }),
    change('exclusion', 'telegram:42#7', { actor: 'user' }),
    change('relation', 'purge:1234'),
  ]);
  f.notify({ kind: 'document', ids: ['a note with spaces is not an id'], actor: 'user' });
  advance(300);
  const byKind = Object.fromEntries(events.map((e) => [e.kind, e]));
  assert.deepEqual(byKind.relation.ids, undefined, 'a purge names no relation: the kind is read again');
  assert.equal(byKind.entity.ids, undefined);
  assert.equal(byKind.knowledge.ids, undefined);
  assert.deepEqual(byKind.memory.ids, ['m-abc-123']);
  assert.equal(byKind.exclusion.ids, undefined);
  assert.equal(byKind.document.ids, undefined);
  const wire = JSON.stringify(events);
  for (const secret of ['Anna', 'Secretname', 'bank pin', '4711', 'Secretville', 'secret subject', 'spaces', 'telegram:42']) assert.ok(!wire.includes(secret), `${secret} leaked: ${wire}`);
  for (const e of events) assert.deepEqual(Object.keys(e).sort(), e.ids ? ['actors', 'at', 'ids', 'kind'] : ['actors', 'at', 'kind']);
});

test('relation ids are named while few', () => {
  const { f, events, advance } = feed();
  f.noteRecorded([change('relation', 'relation:12'), change('relation', 'relation:13'), change('relation', 'relation:12')]);
  advance(300);
  assert.deepEqual(events[0].ids, ['12', '13']);
});

test('an import stands for every kind of content', () => {
  const { f, events, advance } = feed();
  f.noteRecorded([change('document', 'import:j1:knowledge', { op: 'import', actor: 'import' })]);
  advance(300);
  const kinds: MemoryChangedKind[] = events.map((e) => e.kind).sort();
  assert.deepEqual(kinds, ['document', 'entity', 'knowledge', 'memory', 'plan', 'relation']);
  assert.ok(events.every((e) => e.actors.join() === 'import' && e.ids === undefined));
});

test('notify: the actor of the change context by default; unknown kinds and actors are not passed on', () => {
  const { f, events, advance } = feed();
  withChangeActor({ actor: 'heartbeat', tool: 'archive' }, () => f.notify({ kind: 'document' }));
  f.notify({ kind: 'people' });
  f.notify({ kind: 'secrets' as MemoryChangedKind });
  f.notify({ kind: 'plan', actor: 'root' as never });
  advance(300);
  assert.deepEqual(events.map((e) => [e.kind, e.actors.join()]).sort(), [['document', 'heartbeat'], ['people', 'user'], ['plan', 'user']]);
});

test('a failing listener does not keep the others from the event; cancel drops what is pending', () => {
  const { f, events, advance, pending } = feed();
  f.on(() => {
    throw new Error('boom');
  });
  const seen: string[] = [];
  f.on((e) => seen.push(e.kind));
  f.notify({ kind: 'memory', actor: 'user' });
  advance(300);
  assert.deepEqual(seen, ['memory']);
  assert.equal(events.length, 1);
  f.notify({ kind: 'memory', actor: 'user' });
  f.cancel();
  assert.equal(pending(), 0);
  advance(1_000);
  assert.equal(events.length, 1);
  f.notify({ kind: 'memory', actor: 'user' });
  f.flush();
  assert.equal(events.length, 2, 'flush sends at once');
});
