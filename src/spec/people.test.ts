/**
 * The one rule for whose a turn is (decision 0360, review fixes): someone else never gets the
 * owner's unscoped view — not even with no conversation named — and the owner's own private chat
 * sees everything whether their id is linked to them or only in `core.identity.owner_ids`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { turnAudience, type PeopleDirectory } from './people.js';

/** A registry where telegram:1 is linked to the owner and nobody else is linked (the real one's rules for those cases). */
const people = {
  personOf: (id: string) => (id === 'telegram:1' ? { id: 'owner', name: 'Owner', owner: true, ids: ['telegram:1'] } : undefined),
  scopeOf: (speaker: { id: string } | undefined, conversation: { kind: string; id: string } | undefined) => {
    if (!conversation) return undefined;
    const owner = !speaker || speaker.id === 'telegram:1';
    if (owner && conversation.kind === 'private') return undefined;
    return [conversation.id];
  },
} as unknown as PeopleDirectory;

test('a non-owner turn with no conversation gets a closed scope, not everything', () => {
  for (const dir of [people, undefined]) {
    assert.deepEqual(turnAudience({ id: 'plugin:someone' }, undefined, [], dir), { owner: false, scope: [] });
    assert.deepEqual(turnAudience({ id: 'qq:5' }, { kind: 'private', id: 'qq:5' }, [], dir), { owner: false, scope: ['qq:5'] });
    assert.deepEqual(turnAudience({ id: 'qq:5' }, { kind: 'group', id: 'qq-group:9' }, [], dir), { owner: false, scope: ['qq-group:9'] });
  }
});

test("the owner's private chat sees everything, by a linked id or by an id only in owner_ids; a group stays scoped", () => {
  assert.deepEqual(turnAudience({ id: 'telegram:1' }, { kind: 'private', id: 'telegram:1' }, [], people), { owner: true, scope: undefined });
  assert.deepEqual(turnAudience({ id: 'telegram:2' }, { kind: 'private', id: 'telegram:2' }, ['telegram:2'], people), { owner: true, scope: undefined });
  assert.deepEqual(turnAudience({ id: 'telegram:2' }, { kind: 'group', id: 'qq-group:9' }, ['telegram:2'], people), { owner: true, scope: ['qq-group:9'] });
  assert.deepEqual(turnAudience(undefined, undefined, [], people), { owner: true, scope: undefined });
});
