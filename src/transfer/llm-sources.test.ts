import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importNote, type TransferPartPlan } from '../spec/index.js';
import { adapterProblem, ADAPTER_MAX_BYTES, mergeSources } from './llm-sources.js';

const L = 'core.llm.custom_sources';
const k = (name: string, field: string) => `core.llm.sources.${name}.${field}`;
const box = { [L]: [{ name: 'mybox', label: 'My box', models: ['m1'] }], [k('mybox', 'base_url')]: 'http://10.0.0.5:8000/v1/', [k('mybox', 'adapter')]: 'openai-compatible', [k('mybox', 'model')]: 'm1' };

function run(theirs: Record<string, unknown>, o: { ours?: unknown; mode?: 'skip' | 'overwrite' | 'keep-both'; privileged?: boolean; usable?: (n: string) => boolean; held?: string[] } = {}) {
  let plan: TransferPartPlan | undefined;
  const notes: string[] = [];
  const r = mergeSources({
    theirs,
    ours: o.ours ?? [],
    mode: o.mode ?? 'skip',
    privilegedSettings: o.privileged ?? false,
    adapterUsable: o.usable ?? ((n) => n === 'openai-compatible'),
    heldAdapters: new Set(o.held ?? []),
    plan: () => (plan ??= { added: 0, same: 0, conflicts: 0, skipped: 0, overwritten: 0, keptBoth: 0, forgotten: 0 }),
    notes,
  });
  return { ...r, plan, notes, set: Object.fromEntries(r.settings.map((s) => [s.key, s.value])) };
}

test('a source new here comes in with its settings, off and keyless; the list first, its address normalised', () => {
  const r = run({ ...box, [k('mybox', 'api_key')]: 'sk-planted-123456789' });
  assert.equal(r.settings[0].key, L);
  assert.deepEqual(r.set, { [L]: [{ name: 'mybox', label: 'My box', models: ['m1'] }], [k('mybox', 'adapter')]: 'openai-compatible', [k('mybox', 'base_url')]: 'http://10.0.0.5:8000/v1', [k('mybox', 'model')]: 'm1', [k('mybox', 'enabled')]: false });
  assert.deepEqual(r.plan?.heldForApproval, ['mybox']);
  assert.deepEqual(r.privilegedLeftOut, [k('mybox', 'enabled')]);
  assert.deepEqual(r.notes, [importNote.settingSecret(k('mybox', 'api_key')), importNote.sourceDisabled('mybox')]);
  assert.ok(r.handled.has(k('mybox', 'api_key')) && r.handled.has(L));
});

test('with privileged settings it is on as it was, unless its adapter was held or is not here', () => {
  assert.equal(run(box, { privileged: true }).set[k('mybox', 'enabled')], true);
  assert.equal(run({ ...box, [k('mybox', 'enabled')]: false }, { privileged: true }).set[k('mybox', 'enabled')], false);
  const held = run({ ...box, [k('mybox', 'adapter')]: 'mine' }, { privileged: true, held: ['mine'] });
  assert.equal(held.set[k('mybox', 'enabled')], false);
  assert.deepEqual(held.notes, [importNote.sourceAdapterHeld('mybox', 'mine')]);
  assert.deepEqual(held.privilegedLeftOut, []);
  assert.deepEqual(run({ ...box, [k('mybox', 'adapter')]: 'gone' }, { privileged: true }).notes, [importNote.sourceAdapterMissing('mybox', 'gone')]);
});

test('a source here by name keeps its settings (they follow the settings rules); its label follows the mode', () => {
  const ours = [{ name: 'mybox', label: 'Ours', models: [] }];
  const skip = run(box, { ours });
  assert.deepEqual({ conflicts: skip.plan?.conflicts, skipped: skip.plan?.skipped, settings: skip.settings, handledKey: skip.handled.has(k('mybox', 'base_url')) }, { conflicts: 1, skipped: 1, settings: [], handledKey: false });
  assert.deepEqual(run(box, { ours, mode: 'overwrite' }).set[L], [{ name: 'mybox', label: 'My box', models: ['m1'] }]);
  assert.equal(run(box, { ours: [{ name: 'mybox', label: 'My box', models: ['m1'] }] }).plan?.same, 1);
});

test('a malformed source is left out with the setting that is wrong; a built-in name, a name twice and a list that is none are said', () => {
  assert.deepEqual(run({ ...box, [k('mybox', 'base_url')]: 'ftp://x' }).notes, [importNote.sourceInvalid('mybox', `${k('mybox', 'base_url')}: the base URL must be http(s)`)]);
  assert.deepEqual(run({ [L]: [{ name: 'mybox' }] }).notes, [importNote.sourceInvalid('mybox', `${k('mybox', 'base_url')}: missing`)]);
  assert.deepEqual(run({ ...box, [k('mybox', 'adapter')]: '../x' }).set, {});
  assert.match(run({ [L]: [{ name: 'Bad!' }] }).notes[0], /^LLM source Bad! in the archive is malformed \(core\.llm\.custom_sources\[0\]\.name: /);
  assert.deepEqual(run({ [L]: [{ name: 'openai' }] }).notes, [importNote.sourceBuiltInName('openai')]);
  assert.deepEqual(run({ ...box, [L]: [box[L][0], box[L][0]] }).notes.at(-1), importNote.sourceInvalid('mybox', `${L}[1]: named twice`));
  const none = run({ [L]: { mybox: 1 } });
  assert.deepEqual([none.notes, none.settings], [[importNote.sourcesUnreadable(`${L}: not a list`)], []]);
  assert.equal(run({}).handled.size, 0);
});

test('an adapter file is kept as code only when it is UTF-8 text of at most 1 MiB', () => {
  assert.equal(adapterProblem(Buffer.from('function transform_request() end')), undefined);
  assert.equal(adapterProblem(Buffer.from([0x1b, 0x4c, 0x75, 0x61, 0x00])), 'not-text');
  assert.equal(adapterProblem(Buffer.from([0xff, 0xfe, 0x41])), 'not-text');
  assert.equal(adapterProblem(Buffer.alloc(ADAPTER_MAX_BYTES + 1, 0x20)), 'too-large');
});
